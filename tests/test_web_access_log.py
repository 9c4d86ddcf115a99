"""The web server's access log holds one line per event, whatever a request's path or headers hold: a
decoded `%0a` cannot forge a line, a `%1b[` cannot put an escape sequence on the operator's terminal, and
the token is never written."""

from __future__ import annotations

import logging
import re
import socket
from pathlib import Path

import pytest

from tests.web_harness import WebServer, wait_until, web_server

STAMPED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \S")
"""How each line of the log begins: its time, then what happened."""
FORGED = "/x%0a2026-01-01%20session%20start%20user=carol"
COLOURED = "/y%1b[31mred%1b[0m%0d%e2%80%ae"


def raw_get(server: WebServer, target: str, headers: str = "") -> bytes:
    """Bytes on the wire, as any client may send them (no library tidies the path)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n".encode())
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def test_a_forged_line_and_an_escape_sequence_stay_on_their_own_line(isolated_config: Path) -> None:
    with web_server(isolated_config) as server:
        assert raw_get(server, f"{FORGED}?token={server.token}").startswith(b"HTTP/1.1 401")
        assert raw_get(server, COLOURED).startswith(b"HTTP/1.1 401")
        assert wait_until(lambda: server.log().count("refused GET") == 2, 15), server.log()
        log = server.log_path.read_bytes().decode()
        lines = log.splitlines()
        assert all(STAMPED.match(line) for line in lines), log
        forged = [line for line in lines if "/x" in line]
        assert len(forged) == 1, log
        assert "refused GET /x\\n2026-01-01 session start user=carol from=127.0.0.1 status=401" in forged[0]
        assert not any(line.startswith("2026-01-01") for line in lines)
        coloured = [line for line in lines if "/y" in line]
        assert len(coloured) == 1 and "/y\\x1b[31mred\\x1b[0m\\r\\u202e from=" in coloured[0], log
        assert not any(ch in log for ch in "\x1b\r\u202e")
        assert server.token not in log


def test_a_request_the_server_cannot_read_is_one_line_without_the_token(isolated_config: Path) -> None:
    """aiohttp's own error for a request it cannot parse quotes the request in a traceback: here it is one line."""
    with web_server(isolated_config) as server:
        too_long = f"/?token={server.token}&pad={'a' * 9000}"
        assert raw_get(server, too_long).startswith(b"HTTP/1.0 400")
        assert raw_get(server, "/", "X-Forwarded-User: al\x1b[31mice\r\n").startswith(b"HTTP/1.0 400")
        assert wait_until(lambda: server.log().count("Error handling request") == 2, 15), server.log()
        log = server.log()
        assert all(STAMPED.match(line) for line in log.splitlines()), log  # one line each, no traceback
        assert "Traceback" not in log and "\x1b" not in log and "[31m" not in log
        assert server.token not in log and server.token[:16] not in log


def test_the_access_log_and_the_servers_other_loggers_write_one_stamped_escaped_line_on_standard_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """start_access_log in the test process: who writes through the handler, at which level, and how."""
    from stablepay_console.web.access_log import ACCESS, QUIETER, start_access_log

    names = [ACCESS, *QUIETER]
    kept = {name: (logging.getLogger(name).handlers[:], logging.getLogger(name).level,
                   logging.getLogger(name).propagate) for name in names}
    try:
        start_access_log()
        logging.getLogger(ACCESS).info("refused GET %s from=10.0.0.1 status=401", "/x\n2026-01-01 forged\x1b[31m")
        logging.getLogger(ACCESS).info("refused GET %s from=10.0.0.1 status=401", "/y")  # each act its line
        logging.getLogger(ACCESS).debug("not an access line")
        logging.getLogger("textual-serve").warning("a textual-serve warning")
        logging.getLogger("textual-serve").error("a textual-serve error")
        logging.getLogger("aiohttp.server").info("an aiohttp info")
        try:
            raise ConnectionResetError("peer reset, quoting GET /?token=secret")
        except ConnectionResetError:
            logging.getLogger("aiohttp.server").exception("Error handling request")
        logging.getLogger("asyncio").info("an asyncio info")
        logging.getLogger("stablepay_console.web.connections").warning("a connection warning")
        logging.getLogger("stablepay_console.web.connections").warning("a connection warning")  # trouble: once
        logging.getLogger("stablepay_console.web.connections").info("a connection info")
        assert all(not logging.getLogger(name).propagate for name in names)
    finally:
        for name, (handlers, level, propagate) in kept.items():
            logger = logging.getLogger(name)
            logger.handlers[:] = handlers
            logger.setLevel(level)
            logger.propagate = propagate
    lines = capsys.readouterr().err.splitlines()
    assert all(STAMPED.match(line) for line in lines), lines
    said = [line.split(" ", 1)[1] for line in lines]
    assert said == [
        "refused GET /x\\n2026-01-01 forged\\x1b[31m from=10.0.0.1 status=401",
        "refused GET /y from=10.0.0.1 status=401",
        "a textual-serve error",
        "Error handling request (ConnectionResetError)",
        "a connection warning",
    ]
