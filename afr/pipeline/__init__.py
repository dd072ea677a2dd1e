"""afr.pipeline."""
