"""Prompt templates: Jinja files rendered into chat messages.

A template holds ``[system]`` and ``[user]`` sections. Users can point afr at a folder
of their own templates (``--prompts DIR``); a file there overrides ours of the same name.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from afr.errors import AfrError
from afr.resources import prompts_dir

if TYPE_CHECKING:
    import jinja2

_SECTION = re.compile(r"^\[(system|user|assistant)\]\s*$", re.MULTILINE)


@lru_cache(maxsize=8)
def _env(user_dir: str | None) -> jinja2.Environment:
    import jinja2  # on first use: an offline ask or `afr cypher --run` renders no prompt

    loaders: list[jinja2.BaseLoader] = []
    if user_dir:
        loaders.append(jinja2.FileSystemLoader(user_dir))
    loaders.append(jinja2.FileSystemLoader(str(prompts_dir())))
    return jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=False,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True)


def render_messages(name: str, user_dir: str | None = None, **variables: Any) -> list[dict]:
    import jinja2

    try:
        text = _env(user_dir).get_template(f"{name}.j2").render(**variables)
    except jinja2.TemplateError as exc:
        # Most likely a user's own template (--prompts): name it, don't crash.
        where = f" (in {user_dir})" if user_dir else ""
        raise AfrError(f"prompt template {name}.j2{where}: "
                       f"{type(exc).__name__}: {exc}") from None
    parts = _SECTION.split(text)
    messages = []
    # parts: [preamble, role, body, role, body, ...]
    for role, body in zip(parts[1::2], parts[2::2], strict=True):
        body = re.sub(r"\n{3,}", "\n\n", body).strip()
        if body:
            messages.append({"role": role, "content": body})
    if not messages:
        messages = [{"role": "user", "content": text.strip()}]
    return messages
