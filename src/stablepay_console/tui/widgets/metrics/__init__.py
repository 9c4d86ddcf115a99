"""The metrics screen's widgets."""
