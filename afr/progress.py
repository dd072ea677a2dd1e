"""Progress display for long work (loads, embedding, evaluation), on stderr via tqdm."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # tqdm is imported when a bar is made: commands without one skip it
    from tqdm import tqdm


def enabled_by_default() -> bool:
    # Bars only for people watching a terminal; logs and CI get none.
    return sys.stderr.isatty()


def _disabled(enabled: bool | None) -> bool:
    """``enabled`` None (a library call that did not say): bars only on a terminal."""
    return not (enabled_by_default() if enabled is None else enabled)


class Phases:
    """A bar over the named phases of a job whose phases are single big SQL statements."""

    def __init__(self, names: list[str], *, enabled: bool | None = None) -> None:
        self.names = names
        from tqdm import tqdm

        self.bar = tqdm(total=len(names), disable=_disabled(enabled), unit="step", leave=False,
                        file=sys.stderr, bar_format="{desc} {bar} {n_fmt}/{total_fmt} {elapsed}")
        self._started = False

    def next(self, name: str) -> None:
        if self._started:
            self.bar.update(1)
        self._started = True
        self.bar.set_description(name)

    def __enter__(self) -> Phases:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None and self._started:
            self.bar.update(1)
        self.bar.close()


def bar(total: int | None, desc: str, *, enabled: bool | None = None, unit: str = "it"
        ) -> tqdm:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, disable=_disabled(enabled), unit=unit, file=sys.stderr,
                dynamic_ncols=True, unit_scale=True, leave=False)
