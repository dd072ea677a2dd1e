"""The bundled demo SKB: well-formed, as described, and answerable offline."""

from __future__ import annotations

import csv
import gzip
import json
import sys
from pathlib import Path

from afr.resources import demo_skb_dir

DEMO = demo_skb_dir()


def _nodes() -> list[dict]:
    with gzip.open(DEMO / "nodes.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _edges() -> list[dict]:
    with gzip.open(DEMO / "edges.csv.gz", "rt", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_shape() -> None:
    schema = json.loads((DEMO / "skb.json").read_text())
    nodes, edges = _nodes(), _edges()
    ids = {n["id"] for n in nodes}
    assert 2000 <= len(nodes) <= 6000 and len(ids) == len(nodes)
    assert len(schema["node_types"]) >= 4 and len(schema["edge_types"]) >= 4
    assert {n["type"] for n in nodes} <= set(schema["node_types"])
    assert {e["type"] for e in edges} <= set(schema["edge_types"])
    assert all(e["src"] in ids and e["dst"] in ids for e in edges)
    attrs = [v for n in nodes for v in n.get("attrs", {}).values()]
    assert any(isinstance(v, int) and not isinstance(v, bool) for v in attrs)
    assert any(isinstance(v, str) and len(v) == 10 and v[4] == "-" for v in attrs)
    assert sum(1 for n in nodes if len(n.get("text", "")) > 80) > 1000


def test_questions_have_valid_answers() -> None:
    ids = {n["id"] for n in _nodes()}
    with open(DEMO / "questions.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert 15 <= len(rows) <= 30
    for row in rows:
        answers = json.loads(row["answer_ids"])
        assert answers and set(answers) <= ids


def test_licence_and_build_documented() -> None:
    text = (DEMO / "README.md").read_text()
    assert "Python Software Foundation License" in text and "build_demo" in text


def test_rebuild_is_identical(tmp_path: Path) -> None:
    """On the interpreter the shipped files record (skb.json's python_version) a rebuild
    gives them byte for byte; on any other, whose standard library differs, the build is
    checked to be deterministic (two builds, the same bytes) and to keep the schema."""
    import sysconfig

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from build_demo import build, make_questions, write

    names = ("skb.json", "nodes.jsonl.gz", "edges.csv.gz", "questions.csv")
    shipped = json.loads((DEMO / "skb.json").read_text(encoding="utf-8"))
    running = ".".join(map(str, sys.version_info[:3]))

    def built(out: Path) -> dict[str, bytes]:
        graph = build(Path(sysconfig.get_paths()["stdlib"]))
        write(graph, make_questions(graph), out)
        return {name: (out / name).read_bytes() for name in names}

    first = built(tmp_path / "first")
    if running == shipped["python_version"]:
        for name in names:
            assert first[name] == (DEMO / name).read_bytes(), name
        return
    assert built(tmp_path / "second") == first
    mine = json.loads(first["skb.json"])
    assert {k: v for k, v in mine.items() if k != "python_version"} == {
        k: v for k, v in shipped.items() if k != "python_version"}


def test_a_demo_without_the_edge_endpoint_record_is_built_again(tmp_path: Path) -> None:
    """A demo cached by an afr before loads recorded which node types each edge type
    connects is not current: it is built again (its grounding would keep every check);
    likewise one whose lexical index has no tokeniser record (unstemmed terms)."""
    from afr.demo import demo_ready, ensure_demo_store
    from afr.store import DuckDBStore

    path = ensure_demo_store(tmp_path / "demo.duckdb", progress=False)
    assert demo_ready(path)
    store = DuckDBStore(path)
    store.delete_meta("skb_edge_pairs")
    store.close()
    assert not demo_ready(path)
    ensure_demo_store(path, progress=False)
    assert demo_ready(path)
    # nor is one whose lexical index another tokeniser made (an afr before stemming)
    store = DuckDBStore(path)
    store.delete_meta("lexical_tokenizer")
    store.close()
    assert not demo_ready(path)
    ensure_demo_store(path, progress=False)
    assert demo_ready(path)
