"""The keys of a screen as they work now: its own bindings with the user's keymap (keymap.toml) applied.

Every binding of the console has an id (`batch.reload`, `rfi.back`, `screen.inbox`…). The user's keymap maps ids
to keys; Textual applies it (`App.set_keymap`) wherever a binding with that id is in force. Here the same keymap
is applied to one node's own bindings, for the help (F1) and `stablepay-console keys`, and checked before it is
used: an id no screen has is named, and so is a key claimed by two ids on one screen (its own keys and the keys
that work everywhere).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode

if TYPE_CHECKING:
    from textual.app import App


@dataclass(frozen=True)
class KeyEntry:
    """One binding as it works now: its id, its keys (Textual's names), and what it does."""

    binding_id: str
    keys: tuple[str, ...]
    what: str
    description: str


def normalized(keymap: Mapping[str, str]) -> dict[str, str]:
    """Textual's long key names ("question_mark" for "?"), as `App.set_keymap` keeps them."""
    from textual.app import App

    return dict(App._normalize_keymap(dict(keymap)))


def entries(bindings: Iterable[Binding], keymap: Mapping[str, str] | None = None) -> list[KeyEntry]:
    """The bindings grouped by id (a binding without one by its action), in the order they are defined, with the
    keymap's keys in place of the defaults."""
    found: dict[str, tuple[list[str], Binding]] = {}
    for binding in bindings:
        name = binding.id or binding.action
        keys = [k.strip() for k in binding.key.split(",")]
        if binding.id and keymap and binding.id in keymap:
            keys = [k.strip() for k in keymap[binding.id].split(",")]
        held = found.setdefault(name, ([], binding))[0]
        held.extend(k for k in keys if k not in held)
    return [
        KeyEntry(name, tuple(keys), binding.tooltip or binding.description, binding.description)
        for name, (keys, binding) in found.items()
    ]


def own_bindings(node: DOMNode | type[DOMNode]) -> list[Binding]:
    """The bindings a node (or a node class) defines, its bases' included, Textual's own left out (Tab, the
    palette's key, copying selected text); not its children's (a table's cursor keys)."""
    from textual.app import App
    from textual.screen import ModalScreen, Screen

    textual_own = {_same(b) for base in (App, Screen, ModalScreen) for b in _bindings_of(base)}
    return [b for b in _bindings_of(node) if _same(b) not in textual_own]


def _same(binding: Binding) -> tuple[str, str, str | None]:
    return binding.key, binding.action, binding.id


def _bindings_of(node: DOMNode | type[DOMNode]) -> list[Binding]:
    bindings: BindingsMap = node._merge_bindings() if isinstance(node, type) else node._bindings
    seen: list[Binding] = []
    for found in bindings.key_to_bindings.values():
        seen.extend(b for b in found if b not in seen)
    return seen


def clashes(screen_keys: list[KeyEntry], everywhere: list[KeyEntry]) -> list[tuple[str, str, str]]:
    """(key, first id, second id) for each key two ids claim among a screen's keys and the keys of every screen."""
    owner: dict[str, str] = {}
    found = []
    for entry in [*screen_keys, *everywhere]:
        for key in entry.keys:
            other = owner.get(key)
            if other is not None and other != entry.binding_id:
                found.append((key, other, entry.binding_id))
            else:
                owner[key] = entry.binding_id
    return found


# --- every binding of the console, and the user's keymap checked against them --------------------------------------

EVERYWHERE = "everywhere"


def screens(app: type[DOMNode]) -> list[tuple[str, type[DOMNode]]]:
    """(name, class) of everything with keys: the app (keys that work everywhere), then each screen."""
    from stablepay_console.tui.modes import TOP_LEVEL
    from stablepay_console.tui.screens import SCREENS

    found: list[tuple[str, type[DOMNode]]] = [(EVERYWHERE, app)]
    found += [(entry.mode, SCREENS[entry.mode]()) for entry in TOP_LEVEL]
    from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
    from stablepay_console.tui.screens.rotation import RotationScreen

    return [*found, ("request detail", RfiDetailScreen), ("key rotation", RotationScreen)]


def catalogue(app: type[DOMNode], keymap: Mapping[str, str] | None = None) -> list[tuple[str, KeyEntry, KeyEntry]]:
    """(screen, default, current) for every binding of every screen, the app's first."""
    rows = []
    for name, cls in screens(app):
        bindings = own_bindings(cls)
        for default, current in zip(entries(bindings), entries(bindings, keymap), strict=True):
            rows.append((name, default, current))
    return rows


def problems(app: type[DOMNode], keymap: Mapping[str, str]) -> list[str]:
    """What is wrong with a keymap: ids no screen has, and keys it makes two ids claim on one screen."""
    keymap = normalized(keymap)
    listed = screens(app)
    known = {entry.binding_id for _, cls in listed for entry in entries(own_bindings(cls))}
    said = [f"no key has the id {binding_id!r} (stablepay-console keys lists them)"
            for binding_id in keymap if binding_id not in known]
    everywhere = entries(own_bindings(listed[0][1]), keymap)
    for name, cls in listed:
        own = entries(own_bindings(cls), keymap) if name != EVERYWHERE else []
        ids = {entry.binding_id for entry in own} if own else {entry.binding_id for entry in everywhere}
        where = "everywhere" if name == EVERYWHERE else f"on the {name} screen"
        for key, first, second in clashes(own, everywhere):
            if (first in keymap or second in keymap) and (first in ids or second in ids):
                said.append(f"{where}, {key!r} would be claimed by both {first} and {second}")
    return list(dict.fromkeys(said))


def use_keymap_file(app: App[Any]) -> None:
    """Read keymap.toml and hand it to Textual; a file with a problem is not used at all, and the console says
    why in a notification (the default keys stay)."""
    from stablepay_console.storage.keymap_file import KeymapFileError, read_keymap

    try:
        keymap = read_keymap()
    except KeymapFileError as exc:
        wrong = [str(exc)]
    else:
        if not keymap:
            return
        wrong = problems(type(app), keymap)
        if not wrong:
            app.set_keymap(keymap)
            return
    app.notify(f"keymap.toml is not used: {'; '.join(wrong)}. The default keys are in use.",
               title="Your keys", severity="error", timeout=20, markup=False)
