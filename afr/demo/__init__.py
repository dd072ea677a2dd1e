"""afr.demo."""
