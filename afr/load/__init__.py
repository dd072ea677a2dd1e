"""Loaders: SKB directories and STaRK's processed format into a store."""

from afr.load.loader import LoadReport, load_skb_dir
from afr.load.source import load_into

__all__ = ["LoadReport", "load_into", "load_skb_dir"]
