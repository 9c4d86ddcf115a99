"""The footer: the screen's own keys from the left, help and quit pinned on the right.

Textual's footer lists the focused widget's keys, then the screen's, then the app's, and cuts the
rest at the border: at 80 columns `?` and `q` were never seen. Here help and quit (and the command
palette) sit in a group docked on the right, so a long list of screen keys is what gets cut. Screen
switching is left to the tabs under the banner.

Help and quit show the key that works now: `?` and `q`, or `f1` and `^c` while a text field has the
keys (there `?` and `q` are typed).

A key shows whole or not at all: the keys that would run under the pinned group ("t Tr▏" at 80 columns)
are hidden, where Textual's own layout places them, so the footer never shows a cut word. Help lists
every key.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PINNED = {"toggle_help": ("question_mark", "f1"), "quit": ("q", "ctrl+c")}
"""Action -> its keys, preferred first."""


def pinned_keys(active: dict[str, ActiveBinding]) -> list[tuple[str, ActiveBinding]]:
    """(key, binding) for help and quit as they work now, in that order; missing ones are left out."""
    found = []
    for action, keys in PINNED.items():
        working = [(key, bound) for key, bound in active.items() if bound.binding.action.removeprefix("app.") == action]
        # the preferred key that works now; with the user's own keys (keymap.toml), the key they gave
        working.sort(key=lambda pair: keys.index(pair[0]) if pair[0] in keys else len(keys))
        if working:
            found.append(working[0])
    return found


def shown_elsewhere(widget: Widget) -> bool:
    """Keys the footer leaves out: help and quit (pinned) and screen switching (the tabs)."""
    if not isinstance(widget, FooterKey):
        return False
    action = widget.action.removeprefix("app.")
    return action in PINNED or action.startswith("switch_mode(") or "-command-palette" in widget.classes


def compact_as(compact: bool, widget: Widget) -> Widget:
    """A new key, given the footer's `compact` before it mounts (other widgets as they are).

    A FooterKey starts compact and is then bound to the footer's `compact`: two class changes at
    mount, each restyling the key, for every key each time the footer is rebuilt (focus moves, a
    screen's bindings change). Given the value first, the binding has nothing left to change.
    """
    if isinstance(widget, FooterKey):
        if "-command-palette" in widget.classes:
            compact = True  # Textual's footer leaves this key unbound, at FooterKey's own default
        widget.set_reactive(FooterKey.compact, compact)
        widget.set_class(compact, "-compact", update=False)
    return widget


class ConsoleFooter(Footer):
    DEFAULT_CSS = """
    ConsoleFooter #footer-pinned {
        dock: right;
        width: auto;
        height: 1;
        background: $footer-background;
        border-left: vkey $foreground 20%;
    }
    ConsoleFooter #footer-pinned FooterKey.-command-palette {
        dock: none;
    }
    ConsoleFooter {
        overflow-x: hidden;  /* no scrolling to a hidden key: what does not fit is hidden, not cut */
    }
    """

    _shown: tuple[object, ...] | None = None
    """What the footer showed when it was last built (its keys and how they are drawn)."""

    def showing(self) -> tuple[object, ...]:
        """Everything the keys are built from: the bindings shown (enabled or not), help and quit as they work
        now, the command palette's key, and the footer's options.

        Bindings the footer never shows (a table's cursor keys, say) are left out: focus moving to a widget
        with only such keys changes nothing on the footer, and rebuilt nothing."""
        if not self._bindings_ready:
            return (False,)
        active = self.screen.active_bindings

        def drawn(key: str, bound: ActiveBinding) -> tuple[object, ...]:
            return (key, bound.binding, bound.enabled, bound.tooltip)

        shown = tuple(drawn(key, bound) for key, bound in active.items() if bound.binding.show)
        pinned = tuple(drawn(key, bound) for key, bound in pinned_keys(active))
        palette_key = self.app.COMMAND_PALETTE_BINDING
        palette = drawn(palette_key, active[palette_key]) if palette_key in active else None
        return (self.compact, self.show_command_palette, shown, pinned, palette)

    async def recompose(self) -> None:
        """Rebuild only when the keys shown would change.

        Textual rebuilds the footer whenever the screen's bindings are updated (every focus move, every
        refresh of the bindings), mounting and styling every key again though nothing shown changed.
        """
        if self.is_attached and self.showing() == self._shown:
            return
        await super().recompose()
        self.call_after_refresh(self.fit_keys)

    def on_resize(self, _: events.Resize) -> None:
        self.call_after_refresh(self.fit_keys)

    def fit_keys(self) -> None:
        """Hide the keys that would not show whole: those Textual's layout puts past the pinned group
        (the border of the group may cover a key's last cell, the padding after its description)."""
        if not self.is_attached:
            return
        placements = self.arrange(self.size).placements
        edge = next((p.region.x for p in placements if p.widget.id == "footer-pinned"), self.size.width)
        for placement in placements:
            widget = placement.widget
            if widget.id != "footer-pinned":
                padded = isinstance(widget, FooterKey) and bool(widget.description) and not widget.compact
                whole = placement.region.right - padded <= edge
                if widget.visible != whole:  # setting it, even unchanged, lays the whole screen out again
                    widget.visible = whole

    def compose(self) -> ComposeResult:
        self._shown = self.showing()
        widgets: Iterable[Widget] = [compact_as(self.compact, w) for w in super().compose()]
        if not self._bindings_ready:
            return
        yield from (widget for widget in widgets if not shown_elsewhere(widget))
        pinned = [
            compact_as(self.compact, FooterKey(
                key, self.app.get_key_display(bound.binding), bound.binding.description, bound.binding.action,
                disabled=not bound.enabled, tooltip=bound.tooltip, classes="-pinned",
            ).data_bind(compact=Footer.compact))
            for key, bound in pinned_keys(self.screen.active_bindings)
        ]
        pinned += [w for w in widgets if isinstance(w, FooterKey) and "-command-palette" in w.classes]
        yield HorizontalGroup(*pinned, id="footer-pinned")
