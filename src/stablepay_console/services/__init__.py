"""UI-free state and jobs: pagers, export, metric series, quote history, explorers."""
