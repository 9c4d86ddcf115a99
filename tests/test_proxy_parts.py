"""What makes a request with the trusted header the signing-in proxy's (web/proxy.py), part by part in the test
process: the secret read only from a file its owner alone may read and never shown; the secret compared whole; a
trusted proxy's address; the server's socket made 0660 whatever the umask, and never over a file or a live server."""

from __future__ import annotations

import ipaddress
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from stablepay_console.web.proxy import from_trusted, read_secret, remove_socket, secret_matches, unix_socket

SECRET = "0123456789abcdef0123456789abcdef"
BACKSTOP = 30  # seconds: a refusal comes at once; this only ends a reader left waiting


def secret_file(tmp_path: Path, text: str | bytes, mode: int = 0o600) -> Path:
    path = tmp_path / "proxy-secret"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    path.chmod(mode)
    return path


def refusal(path: Path | str) -> str:
    with pytest.raises(ValueError) as refused:
        read_secret(str(path))
    return str(refused.value)


def test_the_secret_is_one_line_of_visible_ascii_in_a_file_its_owner_alone_may_read(tmp_path: Path) -> None:
    assert read_secret(str(secret_file(tmp_path, f" {SECRET}\n"))) == SECRET
    assert read_secret(str(secret_file(tmp_path, SECRET, 0o400))) == SECRET
    assert read_secret(str(secret_file(tmp_path, "x" * 16))) == "x" * 16
    assert read_secret(str(secret_file(tmp_path, "!" * 256))) == "!" * 256
    assert read_secret(str(secret_file(tmp_path, "~" * 20))) == "~" * 20


@pytest.mark.parametrize("text", ["x" * 15, "x" * 257, "a b" * 10, "é" * 20, b"\xff" * 20, "x" * 16 + "\x7f",
                                  "x" * 8 + "\x01" + "x" * 8, ""])
def test_a_secret_that_is_not_one_line_of_16_to_256_visible_characters_is_refused_unshown(
    tmp_path: Path, text: str | bytes,
) -> None:
    path = secret_file(tmp_path, text)
    said = refusal(path)
    assert said == (f"the proxy's secret file {path} must hold one line of 16 to 256 visible ASCII characters (for "
                    "instance: openssl rand -hex 32)")


def test_a_secret_file_others_may_read_is_refused_saying_who(tmp_path: Path) -> None:
    path = secret_file(tmp_path, SECRET, 0o640)
    assert refusal(path) == (f"the proxy's secret file {path} has mode 0640: the accounts of its group may use it; "
                             f"make it the server's alone (chmod 600 {path})")
    path.chmod(0o604)
    assert refusal(path) == (f"the proxy's secret file {path} has mode 0604: every account on this server may use "
                             f"it; make it the server's alone (chmod 600 {path})")
    path.chmod(0o610)
    assert "the accounts of its group" in refusal(path)
    path.chmod(0o601)
    assert "every account on this server" in refusal(path)
    assert SECRET not in refusal(path)


def test_a_secret_file_that_is_not_there_or_not_a_file_is_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path / "none") == (f"the proxy's secret file {tmp_path / 'none'} cannot be read: No such file "
                                          "or directory")
    assert refusal("/dev/null") == "the proxy's secret file /dev/null is not a regular file"


def test_a_secret_path_that_is_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    """Opening a FIFO to read waits for a writer: the server's start would hang on it. It is refused as not a file."""
    fifo = tmp_path / "proxy-secret"
    os.mkfifo(fifo, 0o600)
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(refusal(fifo)), daemon=True)
    reader.start()
    reader.join(BACKSTOP)
    waited = reader.is_alive()
    if waited:  # still blocked in open(): let it go before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(BACKSTOP)
    assert not waited, "the secret file's open waited for a writer"
    assert found == [f"the proxy's secret file {fifo} is not a regular file"]


def test_reading_the_secret_leaves_no_file_open(tmp_path: Path) -> None:
    path = secret_file(tmp_path, SECRET)
    before = set(os.listdir("/proc/self/fd"))
    for _ in range(3):
        assert read_secret(str(path)) == SECRET
    refusal(tmp_path / "none")
    assert set(os.listdir("/proc/self/fd")) == before


def test_the_secret_is_compared_whole() -> None:
    assert secret_matches(SECRET, SECRET)
    assert not secret_matches(None, SECRET) and not secret_matches("", SECRET)
    assert not secret_matches(SECRET[:-1], SECRET) and not secret_matches(SECRET + "0", SECRET)
    assert not secret_matches("é" * 32, SECRET)


def test_a_trusted_proxy_connects_from_one_of_the_trusted_networks() -> None:
    networks = (ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("::1"))
    assert from_trusted("10.1.2.3", networks) and from_trusted("::1", networks) and from_trusted("::1%lo", networks)
    assert not from_trusted("11.0.0.1", networks) and not from_trusted("127.0.0.1", networks)
    assert not from_trusted(None, networks) and not from_trusted("", networks) and not from_trusted("x", networks)
    assert not from_trusted("10.1.2.3", ())


def test_the_servers_socket_is_0660_whatever_the_umask_and_replaces_only_a_dead_socket(tmp_path: Path) -> None:
    path = tmp_path / "console.sock"
    old = os.umask(0)
    try:
        sock = unix_socket(str(path))
    finally:
        os.umask(old)
    assert stat.S_ISSOCK(os.lstat(path).st_mode) and stat.S_IMODE(os.lstat(path).st_mode) == 0o660
    sock.listen()
    with pytest.raises(ValueError) as refused:
        unix_socket(str(path))
    assert str(refused.value) == f"--socket {path}: another server listens on it"
    sock.close()  # a socket left by an earlier run: nothing answers on it
    again = unix_socket(str(path))
    again.close()
    remove_socket(str(path))
    assert not path.exists()


def test_a_socket_is_never_made_over_a_file_nor_in_a_missing_folder(tmp_path: Path) -> None:
    path = tmp_path / "console.sock"
    path.write_text("not a socket", encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        unix_socket(str(path))
    assert str(refused.value) == f"--socket {path}: a file that is not a socket is there already"
    remove_socket(str(path))
    assert path.read_text(encoding="utf-8") == "not a socket", "only a socket is removed"
    missing = tmp_path / "none" / "console.sock"
    with pytest.raises(ValueError) as refused:
        unix_socket(str(missing))
    assert str(refused.value) == f"--socket {missing}: the folder {tmp_path / 'none'} does not exist"
    long = tmp_path / ("s" * 120)
    with pytest.raises(ValueError) as refused:
        unix_socket(str(long))
    assert str(refused.value) == f"--socket {long} cannot be made: the path is too long for a socket"
    remove_socket(str(tmp_path / "nothing-there"))


def test_a_socket_path_is_shown_cleaned(tmp_path: Path) -> None:
    odd = tmp_path / "a\x1bb" / "console.sock"
    with pytest.raises(ValueError) as refused:
        unix_socket(str(odd))
    assert "\x1b" not in str(refused.value) and "a\\x1bb" in str(refused.value)
    assert socket.AF_UNIX  # the platform has Unix sockets


def test_a_zoned_address_is_the_address_before_its_first_percent_sign() -> None:
    networks = (ipaddress.ip_network("fe80::/10"),)
    assert from_trusted("fe80::1%eth0", networks) and from_trusted("fe80::1%eth0%x", networks)


async def test_who_connected_and_whether_the_header_is_the_proxys_over_a_socket_and_over_tcp(tmp_path: Path) -> None:
    """A real aiohttp server on the console's socket and on a loopback port, answering what the proxy checks say."""
    import dataclasses

    import aiohttp
    from aiohttp import web

    from stablepay_console.web.proxy import SECRET_HEADER, peer, proxy_refusal
    from stablepay_console.web.settings import WebSettings

    path = tmp_path / "console.sock"
    on_socket = WebSettings(trusted_header="X-User", socket_path=str(path), proxy_secret=SECRET)
    on_port = WebSettings(trusted_header="X-User", trusted_proxies=(ipaddress.ip_network("127.0.0.1"),))
    chosen = {"settings": on_socket}

    async def answer(request: web.Request) -> web.Response:
        return web.Response(text=f"{peer(request)}|{proxy_refusal(request, chosen['settings'])}")

    app = web.Application()
    app.router.add_get("/", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    sock = unix_socket(str(path))
    await web.SockSite(runner, sock).start()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[1][1]
    try:
        async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(path))) as through:
            async with through.get("http://console/", headers={SECRET_HEADER: SECRET}) as got:
                assert await got.text() == "socket|None"
            async with through.get("http://console/", headers={SECRET_HEADER: SECRET[:-1] + "x"}) as got:
                assert await got.text() == ("socket|the sign-in header came without the proxy's secret "
                                            f"({SECRET_HEADER}): only the sign-in proxy may name who you are")
        async with aiohttp.ClientSession() as direct:
            async with direct.get(f"http://127.0.0.1:{port}/", headers={SECRET_HEADER: SECRET}) as got:
                assert await got.text() == "127.0.0.1|the sign-in header counts only through the console's socket"
            chosen["settings"] = on_port
            async with direct.get(f"http://127.0.0.1:{port}/") as got:
                assert await got.text() == "127.0.0.1|None"
            chosen["settings"] = dataclasses.replace(on_port, trusted_proxies=(ipaddress.ip_network("10.0.0.0/8"),))
            async with direct.get(f"http://127.0.0.1:{port}/") as got:
                assert await got.text() == ("127.0.0.1|the sign-in header came from an address that is not a "
                                            "trusted proxy")
    finally:
        await runner.cleanup()


def test_a_long_path_is_quoted_cut_to_200_characters(tmp_path: Path) -> None:
    missing = str(tmp_path / ("d" * 120) / ("f" * 120))
    assert refusal(missing) == f"the proxy's secret file {missing[:199]}… cannot be read: No such file or directory"
    folder = str(tmp_path / ("d" * 120) / ("e" * 120))
    path = folder + "/console.sock"
    with pytest.raises(ValueError) as refused:
        unix_socket(path)
    assert str(refused.value) == f"--socket {path[:199]}…: the folder {folder[:199]}… does not exist"
