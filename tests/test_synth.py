"""`afr synth`: synthetic STaRK-like SKBs, their questions, gold answers and noisy Cypher.

The gold answers come from the in-memory oracle; here they are checked independently by
grounding the gold Cypher through the real SQL pipeline on the loaded DuckDB store.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from settings_util import settings_of

from afr.cypher import parse_cypher
from afr.cypher.resolve import resolve
from afr.embed import make_embedder
from afr.evaluate.questions import load_questions
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.store import DuckDBStore
from afr.synth import QUESTION_COLUMNS, SHAPES, generate
from afr.synth.cypher import NOISE_KINDS
from afr.vectors import embed_store

SIZES = {"prime": (800, 6000), "mag": (1200, 9000), "amazon": (1200, 6000)}


def _read(out: Path) -> dict[str, bytes]:
    # byte for byte: the gzip headers carry no file name or time
    return {name: (out / name).read_bytes()
            for name in ("skb.json", "nodes.jsonl.gz", "edges.csv.gz", "questions.csv",
                         "split/val.index", "split/test.index")}


def _questions(out: Path) -> list[dict[str, str]]:
    with open(out / "questions.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module", params=sorted(SIZES))
def synth(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """One small generated SKB per shape, loaded and embedded into a DuckDB file."""
    like = request.param
    nodes, edges = SIZES[like]
    out = tmp_path_factory.mktemp(f"synth-{like}") / "skb"
    report = generate(out, like=like, nodes=nodes, edges=edges, questions=25, seed=7,
                      noise=0.5)
    store = DuckDBStore(out.parent / "afr.duckdb")
    load = load_skb_dir(store, out, progress=False)
    embed_store(store, make_embedder("hash:64"), progress=False)
    yield like, out, report, load, store
    store.close()


def test_same_seed_same_files_other_seed_other_files(tmp_path: Path) -> None:
    kw = dict(like="prime", nodes=500, edges=3000, questions=10, noise=0.5)
    generate(tmp_path / "a", seed=3, **kw)
    generate(tmp_path / "b", seed=3, **kw)
    generate(tmp_path / "c", seed=4, **kw)
    a, b, c = _read(tmp_path / "a"), _read(tmp_path / "b"), _read(tmp_path / "c")
    assert a == b
    assert a["nodes.jsonl.gz"] != c["nodes.jsonl.gz"]
    assert a["edges.csv.gz"] != c["edges.csv.gz"]
    assert a["questions.csv"] != c["questions.csv"]


def test_the_questions_split_into_two_seeded_halves(tmp_path: Path) -> None:
    """val to calibrate the fusion on, test to measure on: disjoint, together every
    question, each half in the questions' order, read by afr eval's --split."""
    generate(tmp_path / "a", like="mag", nodes=1200, edges=9000, questions=21, seed=5)
    ids = [q["id"] for q in _questions(tmp_path / "a")]
    val, test = (load_questions(tmp_path / "a", split=name) for name in ("val", "test"))
    assert (len(val), len(test)) == (10, 11)
    assert sorted([q.id for q in val + test], key=int) == ids
    assert [q.id for q in val] == sorted((q.id for q in val), key=int)
    generate(tmp_path / "b", like="mag", nodes=1200, edges=9000, questions=21, seed=6)
    assert (tmp_path / "b" / "split" / "val.index").read_text() != \
        (tmp_path / "a" / "split" / "val.index").read_text()
    generate(tmp_path / "a", like="mag", nodes=1200, edges=9000, questions=0, seed=5,
             exist_ok=True)  # no questions: no stale splits of the old ones
    assert not list((tmp_path / "a" / "split").iterdir())


def test_files_follow_the_format_and_load_with_exact_counts(synth) -> None:
    like, out, report, load, store = synth
    shape = SHAPES[like]
    meta = json.loads((out / "skb.json").read_text())
    assert meta["directed"] is False
    assert len(meta["node_types"]) == len(shape.nodes)
    assert len(meta["edge_types"]) == len(shape.edges)
    assert meta["candidate_types"] == (["paper"] if like == "mag" else ["product"]
                                       if like == "amazon" else [n.type for n in shape.nodes])
    assert load.nodes == report.nodes == SIZES[like][0]
    assert load.edges == report.edges
    stored_nodes = dict(store.query("SELECT type, count(*) FROM nodes GROUP BY type"))
    assert stored_nodes == report.node_counts
    stored_edges = dict(store.query("SELECT type, count(*) FROM edges GROUP BY type"))
    assert stored_edges == report.edge_counts
    with gzip.open(out / "nodes.jsonl.gz", "rt") as fh:
        rows = [json.loads(x) for x in fh]
    assert all(r["name"] and r["text"] and isinstance(r["attrs"], dict) for r in rows)
    # names are distinct within a type (they are what Cypher constants are matched by)
    per_type = Counter((r["type"], r["name"]) for r in rows)
    assert per_type.most_common(1)[0][1] == 1
    # numbers stay numbers and dates are ISO days
    attrs = [a for r in rows for a in r["attrs"].items()]
    assert any(isinstance(v, int | float) for _, v in attrs)
    if like != "mag":
        dates = [v for k, v in attrs if k.endswith("_date")]
        assert dates and all(len(v) == 10 and v[4] == "-" and v[7] == "-" for v in dates)


def test_degrees_are_heavy_tailed_without_duplicates(synth) -> None:
    _, out, _, _, _ = synth
    with gzip.open(out / "edges.csv.gz", "rt") as fh:
        edges = list(csv.reader(fh))[1:]
    assert len(set(map(tuple, edges))) == len(edges)
    assert all(s != d for s, _, d in edges)
    degree = Counter(n for s, _, d in edges for n in (s, d))
    values = np.array(list(degree.values()))
    assert values.max() >= 8 * np.median(values)


def test_gold_cypher_grounds_to_a_superset_of_the_gold_answers(synth) -> None:
    like, out, report, _, store = synth
    assert report.questions == 25
    ext = dict(store.query("SELECT id, ext_id FROM nodes"))
    schema = store.skb_schema()
    pipeline = Pipeline(store, settings_of(llm__offline=True, rerank__method="none", ask__log=False))
    by_text = {q.query: q for q in report.items}
    for row in _questions(out):
        q = by_text[row["query"]]
        gold = {str(g) for g in json.loads(row["answer_ids"])}
        assert 1 <= len(gold) <= 20
        # the gold Cypher parses and resolves completely against the SKB's schema
        resolved = resolve(parse_cypher(row["cypher"]), schema, mode="strict",
                           use_edge_types=True, target_type=row["target_type"])
        assert not resolved.dropped and len(resolved.triplets) == len(q.spec.triplets)
        result = pipeline.ask(row["query"], cypher=row["cypher"],
                              target_type=row["target_type"])
        assert result.grounding is not None, row["cypher"]
        level1 = {ext[n] for n, level in result.grounding.answers if level == 1}
        assert gold <= level1, (row["query"], row["cypher"])
        # and the whole relational set is what the oracle said it was
        anchors = {str(s.node) for s in q.spec.symbols.values() if s.node is not None}
        assert len(level1 - anchors) == q.relational
        # the answers are of the target type and carry the property the question names
        types = dict(store.query("SELECT ext_id, type FROM nodes"))
        assert {types[g] for g in gold} == {row["target_type"]}


def test_noisy_cypher_differs_from_gold_and_still_parses(synth) -> None:
    _, out, report, _, _ = synth
    rows = _questions(out)
    assert list(rows[0]) == list(QUESTION_COLUMNS)
    noisy = [r for r in rows if r["noise"]]
    assert noisy and report.noisy == len(noisy)
    for r in rows:
        if not r["noise"]:
            assert r["cypher_noisy"] == r["cypher"]
            continue
        kinds = r["noise"].split("+")
        assert 1 <= len(kinds) <= 2 and set(kinds) <= set(NOISE_KINDS)
        assert r["cypher_noisy"] != r["cypher"]
        graph = parse_cypher(r["cypher_noisy"])
        assert graph.target == "y"


def test_all_noise_kinds_occur(tmp_path: Path) -> None:
    report = generate(tmp_path / "n", like="prime", nodes=800, edges=6000, questions=60,
                      seed=11, noise=1.0)
    assert report.noisy == report.questions == 60
    seen = Counter(k for q in report.items for k in q.noise.split("+"))
    assert set(seen) == set(NOISE_KINDS)


def test_cli_help_and_run(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["synth", "--help"])
    assert result.exit_code == 0 and "benchmark" in result.output and "--noise" in result.output
    result = runner.invoke(cli, ["synth", str(tmp_path / "o"), "--like", "amazon",
                                 "--nodes", "600", "--questions", "5", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "600 nodes" in result.output and "5 questions" in result.output
    assert (tmp_path / "o" / "edges.csv.gz").exists()


@pytest.mark.parametrize("args, message", [
    (["--like", "wikidata"], "Invalid value for '--like'"),
    (["--noise", "1.5"], "Invalid value for '--noise'"),
    (["--nodes", "50"], "afr: error: --nodes must be at least 100"),
    (["--nodes", "0"], "Invalid value for '--nodes'"),
    (["--seed", "-1"], "Invalid value for '--seed'"),
])
def test_cli_bad_arguments(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["synth", str(tmp_path / "o"), *args])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["synth", str(tmp_path / "full")])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("afr: error:")
    assert "not empty" in result.output


def test_cli_warns_when_the_edges_do_not_fit(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["synth", str(tmp_path / "o"), "--nodes", "200",
                                      "--edges", "1000000", "--questions", "0"])
    assert result.exit_code == 0, result.output
    assert "afr: warning:" in result.output and "of 1,000,000 edges fit" in result.output
    with gzip.open(tmp_path / "o" / "edges.csv.gz", "rt") as fh:
        assert 100 < sum(1 for _ in fh) - 1 < 1_000_000
    assert not (tmp_path / "o" / "questions.csv").exists()
