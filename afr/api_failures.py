"""How a call to an OpenAI-compatible endpoint failed, read the same way by the LLM client
(``afr.llm.client``) and the embedder (``afr.embed.openai_embed``): so both give up on a
dead endpoint as fast, and name the cause the same way.

The rules both follow: a connection refused, or a host that does not resolve, gets one
quick retry (``QUICK_RETRY_S``) and then the endpoint is down for the rest of the run; so
is one where no connection was made within the timeout; ``TIMEOUTS_DOWN`` tries in a
row that time out with no reply between them mark it down as well; 401/403 (and 404 for
the model) fail at once; 429 waits as Retry-After says; 5xx, dropped connections and
bodies that are not an API reply back off and retry.
"""

from __future__ import annotations

import random

QUICK_RETRY_S = 0.2
# Tries in a row that time out, no reply between them, after which the endpoint is down:
# one question's budget (2 × timeout_s + 1 s) holds two of them, so a hanging endpoint
# costs one question's wait, not every question's.
TIMEOUTS_DOWN = 2
# Transport errors (httpx's or httpx2's, by name) that mean no connection was made: the
# port is closed, the host unknown or unreachable. A dropped or reset connection is not
# one of them: the server is there, and is retried as usual.
_CONNECT_ERRORS = ("ConnectError", "ConnectTimeout")
# What the SDK raises while reading a body that is not an API reply.
NOT_A_REPLY = (ValueError, TypeError, AttributeError, KeyError)


def backoff(attempt: int) -> float:
    """The wait before try ``attempt + 1``: exponential, capped at 30 s, with jitter."""
    return min(30.0, 0.5 * 2 ** (attempt - 1)) * (0.75 + 0.5 * random.random())


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in out:
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def root_cause(exc: BaseException) -> BaseException:
    """What the SDK's error wraps: the transport's own error ("[Errno 111] Connection
    refused"), which names the cause where the SDK says only "Connection error"."""
    return exc.__cause__ or exc


def connect_failure(exc: BaseException) -> bool:
    """Whether no connection was made at all (refused, unknown host, connect timeout)."""
    return any(type(e).__name__ in _CONNECT_ERRORS for e in _chain(exc))


def describe(exc: BaseException) -> str:
    """One line for a failure: an API error body's message, else the exception's text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return " ".join(str(err["message"]).split())[:300]
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def retry_after(exc: Exception) -> float | None:
    """The seconds a 429's Retry-After header asks for (at most 60), None without one."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None
