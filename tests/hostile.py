"""A corpus of hostile strings, and the checks that a store came through them unchanged.

Every value an LLM or a user hands afr (names, attribute values, labels, relation types,
variable names, limits, whole questions and queries) is tried with these strings by the
``test_hardening_*`` modules and by ``bench/stress.py``. A ``Tally`` counts what was
tried per category and how it ended, so the figures in the notes come from real runs.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# category -> strings. Kept short enough that the whole corpus runs in seconds; the
# 1 MB strings are built on demand (``long_string``) where a test can afford them.
CORPUS: dict[str, list[str]] = {
    "quotes": [
        "'", '"', "''", '""', "O'Brien", 'say "hi"', "`backtick`", "'\"'\"", "\\'",
        "it''s", "‘curly’ “quotes”",
    ],
    "sql": [
        "'; DROP TABLE nodes; --",
        "\"; DROP TABLE edges; --",
        "x'); DELETE FROM nodes WHERE ('1'='1",
        "' OR '1'='1",
        "1; UPDATE nodes SET name = 'pwned'",
        "' UNION SELECT id, ext_id, type, name FROM nodes --",
        "'; CREATE TABLE pwned(x int); --",
        "$1", "$name", "%s", "%(name)s", "?",
        "'; COPY nodes TO '/tmp/afr-pwned.csv'; --",
        "'; ATTACH '/tmp/afr-pwned.duckdb' AS p; --",
        "{{ 7*7 }}", "{% for x in range(9) %}x{% endfor %}",  # Jinja, our template engine
    ],
    "comments": ["--", "-- x", "/*", "*/", "/* DROP TABLE nodes */", "//", "#", "; --"],
    "backslash": ["\\", "\\\\", "a\\'b", "C:\\temp\\new", "\\n\\t", "\\x00", "\\u0000",
                  "end\\"],
    "unicode": [
        "Тhomas Kipf",  # Cyrillic Т
        "Κaiming Ηe",  # Greek Κ and Η
        "\u202eKaiming He",  # right-to-left override
        "Kipf\u200f\u200e",  # RTL and LTR marks
        "Ki\u200bpf",  # zero-width space
        "\ufeffpaper",  # byte-order mark
        "cafe\u0301",  # combining accent
        "🤖💥", "𝔄𝔟𝔠", "ﷺ", "\u0000\u2028\u2029",
        "\udcff\udc80",  # lone surrogates: what undecodable bytes on a command line become
    ],
    "control": ["\x00", "a\x00b", "\x00'; DROP TABLE nodes; --", "\x1b[31mred\x1b[0m",
                "\r\n", "\t", "\x7f", "\x08\x08"],
    "json": ['{"a": 1}', "]}", "[1, 2", "null", '{"$ne": null}', '"\\u0000"',
             '{"name": "x"}) RETURN y //', "[[[[[[[[[[[[[[[[[[[["],
    "cypher": [
        "}) RETURN y //", "(", ")]->(", ":", "|", "*1..1000000", "x:y:z",
        "MATCH (n) DETACH DELETE n", "'}) MATCH (z) RETURN z //",
    ],
    "long": ["A" * 65_536, ("'; DROP TABLE nodes; -- " * 2_000)[:60_000],
             "é" * 20_000, " ".join(["word"] * 10_000)],
}

# Identifiers an LLM might write where a label, relation or variable belongs.
IDENTIFIERS: list[str] = [
    "exception; DROP TABLE nodes", "a`b", "`quoted`", "x'y", 'x"y', "1abc", "_", "a-b",
    "Παπερ", "a\u202eb", "nodes", "edges", "afr_meta", "pg_catalog.pg_tables",
    "information_schema.tables", "a" * 5_000,
]

# Numbers where a limit, hop count or k belongs.
LIMITS: list[str] = ["0", "-1", "1e309", "99999999999999999999999", "NaN", "1.5", "0x10",
                     "1; DROP TABLE nodes", "''", "9" * 400]


def all_strings() -> list[tuple[str, str]]:
    return [(cat, s) for cat, items in CORPUS.items() for s in items]


def long_string(n: int = 1 << 20) -> str:
    """A 1 MB string that also carries quotes and an injection attempt."""
    chunk = "abc'\"; DROP TABLE nodes; -- \\ é "
    return (chunk * (n // len(chunk) + 1))[:n]


def cypher_literal(value: str) -> str:
    """``value`` as a single-quoted Cypher string (backslash escapes)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass
class Tally:
    """Counts per category: tried, held (no harm, answer or clean error), and how."""

    tried: Counter = field(default_factory=Counter)
    held: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, category: str, outcome: str, *, held: bool) -> None:
        """One try; ``held``: what the caller's own check of this try found (no default:
        a count of held tries means something only when each was checked)."""
        with self._lock:
            self.tried[category] += 1
            self.outcomes[(category, outcome)] += 1
            if held:
                self.held[category] += 1

    def table(self, title: str) -> str:
        lines = [f"{title}: category | tried | held | outcomes"]
        for cat in sorted(self.tried):
            outs = ", ".join(f"{o}={n}" for (c, o), n in sorted(self.outcomes.items())
                             if c == cat)
            lines.append(f"  {cat} | {self.tried[cat]} | {self.held[cat]} | {outs}")
        lines.append(f"  total | {sum(self.tried.values())} | {sum(self.held.values())} |")
        return "\n".join(lines)


def store_fingerprint(store: Any) -> dict[str, Any]:
    """Row counts of every SKB table, a checksum of nodes and edges, and the table list.

    Compared before and after a hostile run: any write, drop or create shows here.
    """
    from afr.store.base import SKB_TABLES

    out: dict[str, Any] = {}
    for table in (*SKB_TABLES, "afr_meta"):
        out[table] = store.query(f"SELECT count(*) FROM {table}")[0][0]  # noqa: S608 - ours
    nodes = store.query("SELECT id, ext_id, type, name, text, CAST(attrs AS VARCHAR) "
                        "FROM nodes ORDER BY id")
    edges = store.query("SELECT src, type, dst FROM edges ORDER BY src, type, dst")
    out["nodes_sha"] = hashlib.sha256(repr(nodes).encode()).hexdigest()
    out["edges_sha"] = hashlib.sha256(repr(edges).encode()).hexdigest()
    if store.dialect.name == "postgres":
        tables = store.query("SELECT table_schema || '.' || table_name FROM "
                             "information_schema.tables WHERE table_schema = current_schema() "
                             "ORDER BY 1")
    else:
        # The store's own catalog only: a connection's temp tables (a loader's staging)
        # are not part of the store.
        tables = store.query("SELECT table_schema || '.' || table_name FROM "
                             "information_schema.tables WHERE table_catalog = "
                             "current_database() ORDER BY 1")
    out["tables"] = [t[0] for t in tables]
    return out
