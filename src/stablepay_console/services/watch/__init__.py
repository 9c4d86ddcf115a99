"""The watch: the console's deadline radar and `rfis watch`'s incremental polls (UI-free)."""
