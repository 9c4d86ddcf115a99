"""Writing requests out: CSV and JSON exports, and the evidence pack of one request."""
