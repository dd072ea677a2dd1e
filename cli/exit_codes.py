"""Exit codes of afr, documented in `afr ask --help`, `afr eval run --help` and the README.

0 everything ran as configured · 1 an error, nothing answered (``afr: error: …``) · 2 bad
usage · 3 answers printed, but the configured LLM failed, or its replies could not be
used, and afr fell back (offline formalizer for steps 1–2, retrieval order instead of a
rerank); `afr eval`: stopped, or
every question lost, to an unreachable or unanswering LLM · 4 the same, because the LLM
endpoint refused access (HTTP 401/403: the key) or has no such model or URL (HTTP 404) ·
70 internal error · 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

LLM_FELL_BACK = 3
LLM_REFUSED = 4


def llm_exit_code(kind: str | None) -> int:
    """The exit code of a command whose LLM failed with this kind (AskResult.llm_failure)."""
    if kind is None:
        return 0
    return LLM_REFUSED if kind == "access" else LLM_FELL_BACK
