"""afr: the Autofocus-Retriever over semi-structured knowledge bases, in SQL."""

__version__ = "0.1.0"
