"""An LLM step that did not happen as configured, and what was done instead.

Every method and step 8 report their failed LLM steps as ``Fallback`` values; the ask's
status, its exit code and an evaluation's counts are read off them (never off timings or
the wording of notes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from afr.errors import LLMError
from afr.llm.client import LLMUnavailableError, UnusableReplyError

# Kinds of LLM failure, gravest first: refused access (401/403/404), unreachable, timed
# out (these three: the endpoint cannot be used at all), any other failure, and a reply
# that arrived but could not be used (no query in it, no candidate named).
KINDS = ("access", "unreachable", "timeout", "error", "unusable")
LOST = ("access", "unreachable", "timeout")  # the endpoint itself is lost
UNUSABLE = "unusable"


@dataclass(frozen=True)
class Fallback:
    step: str  # "step 1", "steps 1–2", "the repair round", "step 8", "KAR K1", "KAR K6"
    kind: str  # one of KINDS
    error: str  # what the LLM (or its reply) did
    instead: str  # what afr did instead
    skipped: bool = False  # no request was sent: the client was down already

    @classmethod
    def of(cls, exc: LLMError, step: str, instead: str) -> Fallback:
        kind = exc.kind if isinstance(exc, LLMUnavailableError) else \
            UNUSABLE if isinstance(exc, UnusableReplyError) else "error"
        skipped = isinstance(exc, LLMUnavailableError) and exc.skipped
        return cls(step, kind, str(exc), instead, skipped)

    @classmethod
    def unusable(cls, step: str, error: str, instead: str) -> Fallback:
        """A reply that arrived but could not be used (``UnusableReplyError``)."""
        return cls(step, UNUSABLE, error, instead)

    @property
    def note(self) -> str:
        if self.kind == UNUSABLE:
            return f"LLM reply unusable in {self.step} ({self.error}); {self.instead}"
        verb = "skipped" if self.skipped else "failed"
        return f"LLM {verb} in {self.step} ({self.error}); {self.instead}"


def gravest(fallbacks: Iterable[Fallback]) -> Fallback | None:
    """The fallback of the gravest kind (the first of them when several share it)."""
    found = list(fallbacks)
    return min(found, key=lambda f: KINDS.index(f.kind)) if found else None
