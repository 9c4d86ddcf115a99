"""What libpq will really use for a connection: the given parameters, then a service file's, then the environment's.

libpq fills a parameter that the connection string does not give from the service named by `service=`
(or `PGSERVICE`), looked up in `PGSERVICEFILE` (default `~/.pg_service.conf`) and then in
`PGSYSCONFDIR/pg_service.conf`; what is still missing comes from its environment variable (`PGHOST`,
`PGSSLMODE`, …). Rules about where a connection goes (TLS off loopback) are decided on this view, never
on the text of a URL alone.
"""

from __future__ import annotations

import configparser
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


def service_parameters(name: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The parameters of service `name` from the first service file that defines it ({} when none does)."""
    for path in _service_files(environ):
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            with open(path, encoding="utf-8") as f:
                parser.read_file(f)
        except (OSError, UnicodeDecodeError, configparser.Error):
            continue
        if parser.has_section(name):
            return {key.lower(): value.strip() for key, value in parser.items(name)}
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
