"""The request detail's widgets."""
