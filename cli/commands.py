"""Registers every command module with the `afr` group."""

from afr.cli import store_commands  # noqa: F401

try:  # the pipeline commands arrive with the pipeline
    from afr.cli import ask_commands  # noqa: F401
except ImportError as exc:  # pragma: no cover - only while a module is missing
    if "ask_commands" not in str(exc):
        raise
from afr.cli import eval_commands, synth_commands  # noqa: E402, F401 - `afr eval`, `afr synth`
