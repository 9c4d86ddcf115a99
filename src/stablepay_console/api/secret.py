"""A container for an API key that never shows its value by accident."""

from __future__ import annotations

from typing import Any, NoReturn

MAX_KEY_LENGTH = 4096
"""Far above any real key (a JWT included); a longer paste is something else."""


def mask(value: str) -> str:
    """A key as it may be shown: a short prefix and the last four characters."""
    if len(value) <= 12:
        return "****"
    return f"{value[:4]}…{value[-4:]}"


class ApiKey:
    """Holds a key; `repr`, `str`, formatting and pickling never reveal it.

    The value is stored in a closure rather than an attribute so that object
    dumps (``vars()``, debuggers, Rich's locals in tracebacks) show nothing.
    """

    __slots__ = ("_reveal", "masked")

    def __init__(self, value: str) -> None:
        value = value.strip()
        if not value:
            raise ValueError("The API key is empty.")
        if len(value) > MAX_KEY_LENGTH:
            raise ValueError(
                f"The API key is {len(value):,} characters long, far longer than a key: was something else pasted?"
            )
        if any(ch.isspace() or not ch.isprintable() for ch in value):
            raise ValueError("The API key contains spaces or control characters.")
        if not value.isascii():
            # httpx would fail to encode the header, with the plain value in the failing frame's locals.
            raise ValueError("The API key contains characters that are not ASCII.")
        self.masked = mask(value)
        self._reveal = lambda: value

    def reveal(self) -> str:
        """The plain value. Call only where it goes straight onto the wire or into a secret store."""
        return self._reveal()

    def __repr__(self) -> str:
        return f"ApiKey({self.masked!r})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ApiKey) and other.reveal() == self.reveal()

    def __hash__(self) -> int:
        return hash(("ApiKey", self.masked))

    def __reduce__(self) -> NoReturn:
        raise TypeError("An ApiKey cannot be pickled.")

    def __getstate__(self) -> Any:
        raise TypeError("An ApiKey cannot be serialised.")
