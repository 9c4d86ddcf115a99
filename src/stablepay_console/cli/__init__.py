"""Command line: the console (default), headless commands, `sandbox serve`."""

from stablepay_console.cli.main import main, run

__all__ = ["main", "run"]
