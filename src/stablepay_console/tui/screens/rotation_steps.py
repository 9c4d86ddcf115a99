"""What the rotation wizard says at each step, and the buttons it offers (no widget state here).

Everything shown that came from a file or a server (profile name, base URL, masked keys, errors)
is cleaned first: the progress file is read back on resume and is as hostile as a server's text.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.widgets import Button

from stablepay_console.profiles.age import add_months
from stablepay_console.profiles.rotation import STEP_TITLES, Rotation, Step
from stablepay_console.tui.formatters.text import clean

DASHBOARD = "the StablePay dashboard (Developer, then API Keys)"


def where_kept(rotation: Rotation) -> str:
    """Where the pasted key waits until the switch, said truthfully for each kind of profile."""
    profile = rotation.profile
    if not profile.embedded:
        return "in the OS keyring"
    if profile.is_production:
        return "in the simulated production's own state in the console's data folder"
    return "in memory, for this run of the built-in sandbox"


def steps_text(rotation: Rotation) -> Text:
    text = Text()
    current = rotation.step
    for step in Step:
        if step is Step.DONE:
            continue
        if step < current:
            text.append(f"✓ {step.value}. {STEP_TITLES[step]}\n", style="green")
        elif step == current:
            text.append(f"▶ {step.value}. {STEP_TITLES[step]}\n", style="bold reverse")
        else:
            text.append(f"  {step.value}. {STEP_TITLES[step]}\n", style="dim")
    if rotation.resumed and current is not Step.DONE:
        text.append("\nResumed where the wizard stopped.", style="italic")
    return text


def current_step_line(rotation: Rotation) -> Text:
    """One line for narrow terminals, where the list of steps does not fit beside the instructions."""
    step = rotation.step
    if step is Step.DONE:
        return Text("All six steps done.", style="green")
    resumed = " (resumed)" if rotation.resumed else ""
    return Text(f"Step {step.value} of 6: {STEP_TITLES[step]}{resumed}", style="bold")


def step_view(
    rotation: Rotation, now: datetime, simulated_dashboard: bool, key_since: datetime | None = None
) -> tuple[Text, list[Button]]:
    """The instructions of the current step and its buttons (the primary one first)."""
    p = rotation.profile
    state = rotation.state
    name, url = clean(p.name, 40), rotation.where
    old, new = clean(state.old_key, 20), clean(state.new_key, 20)
    step = rotation.step
    if step is Step.GENERATE:
        text = (
            f"In {DASHBOARD}, generate a new key for the {p.environment} environment and give it a descriptive "
            f"name (for example \"console {name} {now:%Y-%m}\").\n\n"
            "The dashboard shows the key once: keep it on the clipboard for the next step."
        )
        buttons = [Button("I have created the new key", id="generated", variant="primary")]
        if simulated_dashboard:
            buttons.append(Button("Simulate in the sandbox dashboard", id="simulate-create"))
    elif step is Step.PASTE:
        text = f"Paste the new key. It stays hidden, and waits {where_kept(rotation)} until the switch."
        buttons = [Button("Verify the new key", id="paste", variant="primary")]
    elif step is Step.VERIFY_NEW:
        text = f"Checking the new key {new} against {url} with /ping…"
        buttons = [Button("Check again", id="verify-new", variant="primary")]
    elif step is Step.SWITCH:
        text = (
            f"The new key {new} works against {url}.\n\nSwitch profile {name} to it? "
            f"The old key {old} is kept aside until it has been deleted and is refused."
        )
        buttons = [Button("Switch to the new key", id="switch", variant="warning" if p.is_production else "primary")]
    elif step is Step.DELETE_OLD:
        text = (
            f"Profile {name} now uses the new key {new}.\n\nIn {DASHBOARD}, delete the old key {old}. "
            "Requests with it stop working at once."
        )
        buttons = [Button("I have deleted the old key", id="deleted", variant="primary")]
        if simulated_dashboard:
            buttons.append(Button("Simulate in the sandbox dashboard", id="simulate-delete"))
    elif step is Step.VERIFY_OLD:
        text = f"Checking that the old key {old} is now refused (401)…"
        buttons = [Button("Check again", id="verify-old", variant="primary")]
    else:
        text = (
            f"Done. Profile {name} uses the new key {new}; the old key {old} was refused and is forgotten.\n\n"
            f"The next rotation is due by {add_months(key_since or now, 12):%Y-%m-%d}."
        )
        buttons = [Button("Close", id="close", variant="primary")]
    if rotation.can_abandon:
        buttons.append(Button("Abandon", id="abandon", variant="error"))
    return Text(text), buttons
