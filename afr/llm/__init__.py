"""LLM access: one client for any OpenAI-compatible chat endpoint."""

from afr.llm.client import (
    ContextLengthError,
    EmptyReplyError,
    LLMCache,
    LLMClient,
    LLMConfig,
    LLMReply,
    MemoryLLMCache,
)

__all__ = ["ContextLengthError", "EmptyReplyError", "LLMCache", "LLMClient", "LLMConfig",
           "LLMReply", "MemoryLLMCache"]
