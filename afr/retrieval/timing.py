"""Step timings: how long each step of a question took, in seconds."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class Timer:
    def __init__(self, timings: dict[str, float]) -> None:
        self.timings = timings

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            # a step measured in pieces (step 4's deferred searches) adds up
            self.timings[name] = round(self.timings.get(name, 0.0)
                                       + time.perf_counter() - started, 6)
