"""What the commands print, said right (issue 23, items 8, 9, 10, 14 and 17).

`afr cypher --run --json` is JSON and `--sql` says what its SQL covers; `afr sql` runs one
statement and caps a table; usage errors are afr's one line; `--json` carries the notes the
text prints; `afr runs` names the method; the first ask says it builds the demo; the
answer table says what orders it; numbers, NaN and intervals print as what they are;
counts agree with their nouns; -q silences all but the result; bars only on a terminal.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from afr.cli.main import cli
from afr.cli.synth_commands import FEWEST_NODES
from click.testing import CliRunner
from skbutil import toy_skb

import afr.demo as demo_module
from afr.demo import ensure_demo_store
from afr.store import DuckDBStore

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "Which paper by Thomas Kipf is about graph learning?"
CITES = "MATCH (p:paper)-[:paper_cites_paper]->(q:paper {name: 'Semi-supervised GCN'}) RETURN p"
AFR_VARS = ("AFR_DB", "AFR_SCHEMA", "AFR_CONFIG", "AFR_LLM_BASE_URL", "AFR_LLM_MODEL",
            "AFR_LLM_API_KEY", "OPENAI_API_KEY")


def afr(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in AFR_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(params=["duckdb", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> list[str]:
    """The toy SKB, loaded and embedded, in a store of each kind: its global options."""
    if request.param == "duckdb":
        args = ["--db", str(tmp_path / "toy.duckdb")]
    else:
        args = ["--db", request.getfixturevalue("pg_url"), "--schema",
                request.getfixturevalue("pg_schema_name")]
    assert afr(*args, "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    assert afr(*args, "embed").exit_code == 0
    return args


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_demo_store(tmp_path_factory.mktemp("demo") / "demo.duckdb", progress=False)


# -- item 8: afr cypher and afr sql ------------------------------------------------------

def test_cypher_run_json_is_json(db: list[str]) -> None:
    result = afr(*db, "cypher", CITES, "--run", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["answers"] and data["answers"][0]["rank"] == 1
    assert data["total"] == len(data["answers"]) and data["final_level"] >= 1
    both = json.loads(afr(*db, "cypher", CITES, "--run", "--sql", "--json").stdout)
    assert both["sql"] and both["answers"] == data["answers"] and "lvl" in both["covers"]


def test_cypher_exact(db: list[str]) -> None:
    result = afr(*db, "cypher", CITES, "--run", "--exact")
    assert result.exit_code == 0, result.output
    assert "--exact" in afr("cypher", "--help").output


def test_cypher_sql_says_what_it_covers(demo_file: Path, tmp_path: Path) -> None:
    """The SQL lists every level; the note names the grounding's final level, and its
    rows up to that level are exactly the answers of --run."""
    db = ["--db", str(tmp_path / "demo.duckdb")]
    shutil.copy(demo_file, db[1])
    query = ("MATCH (e:exception)-[:exception_inherits_from_exception]->"
             "(b:exception {name: 'ValueError'}) RETURN e")
    shown = afr(*db, "cypher", query, "--sql")
    final = int(re.search(r"the grounding stops at level (\d+)", shown.stderr).group(1))
    assert f"the rows with lvl <= {final}" in shown.stderr
    rows = json.loads(afr(*db, "sql", shown.stdout, "--json").stdout)
    run = json.loads(afr(*db, "cypher", query, "--run", "--json", "--top", "1000").stdout)
    assert run["final_level"] == final
    assert max(r["lvl"] for r in rows) > final  # the SQL covers more than the answers
    assert sorted(r["id"] for r in rows if r["lvl"] <= final) == \
        sorted(a["node_id"] for a in run["answers"])


def test_sql_runs_one_statement(db: list[str]) -> None:
    result = afr(*db, "sql", "SELECT 1 AS a; SELECT 2 AS b")
    assert result.exit_code == 2
    assert result.output.strip() == ("afr: error: afr sql runs one statement at a time; the "
                                     "query holds 2: run each on its own")
    assert afr(*db, "sql", "SELECT ';' AS a; -- a comment; and more").exit_code == 0
    assert afr(*db, "sql", " ; ").exit_code == 2


def test_sql_limit(db: list[str]) -> None:
    query = "SELECT * FROM generate_series(1, 1500) AS t(i)"
    table = afr(*db, "sql", query)
    assert table.exit_code == 0
    assert len(table.stdout.splitlines()) == 2 + 1000
    assert "only the first 1,000 rows are shown" in table.stderr
    assert len(json.loads(afr(*db, "sql", query, "--json").stdout)) == 1500
    few = afr(*db, "sql", query, "--json", "--limit", "3")
    assert len(json.loads(few.stdout)) == 3 and "only the first 3 rows" in few.stderr
    every = afr(*db, "sql", query, "--limit", "0")
    assert len(every.stdout.splitlines()) == 2 + 1500 and "only the first" not in every.stderr
    exact = afr(*db, "sql", "SELECT * FROM generate_series(1, 1000) AS t(i)")
    assert "only the first" not in exact.stderr


# -- item 17: values as what they are -------------------------------------------------------

def test_nan_infinity_numerics_and_intervals(db: list[str]) -> None:
    pg = "--schema" in db
    nan = "'NaN'::float8" if pg else "'NaN'::DOUBLE"
    inf = "'Infinity'::float8" if pg else "'inf'::DOUBLE"
    query = (f"SELECT {nan} AS n, {inf} AS i, -{inf} AS m, "
             "CAST(23 AS NUMERIC) / 30 AS r, INTERVAL '1 day 2 hours' AS d, NULL AS z")
    table = afr(*db, "sql", query)
    assert table.exit_code == 0, table.output
    header, _, row = table.stdout.splitlines()
    cells = dict(zip(header.split(), re.split(r"\s{2,}", row.strip()), strict=False))
    assert cells["n"] == "NaN" and cells["i"] == "inf" and cells["m"] == "-inf"
    assert cells["r"] == "0.7667" and cells["d"] == "1 day, 2:00:00"
    assert row.endswith("2:00:00")  # NULL: an empty cell, the line's end
    data = json.loads(afr(*db, "sql", query, "--json").stdout)[0]
    assert data["n"] is None and data["z"] is None  # JSON has no NaN
    assert data["d"] == "P1DT2H" and math.isclose(data["r"], 23 / 30)


# -- item 9: usage errors in afr's form ----------------------------------------------------

@pytest.mark.parametrize("args", [["ask"], ["--bogus", "info"], ["sql", "x", "--max-width",
                                                                 "-1"],
                                  ["eval", "list", "--limit", "x"], ["nosuch"],
                                  ["init", "--dim", "3"]])
def test_usage_errors_are_one_afr_line(args: list[str]) -> None:
    result = afr(*args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("afr: error: "), result.stderr
    assert "Error:" not in result.stderr and "Usage:" not in result.stderr
    assert re.search(r"\(see 'afr[\w ]* --help'\)$", lines[0])


def test_usage_error_through_the_installed_script() -> None:
    done = subprocess.run([sys.executable, "-m", "afr", "ask"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "afr: error: Missing argument 'QUESTION' (see 'afr ask --help')\n"


# -- item 10: JSON notes, the method, unlogged runs ----------------------------------------

def test_ask_json_carries_the_notes_text_prints(demo_file: Path, tmp_path: Path) -> None:
    db = ["--db", str(tmp_path / "demo.duckdb")]
    shutil.copy(demo_file, db[1])
    question = "Which exceptions in the json module inherit from ValueError?"
    text = afr(*db, "ask", question)
    printed = [line.removeprefix("afr: note: ") for line in text.stderr.splitlines()
               if line.startswith("afr: note: ") and "offline mode" not in line]
    assert any("expanded scope" in n for n in printed)
    data = json.loads(afr(*db, "ask", question, "--json").stdout)
    assert all(n in data["notes"] for n in printed), (printed, data["notes"])
    assert "warnings" not in data and data["logged"] is True


def test_runs_name_the_method(db: list[str]) -> None:
    assert afr(*db, "ask", QUESTION, "--method", "bm25").exit_code == 0
    assert afr(*db, "ask", QUESTION).exit_code == 0
    listed = afr(*db, "runs")
    header, _, *rows = listed.stdout.splitlines()
    assert header.split()[:4] == ["run", "time", "method", "mode"]
    assert [r.split()[3] for r in rows] == ["af", "bm25"]
    items = json.loads(afr(*db, "runs", "--json").stdout)["runs"]
    assert [i["method"] for i in items] == ["af", "bm25"]


def test_an_unlogged_run_shows_no_id(db: list[str]) -> None:
    result = afr(*db, "ask", QUESTION, "--no-log")
    assert result.exit_code == 0
    summary = [line for line in result.stderr.splitlines() if " · target type " in line]
    assert summary and summary[0].endswith("· run not logged")
    data = json.loads(afr(*db, "ask", QUESTION, "--no-log", "--json").stdout)
    assert data["logged"] is False


# -- item 14: the first ask, and what orders the table -------------------------------------

def test_the_first_ask_says_it_builds_the_demo(demo_file: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    built = []

    def copy(path: Path, **kwargs) -> Path:
        built.append(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(demo_file, path)
        return path

    monkeypatch.setattr(demo_module, "ensure_demo_store", copy)
    first = afr("ask", "Which exceptions in the json module inherit from ValueError?")
    assert first.exit_code == 0 and built
    assert f"setting up the bundled demo store in {tmp_path / 'cache' / 'demo.duckdb'}" in \
        first.stderr
    again = afr("ask", "Which exceptions in the json module inherit from ValueError?")
    assert "setting up" not in again.stderr and len(built) == 1


def test_the_table_says_what_orders_it(db: list[str]) -> None:
    result = afr(*db, "ask", QUESTION)
    header = result.stdout.splitlines()[0].split()
    assert header == ["#", "answer", "type", "strand", "level", "cosine", "id"]
    assert "#: the order of the hybrid ranking (steps 6–7)" in result.stdout
    assert "cosine: the question's cosine similarity to the answer (one signal, not the " \
           "order)" in result.stdout
    paper = afr(*db, "ask", QUESTION, "--ranking", "paper", "--method", "vss")
    assert "#: the order of the vss ranking" in paper.stdout


# -- item 17: counts, info, -q, synth, bars, completion, .dockerignore -----------------------

def test_counts_agree_with_their_nouns(db: list[str]) -> None:
    one = afr(*db, "ask", QUESTION, "-k", "1")
    assert "\n1 answer · target type" in one.stderr
    cypher = afr(*db, "cypher", "MATCH (a:author)-[:author_writes_paper]->(p:paper "
                 "{name: 'Semi-supervised GCN'}) RETURN a", "--run", "-k", "1", "--l-max", "1")
    assert re.search(r"\n1 answer, final level 1, ", cypher.stderr), cypher.stderr
    rows = afr(*db, "sql", "SELECT 1 AS a")
    assert "(1 row)" in rows.stderr


def test_info_says_what_is_built(db: list[str], tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(afr(*db, "info", "--json").stdout)
    assert data["lexical"]["indexed"] == data["nodes"] == 8  # embed builds it too
    assert data["similarity"] is None
    assert data["llm"] == {"configured": False, "offline": True, "base_url": None,
                           "model": None, "timeout_s": 120.0, "api_key_set": False}
    text = afr(*db, "info").stdout
    assert "lexical:  BM25 index of 8 of 8 nodes" in text
    # a DuckDB file's BM25 reads the postings file 'afr embed' wrote; PostgreSQL's, SQL
    mapped = db[1].endswith(".duckdb")
    assert data["lexical"]["maps_postings"] is mapped
    assert (data["lexical"]["postings_file"] or "").endswith("lexical.afrlex") is mapped
    assert ("BM25 reads the mapped postings file" in text) is mapped
    assert "no similarity graph ('afr index --similarity' builds it)" in text
    assert "LLM:      none configured: offline mode" in text
    assert afr(*db, "index", "--similarity").exit_code == 0
    sim = json.loads(afr(*db, "info", "--json").stdout)["similarity"]
    assert sim["pairs"] > 0 and sim["stale"] is False and sim["knn"] == "exact"
    assert "k_cand 50 by exact kNN" in afr(*db, "info").stdout
    config = tmp_path / "lsh.toml"  # the graph says how it was built
    config.write_text('[sage]\nknn = "lsh"\n')
    monkeypatch.setenv("AFR_CONFIG", str(config))
    assert afr(*db, "index", "--similarity").exit_code == 0
    sim = json.loads(afr(*db, "info", "--json").stdout)["similarity"]
    assert re.fullmatch(r"lsh \(8 tables × \d+ bits, seed 0\)", sim["knn"]), sim["knn"]
    monkeypatch.delenv("AFR_CONFIG")
    monkeypatch.setenv("AFR_LLM_BASE_URL", "http://localhost:9/v1")
    monkeypatch.setenv("AFR_LLM_MODEL", "m")
    monkeypatch.setenv("AFR_LLM_API_KEY", "secret-key")
    text = afr(*db, "info").output
    assert "LLM:      m at http://localhost:9/v1 (timeout 120 s)" in text
    assert "secret-key" not in text + afr(*db, "info", "--json").output


def test_info_without_a_description(tmp_path: Path) -> None:
    skb = toy_skb(tmp_path / "skb")
    schema = json.loads((skb / "skb.json").read_text())
    del schema["description"]
    (skb / "skb.json").write_text(json.dumps(schema))
    assert afr("--db", "x.duckdb", "load", str(skb)).exit_code == 0
    line = [ln for ln in afr("--db", "x.duckdb", "info").stdout.splitlines()
            if ln.startswith("SKB:")][0]
    assert line == "SKB:      toy"


def test_quiet_prints_the_result_only(db: list[str]) -> None:
    for args in (["ask", QUESTION], ["sql", "SELECT 1 AS a"], ["cypher", CITES, "--run"],
                 ["runs"]):
        loud, quiet = afr(*db, *args), afr(*db, "-q", *args)
        assert loud.stderr and quiet.stderr == "", (args, quiet.stderr)
        assert quiet.stdout == loud.stdout or args[0] in ("ask", "runs")
    after = afr(*db, "ask", QUESTION, "-q")  # also after the command
    assert after.exit_code == 0 and after.stderr == "" and "Semi-supervised" in after.stdout
    failed = afr(*db, "-q", "sql", "SELEC x")
    assert failed.exit_code == 1 and failed.stderr.startswith("afr: error:")


def test_synth_names_its_minimum(tmp_path: Path) -> None:
    from afr.synth import fewest_nodes

    assert fewest_nodes() == FEWEST_NODES
    low = afr("synth", str(tmp_path / "s"), "--nodes", "50")
    assert low.exit_code == 2 and "at least 100 for --like prime" in low.stderr
    lower = afr("synth", str(tmp_path / "s"), "--nodes", "5")
    assert lower.exit_code == 2 and "x>=40" in lower.stderr
    assert "prime 100, mag 40, amazon 40" in " ".join(afr("synth", "--help").stdout.split())
    assert not (tmp_path / "s").exists()


def test_no_bars_on_a_pipe_unless_asked(tmp_path: Path, capfd) -> None:
    from afr.load import load_skb_dir

    skb = toy_skb(tmp_path / "skb")
    store = DuckDBStore(tmp_path / "lib.duckdb")
    try:
        load_skb_dir(store, skb)  # a library call, stderr not a terminal: no bars
        assert capfd.readouterr().err == ""
        load_skb_dir(store, skb, replace=True, progress=True)  # asked for: shown
        assert "reading and checking nodes" in capfd.readouterr().err
    finally:
        store.close()


def test_shell_completion_runs_as_documented() -> None:
    doc = (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8")
    assert 'eval "$(_AFR_COMPLETE=bash_source afr)"' in doc
    assert "_AFR_COMPLETE=zsh_source afr" in doc and "_AFR_COMPLETE=fish_source afr" in doc
    script = CliRunner().invoke(cli, [], prog_name="afr",
                                env={"_AFR_COMPLETE": "bash_source"})
    assert "_afr_completion" in script.output
    words = CliRunner().invoke(cli, [], prog_name="afr",
                               env={"_AFR_COMPLETE": "bash_complete", "COMP_WORDS": "afr ev",
                                    "COMP_CWORD": "1"})
    assert "plain,eval" in words.output


def test_dockerignore_keeps_the_context_to_what_the_image_copies() -> None:
    import fnmatch

    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]

    def ignored(path: str) -> bool:
        verdict = False
        for pattern in patterns:  # the last pattern that matches decides, as in Docker
            negated = pattern.startswith("!")
            bare = pattern.lstrip("!").removeprefix("**/")
            parts = path.split("/")
            if any(fnmatch.fnmatch(p, bare) for p in parts) or fnmatch.fnmatch(path, bare) \
                    or path.startswith(bare + "/"):
                verdict = not negated
        return verdict

    copied = re.findall(r"^COPY (.+) \S+$", (ROOT / "docker" / "Dockerfile").read_text(),
                        re.M)
    for sources in copied:
        for source in sources.split():
            assert not ignored(source), source
    for kept_out in (".venv/bin/python", "afr.duckdb", "afr/x.duckdb", "tests/test_x.py",
                     ".git/config", "afr/__pycache__/x.pyc", "bench/run.py",
                     "demo.duckdb.vectors/doc.npy"):
        assert ignored(kept_out), kept_out
    assert not ignored("afr/store/base.py") and not ignored("sql/ground/tree.sql")
