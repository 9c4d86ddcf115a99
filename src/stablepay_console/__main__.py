from stablepay_console.cli import main

raise SystemExit(main())
