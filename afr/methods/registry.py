"""Method name → its retriever (``ask.method``): the one place that knows every method."""

from __future__ import annotations

from afr.methods.base import Retriever, Session
from afr.settings import METHODS


def make_retriever(method: str, session: Session) -> Retriever:
    """The retriever of ``method`` for ``session``. Each method's modules load only when
    it is used: the others (and `afr cypher --run`) start faster without them."""
    if method == "af":
        from afr.methods.af.retriever import AfRetriever

        return AfRetriever(session)
    if method in ("vss", "bm25", "hybrid"):
        from afr.methods.plain import PlainRetriever

        return PlainRetriever(session, method)
    if method == "kar":
        from afr.methods.kar import KarRetriever

        return KarRetriever(session)
    if method == "sage":
        from afr.methods.sage import SageRetriever

        return SageRetriever(session)
    if method == "af+sage":
        from afr.methods.af_sage import AfSageRetriever

        return AfSageRetriever(session)
    raise ValueError(f"unknown method {method!r} (methods: {', '.join(METHODS)})")
