"""LLM access: one client for any OpenAI-compatible chat endpoint."""

from afr.llm.cache import MemoryLLMCache, StoreLLMCache
from afr.llm.client import (
    ContextLengthError,
    EmptyReplyError,
    LLMCache,
    LLMClient,
    LLMReply,
    LLMUnavailableError,
    UnusableReplyError,
    WaitBudget,
)

__all__ = ["ContextLengthError", "EmptyReplyError", "LLMCache", "LLMClient",
           "LLMReply", "LLMUnavailableError", "MemoryLLMCache", "StoreLLMCache",
           "UnusableReplyError", "WaitBudget"]
