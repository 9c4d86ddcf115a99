"""Triage as a team process: the steps on our side, the service levels, the report (UI-free)."""
