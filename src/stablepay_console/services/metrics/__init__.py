"""Saved metrics: the chart's series, the grid and the view's state (UI-free)."""
