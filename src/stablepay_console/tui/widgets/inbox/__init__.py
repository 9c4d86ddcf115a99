"""The inbox screen's widgets."""
