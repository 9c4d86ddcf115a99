"""Where files live, preferences and the local record (stdlib and platformdirs only)."""
