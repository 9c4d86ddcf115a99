from stablepay_console.cli.main import run

raise SystemExit(run())
