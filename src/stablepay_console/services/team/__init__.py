"""The team: which record a machine uses, and what a team record changes (radar, needs action, due, import)."""
