"""Batch evaluation: question sets, metrics with STaRK parity, runs in the store."""
