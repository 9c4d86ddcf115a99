"""`profile list|add|edit|remove|use|status` as the shell types them (their arguments and help): one function a
command, named in `cli.commands`'s table. `cli.profile_runs` and `cli.profile_status` run them.

Import-light: nothing but argparse and the small argument checks.
"""

from __future__ import annotations

from stablepay_console.cli import arguments as a
from stablepay_console.cli.parsers import add_format

PROFILE = "profiles and their keys (keys go to the OS keyring)"
"""The `profile` group's help."""


def add_list(sub: a.Commands, common: a.Parser) -> a.Parser:
    return sub.add_parser("list", help="list profiles, their keys (masked) and key ages")


def add_add(sub: a.Commands, common: a.Parser) -> a.Parser:
    add = sub.add_parser(
        "add",
        help="add a profile; the key is read from a hidden prompt, or from standard input when it is not a terminal",
        description="Add a profile. No option takes the key (command lines are visible to other users): "
        "it is typed into a hidden prompt, or read from standard input when that is not a terminal.",
    )
    add.add_argument("name", help="profile name (letters, digits, '_', '.', '-')")
    add.add_argument("--environment", required=True, choices=["sandbox", "production"])
    add.add_argument("--base-url", required=True, help="the environment's base URL (https://…)")
    add.add_argument("--default", action="store_true", help="start the console on this profile")
    add.add_argument("--no-key", action="store_true", help="keep no key (use STABLEPAY_API_KEY instead)")
    add.add_argument("--key-created", metavar="YYYY-MM-DD",
                     help="when the key was created in the dashboard (default: a JWT key's own date, else today)")
    add.add_argument("--no-verify", action="store_true",
                     help="save the key without checking it with /ping against the base URL first")
    return add


def add_edit(sub: a.Commands, common: a.Parser) -> a.Parser:
    edit = sub.add_parser(
        "edit", help="change a profile's environment, base URL, key (--new-key) or the key's creation date",
        description="Change a profile. --new-key reads the new key from a hidden prompt or standard input.",
    )
    edit.add_argument("name")
    edit.add_argument("--environment", choices=["sandbox", "production"])
    edit.add_argument("--base-url", help="the environment's base URL (https://…)")
    edit.add_argument("--new-key", action="store_true", help="replace the key (read from a prompt or standard input)")
    edit.add_argument("--key-created", metavar="YYYY-MM-DD", help="when the key was created in the dashboard")
    edit.add_argument("--no-verify", action="store_true", help="save a new key without checking it with /ping")
    return edit


def add_remove(sub: a.Commands, common: a.Parser) -> a.Parser:
    remove = sub.add_parser("remove", help="remove a profile and forget its keys")
    remove.add_argument("name")
    return remove


def add_use(sub: a.Commands, common: a.Parser) -> a.Parser:
    use = sub.add_parser("use", help="make a profile the default one")
    use.add_argument("name")
    return use


def add_status(sub: a.Commands, common: a.Parser) -> a.Parser:
    status = sub.add_parser(
        "status", parents=[common], help="every profile: environment, key age, rotation due, ping",
        epilog="exit codes: 0 every key fine; 3 a key is due for rotation; 4 a key is past 12 months or fails "
        "its ping; 1 and 2 as usual.",
    )
    add_format(status)
    return status
