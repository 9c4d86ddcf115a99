"""Modal screens pushed over the top-level screens."""
