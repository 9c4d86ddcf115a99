"""stablepay-console: a terminal console for a stablecoin payments integration."""

__version__ = "0.1.0"
