"""The team record: the team's PostgreSQL behind the same `Record` interface (psycopg 3, the `team` extra)."""
