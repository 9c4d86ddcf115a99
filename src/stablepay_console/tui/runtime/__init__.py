"""How the console runs: its start, the terminal and the browser it runs in, signals and the exit, what it hands
the clipboard and the browser."""
