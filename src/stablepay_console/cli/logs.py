"""The console's log file: our own records only, each one method, path and status (or a plain notice).

- The file handler sits on the `stablepay_console` logger, not on the root: httpx,
  httpcore and httpx-retries (full URLs with query strings, the server's Retry-After
  text) never reach the file.
- Every record is passed through `PrivacyFilter`: any query string is cut from paths and
  URLs (a `userId` filter is personal data), unsafe characters are escaped, and a
  traceback is reduced to its exception's type (its text may quote a server).
- The root logger gets a NullHandler when it has none, so a library warning is not
  printed raw on the terminal by logging's last-resort handler.
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

from stablepay_console.api.sanitize import clean

OUR_LOGGER = "stablepay_console"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
MAX_MESSAGE = 500

_QUERY = re.compile(r"(?P<keep>(?:https?://|/)[^\s?#]*)[?#]\S*")


def without_query(text: str) -> str:
    """`GET /v2/rfis?userId=… -> 200` -> `GET /v2/rfis -> 200` (also in full URLs; fragments too)."""
    return _QUERY.sub(lambda m: m.group("keep"), text)


class PrivacyFilter(logging.Filter):
    """Rewrites each record to its safe form: no query string, no raw escapes, no traceback text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format
            message = f"{record.msg!s} (unformattable arguments)"
        if record.exc_info and record.exc_info[0] is not None:
            message = f"{message} ({record.exc_info[0].__name__})"
        record.msg = clean(without_query(message), MAX_MESSAGE)
        record.args = None
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


class LogFile(logging.FileHandler):
    """The log file. A record the disk refuses is said once (what, where, why), never as logging's own
    "--- Logging error ---" traceback on standard error; the console goes on."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8")

    def handleError(self, record: logging.LogRecord) -> None:
        from stablepay_console.storage.writing import NOT_WRITTEN, not_written

        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            NOT_WRITTEN.post(str(not_written("the log", self.baseFilename, exc)))


def _is_ours(handler: logging.Handler) -> bool:
    return bool(getattr(handler, "stablepay_console", False))


def stop_logging() -> None:
    """Take the console's handlers off (also one an older version put on the root) and close its file."""
    for logger in (logging.getLogger(OUR_LOGGER), logging.getLogger()):
        for old in [h for h in logger.handlers if _is_ours(h)]:
            logger.removeHandler(old)
            old.close()


def setup_logging(path: Path | None = None) -> logging.Handler:
    """Log the console's own records to its log file (`path`, default the log folder's `console.log`)."""
    ours = logging.getLogger(OUR_LOGGER)
    root = logging.getLogger()
    stop_logging()
    from stablepay_console.storage.writing import NOT_WRITTEN, not_written

    try:
        if path is None:
            from stablepay_console.storage import locations

            path = locations.log_file()
            locations.ensure(path)
        handler: logging.Handler = LogFile(path)
    except OSError as exc:  # a read-only or full disk: said once; the console works on without a log
        NOT_WRITTEN.post(str(not_written("the log", path or "the log folder", exc)))
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(PrivacyFilter())
    handler.stablepay_console = True  # type: ignore[attr-defined]
    ours.addHandler(handler)
    ours.setLevel(logging.INFO)
    if not root.handlers:
        quiet = logging.NullHandler()
        quiet.stablepay_console = True  # type: ignore[attr-defined]
        root.addHandler(quiet)
    return handler
