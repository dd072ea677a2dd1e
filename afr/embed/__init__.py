"""afr.embed."""
