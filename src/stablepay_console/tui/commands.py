"""Command palette: every top-level screen by name."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from stablepay_console.tui.screens import TOP_LEVEL


class ScreensProvider(Provider):
    """Open a screen by typing its name."""

    async def discover(self) -> Hits:
        for entry in TOP_LEVEL:
            yield DiscoveryHit(
                f"Open {entry.title}",
                partial(self.app.switch_mode, entry.mode),
                help=f"{entry.description} (key {entry.key})",
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in TOP_LEVEL:
            text = f"Open {entry.title}"
            score = matcher.match(text)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(text),
                    partial(self.app.switch_mode, entry.mode),
                    help=f"{entry.description} (key {entry.key})",
                )
