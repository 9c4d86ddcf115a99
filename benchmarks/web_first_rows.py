"""The console in a browser against the console in a terminal: time to the first inbox rows, and SIGTERM.

`python benchmarks/web_first_rows.py [--runs N]` prints one table. In the browser (Debian's chromium,
headless, driven by Playwright, 1280x800) the clock starts when the sign-in URL is opened and stops when
a first-page user ID arrives in the terminal's WebSocket frames: the token exchanged for the cookie, the
page and its script loaded, the WebSocket opened and the console process started on the server. In the
terminal (a 120x40 pty, `cold_start.py`'s way) it starts when the process is spawned. Both are repeat
starts (the inbox's first page comes from the record), interleaved so load hits both alike.

Both are timed twice, with the two sides placed differently. "shared": the browser, the terminal console
and the web server on the same processors, as when one machine serves its own browser; on a machine with
two processors the browser's page load and the console it waits for compete for them. "apart": the user's
side (the browser, or the terminal console) on one processor and the web server with its consoles on
another, as a user's machine and a team's server are.

Then the memory of the browser's consoles on the server, one open and eight at once (each console is a process of
its own: resident and proportional set sizes from /proc, PSS sharing the pages the processes share), and
the server's own, and of its spare (a console process started ahead, imports done, waiting for the next tab).
Last, the time from SIGTERM to the web server's exit with two consoles open. Figures to read, not assertions.

Before each timed start, terminal or browser, the run waits until the web server and every process it started
have used no processor time for a moment: the spare the server starts after each browser start must not run
during the terminal's next start (nor a closing console during either).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cold_start import console_argv, console_markers, time_to_texts
from common import Row, bench_env, median, ms, render, write_readme

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


MANY = 8
"""Consoles open at once for the memory figure."""
MEMORY_TARGET_MB = 80.0


def start_server(env: dict[str, str], folder: Path,
                 cpus: set[int] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """The web server (on `cpus`, it and every console it starts, when given) and its sign-in URL."""
    port = free_port()
    out = folder / "web.out"
    argv = pinned(cpus, [*console_argv(), "web", "--port", str(port), "--max-sessions-per-user", str(MANY)])
    with open(out, "wb") as stdout:
        process = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 30
    while not out.read_text().strip():
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    return process, out.read_text().strip()


def cpu_ticks(pid: int) -> int:
    """User and system time of one process, in clock ticks (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def server_tree(server_pid: int) -> list[int]:
    """The server and the processes it started (consoles and spare)."""
    children = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) == server_pid:
                children.append(int(pid))
        except OSError:
            continue
    return [server_pid, *children]


def quiet(server_pid: int, still: float = 0.3, timeout: float = 20.0) -> None:
    """Wait until the server and its processes have used no processor time for `still` seconds (a spare started,
    consoles ended)."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        tree = server_tree(server_pid)
        now = (tuple(tree), sum(cpu_ticks(pid) for pid in tree))
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still:
            return
        time.sleep(0.05)


def scheduled(pid: int) -> tuple[float, float]:
    """Seconds a process's threads have run on a processor, and waited for one while runnable (summed over its
    threads), from /proc/PID/task/*/schedstat."""
    ran = waited = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        on_cpu, on_queue, _ = Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()
        ran, waited = ran + int(on_cpu), waited + int(on_queue)
    return ran / 1e9, waited / 1e9


def spare_of(folder: str, seconds: float = 15.0) -> int | None:
    """The pid of the server's spare console, once there is one."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _console_of(int(pid), folder,
                                                                                            "stablepay-spare")]
        if found:
            return found[0]
        time.sleep(0.05)
    return None


def browser_first_rows(browser, url: str, markers: list[str], timeout: float = 30.0,  # type: ignore[no-untyped-def]
                       keep: list[object] | None = None, at_rows: Callable[[], None] | None = None) -> float:
    """Seconds from opening `url` to a marker in the terminal's frames; `keep`: the tab stays open (its
    browser context is appended there, to close later); `at_rows` is called as the marker is seen."""
    wanted = [m.encode() for m in markers]
    received: list[bytes] = []
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda f: received.append(f if isinstance(f, bytes) else b"")))
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    try:
        while True:
            joined = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", b"".join(received))
            if any(w in joined for w in wanted):
                took = time.perf_counter() - start
                if at_rows is not None:
                    at_rows()
                return took
            if time.perf_counter() - start > timeout:
                raise TimeoutError("no inbox rows in the browser")
            page.wait_for_timeout(5)
    finally:
        if keep is None:
            context.close()
        else:
            keep.append(context)


def memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process, in kB, from /proc/PID/smaps_rollup."""
    found = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Pss"):
            found[name] = int(rest.split()[0])
    return found["Rss"], found["Pss"]


def consoles_memory(folder: str, name: str = "stablepay-web") -> list[tuple[int, int]]:
    """(RSS, PSS) of each browser console this run's server has open (`stablepay-spare`: its spare)."""
    return [memory_kb(int(pid)) for pid in os.listdir("/proc")
            if pid.isdigit() and _console_of(int(pid), folder, name)]


def settled_memory(folder: str, count: int, seconds: float = 3.0) -> list[tuple[int, int]]:
    """Once `count` consoles are open and their inbox drawn: their memory after a few quiet seconds (a
    console's start-up work ends a moment after its first rows)."""
    deadline = time.monotonic() + 30
    while len(consoles_memory(folder)) != count and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(seconds)
    return consoles_memory(folder)


def no_consoles_left(folder: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while consoles_memory(folder) and time.monotonic() < deadline:
        time.sleep(0.1)


def mb(kb: float) -> str:
    return f"{kb / 1024:.1f} MB"


def console_rows(placement: str, console_time: list[tuple[float, float]]) -> list[Row]:
    """Where the browser console's time goes: it needs little processor time after its hand-over; on a busy machine
    it mostly waits for a processor (with the browser on the same processors, for the browser)."""
    if not console_time:
        return []
    return [Row(f"{placement}: browser console, processor time from hand-over to first rows (median)",
                ms(median([ran for ran, _ in console_time])), "-", "-", "-", None,
                note=f"its threads meanwhile waited {ms(median([waited for _, waited in console_time]))} for a "
                "processor (median, summed over threads; /proc schedstat)")]


def memory_rows(one: list[tuple[int, int]], many: list[tuple[int, int]], server_kb: tuple[int, int],
                spare: list[tuple[int, int]]) -> list[Row]:
    rss_one, pss_one = one[0]
    rss_many, pss_many = sum(r for r, _ in many), sum(p for _, p in many)
    each = pss_many / len(many)
    return [
        Row("browser console: memory of one (RSS)", mb(rss_one), "-", "-", f"< {MEMORY_TARGET_MB:.0f} MB",
            rss_one / 1024 < MEMORY_TARGET_MB, note=f"PSS {mb(pss_one)}; one console process, inbox shown"),
        Row(f"browser consoles: memory of {len(many)} at once (PSS)", mb(pss_many), "-", "-",
            f"< {MEMORY_TARGET_MB * len(many):.0f} MB", each / 1024 < MEMORY_TARGET_MB,
            note=f"{mb(each)} each (PSS counts shared pages once); RSS added up {mb(rss_many)}"),
        Row("web server itself: memory (RSS)", mb(server_kb[0]), "-", "-", "-", None,
            note=f"PSS {mb(server_kb[1])}, with {len(many)} consoles open"),
        Row("web server's spare console: memory (RSS)", mb(spare[0][0]) if spare else "none", "-", "-", "-", None,
            note=f"PSS {mb(spare[0][1])}; started ahead, imports done, nobody's" if spare else "no spare running"),
    ]


def pinned(cpus: set[int] | None, argv: list[str]) -> list[str]:
    """`argv` run on those processors (`taskset`; what it starts inherits them), or anywhere."""
    return ["taskset", "-c", ",".join(map(str, sorted(cpus))), *argv] if cpus else argv


@dataclass(frozen=True)
class Placement:
    """Where the two sides run: the user's (the browser, or the terminal console) and the server's (the web server and
    every console it starts), each on a set of processors, or anywhere (None). The benchmark itself, the instrument,
    runs anywhere."""

    name: str
    user: set[int] | None = None
    server: set[int] | None = None

    def browser(self, folder: Path) -> str:
        """The browser to launch: chromium itself, or a script that starts it on the user's processors (every
        process it starts inherits them)."""
        if not self.user:
            return CHROMIUM
        script = folder / "chromium-placed"
        script.write_text(f'#!/bin/sh\nexec {shlex.join(pinned(self.user, [CHROMIUM]))} "$@"\n')
        script.chmod(0o700)
        return str(script)


def placements() -> list[Placement]:
    """"shared": the browser, the terminal console and the web server on the same processors, as on a machine that
    serves its own browser. "apart": the user's side on one processor and the server's on another, as a user's
    machine and a team's server are; a machine with one processor (or no `taskset`) has only the first."""
    cpus = sorted(os.sched_getaffinity(0))
    found = [Placement("shared")]
    if len(cpus) >= 2 and shutil.which("taskset"):
        found.append(Placement("apart", {cpus[0]}, {cpus[1]}))
    return found


@dataclass
class Timings:
    terminal: list[float] = field(default_factory=list)
    web: list[float] = field(default_factory=list)
    console_time: list[tuple[float, float]] = field(default_factory=list)


def time_first_rows(browser, server: subprocess.Popen[bytes], url: str, env: dict[str, str],  # type: ignore[no-untyped-def]
                    tmp: str, markers: list[str], runs: int, placement: Placement) -> Timings:
    """`runs` terminal starts and browser starts, interleaved, each after the server has gone quiet."""
    terminal = pinned(placement.user, console_argv())
    time_to_texts(terminal, [markers], env, linger=1.5)  # warm caches, keep page 1 in the record
    browser_first_rows(browser, url, markers)
    found = Timings()
    for _ in range(runs):
        quiet(server.pid)
        found.terminal.append(time_to_texts(terminal, [markers], env)[0])
        quiet(server.pid)
        # The spare becomes the page's console: its processor time from the hand-over to the first rows.
        spare_pid = spare_of(tmp)
        before = scheduled(spare_pid) if spare_pid is not None else None
        after: list[tuple[float, float]] = []
        at_rows = None
        if spare_pid is not None:
            at_rows = lambda pid=spare_pid, into=after: into.append(scheduled(pid))  # noqa: E731
        found.web.append(browser_first_rows(browser, url, markers, at_rows=at_rows))
        if before is not None and after:
            found.console_time.append((after[0][0] - before[0], after[0][1] - before[1]))
    return found


def measure(runs: int) -> list[Row]:
    from playwright.sync_api import sync_playwright

    markers = console_markers()
    rows: list[Row] = []
    for placement in placements():
        with tempfile.TemporaryDirectory(prefix="stablepay-bench-web-") as tmp, sync_playwright() as playwright:
            env = bench_env(STABLEPAY_CONFIG_DIR=tmp, TERM="xterm-256color", COLUMNS="120", LINES="40")
            browser = playwright.chromium.launch(executable_path=placement.browser(Path(tmp)), args=CHROMIUM_ARGS)
            server, url = start_server(env, Path(tmp), placement.server)
            try:
                timings = time_first_rows(browser, server, url, env, tmp, markers, runs, placement)
                rows += timing_rows(placement.name, timings, runs)
                if placement.name == "shared":  # memory and the stop: where the server runs does not change them
                    rows += memory_and_stop(browser, server, url, tmp, markers)
            finally:
                if server.poll() is None:
                    server.kill()
                browser.close()
    return rows


def timing_rows(placement: str, timings: Timings, runs: int) -> list[Row]:
    terminal, web = timings.terminal, timings.web
    how = f"median of {runs} interleaved repeat starts"
    where = ("the browser, the terminal console and the web server on the same processors" if placement == "shared"
             else "the browser or the terminal console on one processor, the web server and its consoles on "
             "another (a user's machine and a team's server)")
    return [
        Row(f"{placement}: terminal, first inbox rows (median)", ms(median(terminal)), "-", "-", "-", None,
            note=f"120x40 pty, process spawn to a first-page user ID; {how}; {ms(min(terminal))} to "
            f"{ms(max(terminal))}; {where}"),
        Row(f"{placement}: browser, first inbox rows (median)", ms(median(web)), ms(median(terminal)),
            f"{median(web) / median(terminal):.2f}x", "< 1.3x", median(web) / median(terminal) < 1.3,
            note=f"chromium 1280x800, sign-in URL opened to a first-page user ID in the frames; {how}; "
            f"{ms(min(web))} to {ms(max(web))}"),
        *console_rows(placement, timings.console_time),
    ]


def memory_and_stop(browser, server: subprocess.Popen[bytes], url: str, tmp: str,  # type: ignore[no-untyped-def]
                    markers: list[str]) -> list[Row]:
    """The memory of one console open, then MANY at once (once the timing runs' consoles have ended); then the time
    from SIGTERM to the server's exit with two consoles open."""
    no_consoles_left(tmp)
    tabs: list[object] = []
    browser_first_rows(browser, url, markers, keep=tabs)
    one = settled_memory(tmp, 1)
    for _ in range(MANY - 1):
        browser_first_rows(browser, url, markers, timeout=60.0, keep=tabs)
    many = settled_memory(tmp, MANY)
    server_kb = memory_kb(server.pid)
    quiet(server.pid)
    spare = consoles_memory(tmp, "stablepay-spare")
    for context in tabs:
        context.close()  # type: ignore[attr-defined]
    no_consoles_left(tmp)
    tabs = []
    for _ in range(2):
        browser_first_rows(browser, url, markers, keep=tabs)
    started = time.perf_counter()
    server.send_signal(signal.SIGTERM)
    server.wait(30)
    stopped = time.perf_counter() - started
    left = sum(1 for pid in os.listdir("/proc") for name in ("stablepay-web", "stablepay-spare")
               if pid.isdigit() and _console_of(int(pid), tmp, name))
    return [
        *memory_rows(one, many, server_kb, spare),
        Row("web server: SIGTERM to exit, 2 consoles open", ms(stopped), "-", "-", "< 5 s", stopped < 5),
        Row("web server: consoles left after SIGTERM", str(left), "-", "-", "0", left == 0),
    ]


def _console_of(pid: int, folder: str, name: str) -> bool:
    """A console process of this run's server: it names itself `stablepay-web` once handed to a tab, and
    `stablepay-spare` while it waits for one."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return False
    return (state != "Z" and comm == name and f"STABLEPAY_CONFIG_DIR={folder}".encode() in environ
            and b"STABLEPAY_WEB_HAND_OVER=1" in environ)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args(argv)
    table = render(measure(args.runs))
    print(table)
    if args.write_readme:
        write_readme("web", table, "python benchmarks/web_first_rows.py " + " ".join(argv or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
