"""What libpq will really use for a connection: the given parameters, then a service file's, then the environment's.

libpq fills a parameter that the connection string does not give from the service named by `service=`
(or `PGSERVICE`), looked up in `PGSERVICEFILE` (default `~/.pg_service.conf`) and then in
`PGSYSCONFDIR/pg_service.conf`; what is still missing comes from its environment variable (`PGHOST`,
`PGSSLMODE`, …). Rules about where a connection goes (TLS off loopback) are decided on this view, never
on the text of a URL alone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

ENVIRONMENT = {
    "host": "PGHOST",
    "hostaddr": "PGHOSTADDR",
    "port": "PGPORT",
    "dbname": "PGDATABASE",
    "user": "PGUSER",
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
}
"""The parameters a TLS or location rule needs, and the variables libpq reads them from."""
SYSTEM_FOLDER = "/etc/postgresql-common"
"""Debian's libpq looks here for pg_service.conf when PGSYSCONFDIR is not set."""


def _service_files(environ: Mapping[str, str]) -> list[Path]:
    user_file = environ.get("PGSERVICEFILE") or str(Path(environ.get("HOME") or Path.home()) / ".pg_service.conf")
    return [Path(user_file), Path(environ.get("PGSYSCONFDIR") or SYSTEM_FOLDER) / "pg_service.conf"]


def _section(text: str, name: str) -> dict[str, str] | None:
    """The first `[name]` section of a service file, read as libpq reads it: it stops at the next section, and
    within the section the first value of a key is the one used (a later line never overrides it)."""
    found: dict[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if found is not None:
                return found  # libpq reads the first section of that name only
            if line.rstrip("]")[1:].strip() == name:
                found = {}
            continue
        if found is not None and "=" in line:
            key, value = line.split("=", 1)
            found.setdefault(key.strip().lower(), value.strip())
    return found


def service_parameters(name: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The parameters of service `name` from the first service file that defines it ({} when none does)."""
    for path in _service_files(environ):
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        section = _section(text, name)
        if section is not None:
            return section
    return {}


def libpq_view(given: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """`given` (from `conninfo_to_dict`) completed as libpq completes it: service file, then environment."""
    env = os.environ if environ is None else environ
    used = {k: v for k, v in given.items() if v != ""}
    service = used.get("service") or env.get("PGSERVICE", "")
    if service:
        for key, value in service_parameters(service, env).items():
            used.setdefault(key, value)
    for key, variable in ENVIRONMENT.items():
        if key not in used and env.get(variable):
            used[key] = env[variable]
    return used
