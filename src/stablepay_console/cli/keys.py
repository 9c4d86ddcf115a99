"""`stablepay-console keys [--json]`: every binding id, its screen, its default keys and the keys in use now.

The keys in use come from keymap.toml in the config folder; a keymap with a problem is not used (the problem is
said on standard error and the exit code is 1), as the console itself does not use it.
"""

from __future__ import annotations

import argparse

from stablepay_console.cli.arguments import say


def run_keys(args: argparse.Namespace) -> int:
    from stablepay_console.cli.output import Output
    from stablepay_console.storage.keymap_file import KeymapFileError, read_keymap
    from stablepay_console.tui.app import ConsoleApp
    from stablepay_console.tui.keymap import catalogue, normalized, problems

    code = 0
    try:
        keymap = read_keymap() or {}
        wrong = problems(ConsoleApp, keymap) if keymap else []
    except KeymapFileError as exc:
        keymap, wrong = {}, [str(exc)]
    if wrong:
        from stablepay_console.cli.output import to_stderr

        to_stderr(f"stablepay-console: {say('keymap.toml is not used: ' + '; '.join(wrong) + '.')}")
        keymap, code = {}, 1
    rows = catalogue(ConsoleApp, normalized(keymap) if keymap else None)
    out = Output("json" if args.json else "text")
    if args.json:
        out.json([{"id": default.binding_id, "screen": screen, "default": list(default.keys),
                   "current": list(current.keys), "does": current.what} for screen, default, current in rows])
        return code
    out.table(("id", "screen", "default", "current", "does"),
              [(default.binding_id, screen, ",".join(default.keys), ",".join(current.keys), current.what)
               for screen, default, current in rows])
    return code
