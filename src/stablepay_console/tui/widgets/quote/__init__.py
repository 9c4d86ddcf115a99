"""The quote refresh's widgets."""
