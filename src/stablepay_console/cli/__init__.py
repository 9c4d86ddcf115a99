"""Command line: the console (default), headless commands, `sandbox serve`."""

from stablepay_console.cli.main import main

__all__ = ["main"]
