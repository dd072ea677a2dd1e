"""Packaging: every subpackage and data file ships in the wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {"afr." + ".".join(p.parent.relative_to(ROOT / "afr").parts)
             for p in (ROOT / "afr").rglob("__init__.py")}
    found = {f.rstrip(".") for f in found}
    assert found <= listed, f"add to pyproject.toml packages: {sorted(found - listed)}"


def test_resources_are_found() -> None:
    from afr.resources import demo_skb_dir, prompts_dir, schema_dir, sql_dir

    assert (sql_dir() / "ground" / "tree.sql").is_file()
    assert (sql_dir() / "filters" / "common.j2").is_file()
    assert (schema_dir() / "001_init.sql").is_file()
    assert (prompts_dir() / "cypher.j2").is_file()
    assert (demo_skb_dir() / "nodes.jsonl.gz").is_file()
