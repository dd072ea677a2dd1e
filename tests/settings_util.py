"""Settings for tests: ``settings_of(rerank__method="none", llm__offline=True)`` — setting
paths with ``__`` for their dots (``afr.settings.tree``), over the defaults; ``llm``: a
dict of [llm] fields (base_url, model …)."""

from __future__ import annotations

from typing import Any

from afr.settings import Settings, with_values


def settings_of(llm: dict[str, Any] | None = None, **values: Any) -> Settings:
    paths = {name.replace("__", "."): value for name, value in values.items()}
    paths.update({f"llm.{key}": value for key, value in (llm or {}).items()})
    return with_values(Settings(), paths)
