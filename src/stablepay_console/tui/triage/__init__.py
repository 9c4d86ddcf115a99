"""The team's process in the console: triage steps, the request's process, the review queue, assignment."""
