"""How RFI values read on screen: coloured statuses, held transfers, why a link is missing.

Shared by the inbox and the detail screen. Every value is server text, so it goes
through `plain()`; open sets (status, kind, flow type) show unknown values raw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text

from stablepay_console.tui.formatters.text import clean, plain, short_id, when

if TYPE_CHECKING:  # the models (pydantic) load with the client stack, not with these formatters
    from stablepay_console.api.models import Rfi, RfiItem

STATUS_STYLES = {
    "issued": "bold yellow",
    "submitted": "cyan",
    "resolved": "green",
    "expired": "red",
}
"""Known statuses get a colour; anything else is shown raw and uncoloured."""

STATUS_MEANINGS = {
    "issued": "waiting on a reply",
    "submitted": "answered and under review",
    "resolved": "decided",
    "expired": "deadline passed unanswered",
}


def status_text(status: str) -> Text:
    return plain(status, style=STATUS_STYLES.get(status, ""))


def status_long(status: str) -> Text:
    """`issued (waiting on a reply)`; an unknown status is shown as the server sent it."""
    text = status_text(status)
    meaning = STATUS_MEANINGS.get(status)
    if meaning:
        text.append(f" ({meaning})", style="dim")
    return text


def held_short(rfi: Rfi) -> Text:
    """The inbox cell: `1a2b3c4d onramp`, blank on an onboarding request."""
    if not rfi.transfer_id and not rfi.flow_type:
        return Text("")
    return plain(f"{short_id(rfi.transfer_id) or '?'} {rfi.flow_type or ''}".rstrip())


def held_transfer(rfi: Rfi) -> list[tuple[str, Text]]:
    """The detail rows about the transfer a transaction request holds (spec 3.1 rule 1)."""
    if rfi.kind == "onboarding" and not rfi.transfer_id:
        return [("Held transfer", Text("none: this request is about the user's own KYC/KYB"))]
    if not rfi.transfer_id:
        return [("Held transfer", Text("the server names no transfer for this request", style="dim"))]
    rows = [
        ("Held transfer", plain(rfi.transfer_id, style="bold")),
        ("Flow", plain(rfi.flow_type or "unknown transfer type")),
    ]
    if rfi.status == "resolved":
        rows.append(("", Text("The request is resolved, so it no longer holds this transfer.")))
    else:
        rows.append(("", Text("Held: it stays held until this request is resolved.", style="bold yellow")))
    return rows


def link_absence_reason(rfi: Rfi) -> str:
    """Why the current round has no hosted link, from the request's state (spec 2.3 and 3.1 rule 3)."""
    r = rfi.round
    if rfi.status == "resolved":
        return "Closed: the request is resolved, so the link can no longer be used."
    if rfi.status == "expired":
        return "Closed: the deadline passed unanswered, so the link can no longer be used."
    if r is None:
        return "No round is open, so there is nothing to answer and no link."
    if rfi.status == "submitted" or r.submitted_at is not None:
        answered = f" on {when(r.submitted_at)}" if r.submitted_at else ""
        return f"Answered and under review: the link closed when the reply was submitted{answered}."
    if r.round > 1:
        return (
            f"Asked again: compliance opened round {r.round}, which ends the earlier links; "
            "the server gives no link for this round yet."
        )
    return f"The server gives no link for this round (status {clean(rfi.status, 30)}; no reason is given)."


LINK_KEYS = "  (o open, l copy)"
ELIDED = "/…/"


def link_line(link: str, width: int | None) -> Text:
    """`Hosted link: https://host/rfi/respond/ID  (o open, l copy)` on one line of `width` cells (None: whole).

    Never wrapped, never broken inside the ID the link ends with: what gives way first is the keys' hint,
    then the words (`Link:`), then the scheme and the path between the host and the ID (`host/…/ID`); a
    link that still does not fit keeps its start and end around an ellipsis. `l` copies it whole."""
    link = clean(link)
    host, _, rest = link.partition("://")[2].partition("/")
    last = rest.rsplit("/", 1)[-1] if rest else ""
    shapes = [link]
    if host and last and rest != last:
        shapes.append(f"{host}{ELIDED}{last}")
    for words in ("Hosted link: ", "Link: "):
        for keys in (LINK_KEYS, ""):
            for shown in shapes:
                if width is None or cell_len(words + shown + keys) <= width:
                    return Text.assemble((words, "bold"), (shown, "underline"), (keys, "dim"))
    room = max((width or 0) - len("Link: "), 3)
    keep = room - 1
    head, tail = keep - keep // 2, keep // 2
    shown = shapes[-1]
    return Text.assemble(("Link: ", "bold"), (f"{shown[:head]}…{shown[len(shown) - tail:]}", "underline"))


def item_kind(item: RfiItem) -> Text:
    style = {"document": "", "question": "italic"}.get(item.kind, "")
    return plain(item.kind, style=style)


def item_type(item: RfiItem) -> Text:
    """The plain-words document type; an unknown docType reads as an untyped request with its raw value."""
    if item.kind == "question" and item.doc_type is None:
        return Text("written answer", style="dim")
    return plain(item.doc_type_name)


def required_text(item: RfiItem) -> Text:
    return Text("required", style="bold") if item.required else Text("optional", style="dim")
