"""afr.ground."""
