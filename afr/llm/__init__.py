"""afr.llm."""
