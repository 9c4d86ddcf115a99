"""A local simulator of the StablePay API (embedded in-process, or served on loopback)."""

from stablepay_console.sandbox.app import Sandbox, SandboxState, build_app
from stablepay_console.sandbox.data import SANDBOX_KEY, SandboxData
from stablepay_console.sandbox.faults import Faults

__all__ = ["SANDBOX_KEY", "Faults", "Sandbox", "SandboxData", "SandboxState", "build_app"]
