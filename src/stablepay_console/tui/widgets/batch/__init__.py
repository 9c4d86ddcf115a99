"""The batch lookup's widgets."""
