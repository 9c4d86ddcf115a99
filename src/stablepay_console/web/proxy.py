"""Only the signing-in proxy speaks for a user: what makes a request carrying the trusted header the proxy's.

On a shared server any local account can open a TCP connection to 127.0.0.1 and send `X-Forwarded-User:
carol`. Two things tell the proxy apart, and either or both may be asked for:

- `--socket PATH`: the server listens on a Unix socket of mode 0660 instead of a port, in a folder only
  the proxy's group can reach; then only a connection through that socket is the proxy's;
- `--trusted-header-secret-file FILE`: a secret the proxy sends in `X-Stablepay-Proxy-Secret` with every
  request, read from a file only its owner may read (0600; never from the command line, never logged),
  compared in constant time.

Without a socket, the connection must also come from a `--trusted-proxy` address, as before.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import ipaddress
import os
import socket
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from stablepay_console.api.sanitize import clean

if TYPE_CHECKING:
    from aiohttp import web

    from stablepay_console.web.settings import Network, WebSettings

SECRET_HEADER = "X-Stablepay-Proxy-Secret"
SOCKET_MODE = 0o660
"""The server's account and its group (the proxy's, by the folder's set-group-ID bit): no one else."""
MIN_SECRET, MAX_SECRET = 16, 256
SECRET_FORBIDDEN = 0o077
"""Any bit for the group or for others: only the file's owner (the server's account) may read it (0600, 0400)."""


def read_secret(path: str) -> str:
    """The proxy's secret from `path`: visible ASCII, MIN_SECRET to MAX_SECRET characters, in a file only its owner
    may read (no bit for its group or for others). Raises ValueError saying what is wrong; the message never holds
    the secret."""
    where = clean(path, 200)
    try:
        # Opened without waiting (a FIFO's open would block until a writer came) and looked at before any read.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        with open(fd, "rb", closefd=True) as f:
            mode = os.fstat(f.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise ValueError(f"the proxy's secret file {where} is not a regular file")
            data = f.read(MAX_SECRET + 64)
    except OSError as exc:
        raise ValueError(f"the proxy's secret file {where} cannot be read: {clean(exc.strerror)}") from None
    if mode & SECRET_FORBIDDEN:
        others = "every account on this server" if mode & 0o007 else "the accounts of its group"
        raise ValueError(f"the proxy's secret file {where} has mode {stat.S_IMODE(mode):04o}: {others} may "
                         f"use it; make it the server's alone (chmod 600 {where})")
    try:
        secret = data.decode("ascii").strip()
    except UnicodeDecodeError:
        secret = ""
    if not (MIN_SECRET <= len(secret) <= MAX_SECRET) or not all("!" <= ch <= "~" for ch in secret):
        raise ValueError(f"the proxy's secret file {where} must hold one line of {MIN_SECRET} to {MAX_SECRET} "
                         "visible ASCII characters (for instance: openssl rand -hex 32)")
    return secret


def secret_matches(given: str | None, secret: str) -> bool:
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), secret.encode("ascii"))


def through_socket(request: web.Request) -> bool:
    """Whether the request came over a Unix socket (the server's own, the only one it listens on)."""
    transport = request.transport
    sock = transport.get_extra_info("socket") if transport is not None else None
    return sock is not None and sock.family == socket.AF_UNIX


def peer(request: web.Request) -> str:
    """Who connected, for the access log: the socket, or the address."""
    return "socket" if through_socket(request) else clean(request.remote or "?", 60)


def from_trusted(remote: str | None, networks: tuple[Network, ...]) -> bool:
    if not remote:
        return False
    try:
        address = ipaddress.ip_address(remote.split("%", 1)[0])
    except ValueError:
        return False
    return any(address in network for network in networks)


def proxy_refusal(request: web.Request, settings: WebSettings) -> str | None:
    """None when a request carrying the trusted header is the proxy's; else why it is not, in words."""
    if settings.socket_path:
        if not through_socket(request):
            return "the sign-in header counts only through the console's socket"
    elif not from_trusted(request.remote, settings.trusted_proxies):
        return "the sign-in header came from an address that is not a trusted proxy"
    if settings.proxy_secret and not secret_matches(request.headers.get(SECRET_HEADER), settings.proxy_secret):
        return (f"the sign-in header came without the proxy's secret ({SECRET_HEADER}): only the sign-in proxy "
                "may name who you are")
    return None


def unix_socket(path: str) -> socket.socket:
    """A listening-ready Unix socket at `path`, created with mode 0660 (never wider, whatever the umask).

    A socket left at `path` by an earlier run is replaced if nothing answers on it; any other file there,
    or a live server, is refused. Raises ValueError saying why."""
    where = clean(path, 200)
    folder = Path(path).parent
    if not folder.is_dir():
        raise ValueError(f"--socket {where}: the folder {clean(str(folder), 200)} does not exist")
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise ValueError(f"--socket {where}: a file that is not a socket is there already")
        if _answers(path):
            raise ValueError(f"--socket {where}: another server listens on it")
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o777 & ~SOCKET_MODE)
    try:
        sock.bind(path)
    except OSError as exc:
        sock.close()
        why = "the path is too long for a socket" if exc.errno in (errno.ENAMETOOLONG, None) else exc.strerror
        raise ValueError(f"--socket {where} cannot be made: {clean(why)}") from None
    finally:
        os.umask(old)
    os.chmod(path, SOCKET_MODE)
    return sock


def _answers(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def remove_socket(path: str) -> None:
    with contextlib.suppress(OSError):
        if stat.S_ISSOCK(os.lstat(path).st_mode):
            os.unlink(path)
