"""Which record this machine uses: the local SQLite file, or a team's PostgreSQL named by a URL.

`STABLEPAY_RECORD_URL` wins; else the URL saved by `record use URL` (`record.json` in the config
folder); else the local file. A URL is `postgresql://ROLE@HOST:PORT/DB` (query parameters such as
`sslmode` allowed). It is read as libpq reads it (`conninfo_to_dict`), together with what libpq adds
from a service file (`service=`, `PGSERVICE`) and the environment (`PGHOST`, `PGSSLMODE`, …), and two
rules hold for what libpq will really use:

- no password in the URL: the password comes from libpq's own means (PGPASSWORD, ~/.pgpass, a service
  file, peer or certificate authentication), never from our config file or the environment's URL;
- a host that is not loopback (or a Unix socket) needs TLS that authenticates the server:
  `sslmode=verify-full` (or `verify-ca`). `require` is refused: it encrypts, but any server that
  answers is believed.

psycopg (the `team` extra) reads the URL; a one-person install without it is told to install it.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from stablepay_console.storage import locations, record_json, variables
from stablepay_console.storage.postgres.conninfo import libpq_view
from stablepay_console.storage.writing import write_atomically

URL_VARIABLE = variables.RECORD_URL
SETTING_NAME = "record.json"
SCHEMES = ("postgresql", "postgres")
TLS_MODES = ("verify-ca", "verify-full")
SECRET_PARAMETERS = ("password", "sslpassword")
PASSWORD_HOME = (
    "Keep the password where libpq looks for it: the PGPASSWORD variable, ~/.pgpass (mode 0600), a "
    "service file, or use peer or certificate authentication."
)


class RecordUrlError(ValueError):
    """The URL cannot be used; the message says why (it never repeats a password)."""


@dataclass(frozen=True)
class TeamUrl:
    url: str
    """As given (it holds no password: such a URL is refused)."""
    hosts: tuple[str, ...]
    port: str
    database: str
    user: str
    """The role named in the URL; "" when libpq picks it (PGUSER, else the OS user)."""
    sslmode: str

    @property
    def where(self) -> str:
        """`HOST:PORT/DB`, to name the database in messages."""
        host = ",".join(self.hosts) or "local socket"
        return f"{host}{':' + self.port if self.port else ''}/{self.database or '(default database)'}"

    @property
    def role(self) -> str:
        """Who libpq will log in as, without asking the server."""
        if self.user:
            return self.user
        import getpass

        try:
            return os.environ.get("PGUSER") or getpass.getuser()
        except (OSError, KeyError, ImportError):
            return "unknown"


def shown(text: str) -> str:
    """A URL as it may be shown: any password replaced by `***` (in the user part and the query)."""
    try:
        parts = urlsplit(text.strip())
    except ValueError:
        return "(an unreadable URL)"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostinfo = netloc.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{hostinfo}"
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = "&".join(f"{k}={'***' if k.lower() in SECRET_PARAMETERS else v}" for k, v in pairs)
    return parts._replace(netloc=netloc, query=query).geturl()


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1, `localhost` itself, or a Unix socket folder (a path)."""
    if not host or host.startswith("/") or host.startswith("@") or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _conninfo(value: str) -> dict[str, str]:
    try:
        from psycopg import ProgrammingError
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise RecordUrlError(
            "A team record URL needs PostgreSQL support: install stablepay-console[team] "
            "(pip install 'stablepay-console[team]')."
        ) from None
    try:
        return {k: str(v) for k, v in conninfo_to_dict(value).items() if v is not None}
    except ProgrammingError:
        raise RecordUrlError(f"{shown(value)} is not a URL like postgresql://ROLE@HOST:PORT/DB.") from None


def parse(text: str, environ: Mapping[str, str] | None = None) -> TeamUrl:
    """Check a team record URL as libpq will use it; RecordUrlError says what is wrong and what to do."""
    value = text.strip()
    scheme = value.partition("://")[0].lower() if "://" in value else ""
    if scheme not in SCHEMES:
        raise RecordUrlError(f"{shown(value)} is not a PostgreSQL URL: write postgresql://ROLE@HOST:PORT/DB.")
    given = _conninfo(value)
    if any(k in given for k in SECRET_PARAMETERS):
        raise RecordUrlError(f"The record URL holds a password ({shown(value)}); it is not kept. {PASSWORD_HOME}")
    used = libpq_view(given, os.environ if environ is None else environ)
    hosts = tuple(_split(used.get("host", ""))) + tuple(_split(used.get("hostaddr", "")))
    sslmode = used.get("sslmode", "prefer")
    remote = [h for h in hosts if not is_loopback(h)]
    if remote and sslmode not in TLS_MODES:
        origin = "" if remote[0] in _split(given.get("host", "")) + _split(given.get("hostaddr", "")) else (
            " (a host libpq takes from the environment or a service file)")
        if sslmode == "require":
            raise RecordUrlError(
                f"The team record at {remote[0]}{origin} would be reached with sslmode=require, which encrypts but "
                "does not check which server answers. Use ?sslmode=verify-full (the server's CA certificate in "
                "~/.postgresql/root.crt or sslrootcert=FILE)."
            )
        raise RecordUrlError(
            f"The team record at {remote[0]}{origin} would be reached without TLS that checks the server "
            f"(sslmode={sslmode}). Add ?sslmode=verify-full to the URL (the server's CA certificate in "
            "~/.postgresql/root.crt or sslrootcert=FILE); plain connections are allowed to loopback and local "
            "sockets only, as plain HTTP is."
        )
    return TeamUrl(
        url=value,
        hosts=hosts,
        port=used.get("port", ""),
        database=used.get("dbname", ""),
        user=given.get("user", ""),
        sslmode=used.get("sslmode", ""),
    )


def setting_file() -> Path:
    return locations.config_dir() / SETTING_NAME


def saved() -> str | None:
    """The URL `record use` saved, if any (read as text; checked by the caller)."""
    try:
        data = record_json.loads(setting_file().read_text(encoding="utf-8"), max_chars=100_000, max_depth=4)
    except (OSError, ValueError):
        return None
    url = data.get("url") if isinstance(data, dict) else None
    return url if isinstance(url, str) and url.strip() else None


def save(text: str) -> TeamUrl:
    """Check and keep the URL for every console and command of this user; RecordUrlError when refused."""
    url = parse(text)
    path = locations.ensure(setting_file())
    write_atomically(path, json.dumps({"url": url.url}, indent=2) + "\n", "the record setting")
    return url


def forget() -> bool:
    """Go back to the local file; True when a URL was saved."""
    try:
        setting_file().unlink()
    except FileNotFoundError:
        return False
    return True


def chosen() -> tuple[str, str] | None:
    """(URL text, where it came from) when a team record is chosen; None for the local file."""
    value = os.environ.get(URL_VARIABLE, "").strip()
    if value:
        return value, URL_VARIABLE
    kept = saved()
    return (kept, str(setting_file())) if kept else None
