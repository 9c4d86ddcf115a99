from stablepay_console.cli.main import main

raise SystemExit(main())
