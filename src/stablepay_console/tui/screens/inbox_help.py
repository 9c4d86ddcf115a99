"""The inbox's F1 help."""

HELP = """\
## RFI inbox

Requests for information raised by compliance, newest first.

- **n** / **p**: next / previous page; **g** / **G**: first / last page.
- **/** focuses the filter bar; **s** and **k** cycle the status and kind filters,
  **u** types a user ID (Enter applies; a value that is not a UUID is refused),
  **x** clears every filter. The page size (1 to 100) is in the filter bar.
- **a** toggles *needs action*: every issued request whose deadline is ahead, nearest first,
  then the *overdue* ones (deadline passed: a reply would be rejected).
- **r** reloads; **t** cycles auto-refresh (off, 15 s, 30 s, 60 s).
- **Enter** opens the request; **c** copies its ID, **y** its user ID.
- **e** exports the current filter, all pages, to CSV or JSON; **Esc** cancels a running export.

The deadline counts down to the current round's `expiresAt`, red under 24 hours; *no deadline*: the
round gives no date. *link* after
the round number: its hosted reply page is still open (the request's detail says why when not).
Pages you visit and their neighbours are kept for a moment, so paging is instant; each is
checked again quietly and marked *updated* when it changed. **r** asks the server afresh.
"""
