"""Loaders: SKB directories and STaRK's processed format into a store."""

from afr.load.loader import LoadReport, load_skb_dir

__all__ = ["LoadReport", "load_skb_dir"]
