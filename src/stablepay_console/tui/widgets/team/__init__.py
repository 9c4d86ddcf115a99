"""The Team screen's widgets."""
