"""What the README and docs/ promise users, each checked by behaviour (not by the text that
promises it): every documented exit code comes from some command, usage errors are one
`afr: error:` line, HTTP 403 is a refused key, offline mode opens no socket, step 8 keeps
the retrieval order when reranking fails, JSON never holds NaN, `afr demo` sets the demo
up, `afr synth`'s shapes, an evaluation killed with SIGKILL resumes, and a test run
leaves no server or data behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from settings_util import settings_of
from skbutil import two_answer_type_store

from afr.pipeline.ask import Pipeline
from afr.store import DuckDBStore

QUESTION = "Which paper by Thomas Kipf is about graph learning?"
DEMO_QUESTION = "Which exceptions in the json module inherit from ValueError?"
LLM_VARS = ("AFR_LLM_BASE_URL", "AFR_LLM_MODEL", "AFR_LLM_API_KEY", "AFR_LLM_TIMEOUT",
            "OPENAI_API_KEY", "AFR_CONFIG")


@pytest.fixture(scope="module")
def toy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_answer_type_store(tmp_path_factory.mktemp("promises"))


@pytest.fixture
def toy_db(toy_path: Path, tmp_path: Path) -> str:
    path = tmp_path / "toy.duckdb"
    shutil.copy(toy_path, path)
    return str(path)


@pytest.fixture
def no_llm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No LLM from the environment or a settings file; returns a settings file path that
    a test may write and point AFR_CONFIG at."""
    for var in LLM_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "afr.toml"


def _use_llm(monkeypatch: pytest.MonkeyPatch, settings: Path, url: str) -> None:
    settings.write_text(f'[llm]\nbase_url = "{url}"\nmodel = "m"\napi_key = "k"\n'
                        "timeout_s = 2\nmax_retries = 0\n", encoding="utf-8")
    monkeypatch.setenv("AFR_CONFIG", str(settings))


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _afr(*args: str):
    return CliRunner().invoke(cli, list(args))


def _one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("afr: error:"), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


# -- exit codes ------------------------------------------------------------------------

def _exit_0(db: str, *_: object) -> object:
    return _afr("--db", db, "ask", QUESTION, "--offline")


def _exit_1(db: str, *_: object) -> object:
    result = _afr("--db", db, "sql", "SELECT * FROM no_such_table")
    _one_error_line(result)
    return result


def _exit_2(db: str, *_: object) -> object:
    result = _afr("--db", db, "ask", QUESTION, "--no-such-option")
    assert "--no-such-option" in _one_error_line(result) and "--help" in result.stderr
    return result


def _exit_3(db: str, monkeypatch, settings) -> object:
    _use_llm(monkeypatch, settings, _closed_port_url())
    result = _afr("--db", db, "ask", QUESTION, "--no-cache")
    assert "p3" in result.stdout  # answers printed all the same
    return result


def _exit_4(db: str, monkeypatch, settings) -> object:
    with FakeOpenAI(lambda r: Reply(status=403, error="forbidden")) as server:
        _use_llm(monkeypatch, settings, server.base_url)
        result = _afr("--db", db, "ask", QUESTION, "--no-cache")
        assert len(server.chat_requests()) == 1  # refused once: not asked again
    assert "not authorised" in result.stderr and "p3" in result.stdout
    return result


def _exit_4_eval(db: str, monkeypatch, settings) -> object:
    with FakeOpenAI(lambda r: Reply(status=401, error="bad key")) as server:
        _use_llm(monkeypatch, settings, server.base_url)
        toy = Path(db).parent / "skb"
        from skbutil import toy_skb

        return _afr("--db", db, "--no-progress", "eval", str(toy_skb(toy)),
                    "--max-llm-failures", "1")


def _exit_70(db: str, monkeypatch, settings) -> object:
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("afr.store.describe_store", broken)  # what `afr info` calls
    result = _afr("--db", db, "info")
    assert "afr: internal error: RuntimeError: a bug" in result.stderr
    assert "please report it" in result.stderr and "Traceback" not in result.output
    return result


def _exit_130(db: str, monkeypatch, settings) -> object:
    def interrupting(request: dict) -> Reply:
        # a real SIGINT to the main thread, as a terminal's Ctrl-C, while the ask waits
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        return Reply("paper")

    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with FakeOpenAI(interrupting) as server:
            _use_llm(monkeypatch, settings, server.base_url)
            result = _afr("--db", db, "ask", QUESTION, "--no-cache")
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert "afr: interrupted" in result.stderr
    return result


EXIT_CODES = {0: _exit_0, 1: _exit_1, 2: _exit_2, 3: _exit_3, 4: _exit_4, 70: _exit_70,
              130: _exit_130}


def documented_exit_codes() -> set[int]:
    """The codes the CLI documents (cli/exit_codes.py, the source of `--help`'s lists)."""
    import re

    from afr.cli import exit_codes

    return {int(c) for c in re.findall(r"(?:^|·)\s*(\d+)\s", exit_codes.__doc__, re.M)}


def test_the_exit_code_table_covers_every_documented_code() -> None:
    assert documented_exit_codes() == set(EXIT_CODES) == {0, 1, 2, 3, 4, 70, 130}


@pytest.mark.parametrize("code", sorted(EXIT_CODES))
def test_every_documented_exit_code_is_produced(code: int, toy_db: str, no_llm: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    result = EXIT_CODES[code](toy_db, monkeypatch, no_llm)
    assert result.exit_code == code, (result.exit_code, result.output[-800:])


def test_eval_exit_code_4_when_the_key_is_refused(toy_db: str, no_llm: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    result = _exit_4_eval(toy_db, monkeypatch, no_llm)
    assert result.exit_code == 4, result.output[-800:]
    assert "resume with: afr eval --resume" in result.stderr


# -- offline, step 8, JSON -------------------------------------------------------------

def test_offline_mode_opens_no_socket(toy_db: str, no_llm: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """With an LLM configured, --offline asks, evaluates and explains without opening a
    single connection (a DuckDB store needs none)."""
    _use_llm(monkeypatch, no_llm, "http://127.0.0.1:9/v1")
    tried: list[object] = []

    def refuse(self, address, *args):
        tried.append(address)
        raise OSError("offline mode opened a socket")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    qfile = Path(toy_db).parent / "q.csv"
    qfile.write_text(f'id,query,answer_ids\n1,{QUESTION},"[""p3""]"\n', encoding="utf-8")
    for args in (["ask", QUESTION, "--offline", "--explain"],
                 ["--no-progress", "eval", str(qfile), "--offline"]):
        result = _afr("--db", toy_db, *args)
        assert result.exit_code == 0, result.output[-800:]
    assert tried == []


def test_step_8_keeps_the_retrieval_order_when_reranking_fails(toy_path: Path) -> None:
    def rerank_down(request: dict) -> Reply:
        text = prompt_text(request)
        if "<entity" in text:
            return Reply(status=500, error="the reranker is down")
        if "Reply with the type name" in text:
            return Reply("paper")
        return Reply("MATCH (y:paper)-[:paper_has_field]-(f:field {name: 'graph learning'}) "
                     "RETURN y")

    store = DuckDBStore(toy_path)
    try:
        with FakeOpenAI(rerank_down) as server:
            config = settings_of(rerank__method="listwise", ask__k=5, ask__log=False,
                                 llm__use_cache=False,
                                 llm={"base_url": server.base_url, "model": "m",
                                      "api_key": "k", "max_retries": 0})
            result = Pipeline(store, config).ask(QUESTION)
    finally:
        store.close()
    retrieved = [c.node_id for c in result.retrieved.candidates]
    assert len(retrieved) == 3 and [a.node_id for a in result.answers] == retrieved  # all papers
    assert all(a.rerank_position is None for a in result.answers)
    assert result.status == "degraded" and not result.reranked
    assert any("step 8" in w and "answers keep the retrieval order" in w
               for w in result.warnings), result.warnings


def _strict(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"JSON holds {constant}")

    return json.loads(text, parse_constant=refuse)


def test_json_output_never_holds_nan(toy_db: str, no_llm: Path) -> None:
    rows = _strict(_afr("--db", toy_db, "sql", "SELECT CAST('NaN' AS DOUBLE) AS nan, "
                        "CAST('Infinity' AS DOUBLE) AS inf, CAST('-Infinity' AS DOUBLE) AS "
                        "ninf, 1.5 AS x", "--json").stdout)
    assert rows == [{"nan": None, "inf": None, "ninf": None, "x": 1.5}]
    assert _afr("--db", toy_db, "ask", QUESTION, "--offline").exit_code == 0
    qfile = Path(toy_db).parent / "q.csv"
    qfile.write_text(f'id,query,answer_ids\n1,{QUESTION},"[""p3""]"\n', encoding="utf-8")
    summary = _strict(_afr("--db", toy_db, "--no-progress", "eval", str(qfile), "--offline",
                           "--json").stdout)
    eval_id = summary["eval_id"]
    for args in (["info", "--json"], ["runs", "--json"], ["eval", "list", "--json"],
                 ["eval", "show", eval_id, "--json"], ["ask", QUESTION, "--offline", "--json"]):
        result = _afr("--db", toy_db, *args)
        assert result.exit_code == 0, (args, result.output[-500:])
        assert _strict(result.stdout), args


# -- afr demo, afr synth ---------------------------------------------------------------

def test_afr_demo_sets_up_the_demo_in_the_cache(tmp_path: Path, no_llm: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    result = _afr("--no-progress", "demo")
    assert result.exit_code == 0, result.output[-800:]
    demo = tmp_path / "cache" / "demo.duckdb"
    assert demo.exists()
    # read-only commands without ./afr.duckdb use it; ask says which store answered
    info = json.loads(_afr("info", "--json").stdout)
    assert info["skb"] == "python-stdlib" and info["nodes"] > 1000
    asked = _afr("ask", DEMO_QUESTION)
    assert asked.exit_code == 0 and "JSONDecodeError" in asked.output
    assert str(demo) in asked.output


SHAPES = {  # the README's description of each --like
    "prime": (10, 18, "every type"),
    "mag": ({"paper", "author", "institution", "field_of_study"}, None, ["paper"]),
    "amazon": ({"product", "brand", "category", "color"}, None, ["product"]),
}


@pytest.mark.parametrize("like", sorted(SHAPES))
def test_synth_shapes_are_the_documented_ones(like: str, tmp_path: Path) -> None:
    def synth(out: Path):
        return _afr("synth", str(out), "--like", like, "--nodes", "600", "--questions", "4",
                    "--seed", "3")

    assert synth(tmp_path / "a").exit_code == 0
    schema = json.loads((tmp_path / "a" / "skb.json").read_text(encoding="utf-8"))
    node_types, edge_types, answers = SHAPES[like]
    if isinstance(node_types, int):
        assert len(schema["node_types"]) == node_types
        assert len(schema["edge_types"]) == edge_types
        assert sorted(schema["candidate_types"]) == sorted(schema["node_types"])
    else:
        assert set(schema["node_types"]) == node_types
        assert schema["candidate_types"] == answers
    # the same arguments and seed give the same files
    assert synth(tmp_path / "b").exit_code == 0
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*")
                   if p.is_file())
    assert Path("split/test.index") in files
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


# -- an evaluation killed with SIGKILL resumes -------------------------------------------

KILLABLE_EVAL = """
import os, signal, sys
from pathlib import Path

from afr.pipeline.ask import Pipeline

marker, pause_at = Path(os.environ["AFR_TEST_MARKER"]), int(os.environ["AFR_TEST_PAUSE_AT"])
asked = {"n": 0}
ask = Pipeline.ask


def ask_or_pause(self, *args, **kwargs):
    asked["n"] += 1
    if asked["n"] == pause_at:  # the earlier questions are recorded: wait to be killed
        marker.write_text(str(asked["n"]))
        while True:
            signal.pause()
    return ask(self, *args, **kwargs)


Pipeline.ask = ask_or_pause
from afr.cli.main import main
sys.argv = ["afr", *sys.argv[1:]]
main()
"""


def test_an_evaluation_killed_with_sigkill_resumes(toy_db: str, tmp_path: Path,
                                                   no_llm: Path) -> None:
    qfile = tmp_path / "six.csv"
    qfile.write_text("id,query,answer_ids\n" + "".join(
        f'{i},{QUESTION} ({i}),"[""p3""]"\n' for i in range(6)), encoding="utf-8")
    marker = tmp_path / "paused"
    proc = subprocess.Popen([sys.executable, "-P", "-c", KILLABLE_EVAL, "--db", toy_db,
                             "--no-progress", "eval", str(qfile), "--offline", "--name",
                             "killed"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "AFR_TEST_MARKER": str(marker),
                                 "AFR_TEST_PAUSE_AT": "4"})
    try:
        deadline = time.monotonic() + 600  # waits for the pause: an event, not a duration
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the evaluation never reached its pause"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    store = DuckDBStore(toy_db, read_only=True)
    try:
        before = dict(store.query("SELECT question_id, run_id FROM eval_results"))
    finally:
        store.close()
    assert sorted(before) == ["0", "1", "2"]
    resumed = _afr("--db", toy_db, "--no-progress", "eval", "--resume", "killed", "--json")
    assert resumed.exit_code == 0, resumed.output[-800:]
    summary = json.loads(resumed.stdout)
    assert summary["status"] == "finished" and summary["done"] == 6
    store = DuckDBStore(toy_db, read_only=True)
    try:
        after = dict(store.query("SELECT question_id, run_id FROM eval_results"))
    finally:
        store.close()
    assert sorted(after) == [str(i) for i in range(6)]
    assert {q: after[q] for q in before} == before  # the finished ones were kept


# -- a test run leaves nothing behind ---------------------------------------------------

CHILD_SUITE = """
def test_uses_postgresql(pg_url):
    import psycopg
    with psycopg.connect(pg_url) as con:
        assert con.execute("SELECT 1").fetchone() == (1,)
"""


@pytest.mark.postgres
def test_a_test_run_leaves_no_server_or_data_behind(tmp_path: Path) -> None:
    """A pytest run with this conftest, its PostgreSQL test server started by pgserver,
    leaves no server process and no afr-pg-* directory once it ends."""
    if os.environ.get("AFR_TEST_DATABASE_URL"):
        pytest.skip("the child run would use the given server, not start one")
    here = Path(__file__).parent
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("conftest.py", "pgutil.py", "skips_allowed.txt"):
        shutil.copy(here / name, suite / name)
    (suite / "test_child.py").write_text(CHILD_SUITE, encoding="utf-8")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-c", os.devnull, "--rootdir", str(suite),
                           f"--basetemp={tmp_path / 'base'}", str(suite / "test_child.py")],
                          cwd=suite, capture_output=True, text=True,
                          env={**os.environ, "TMPDIR": str(tmp)})
    assert done.returncode == 0, done.stdout[-2000:]
    assert "1 passed" in done.stdout
    assert not list(tmp.glob("afr-pg-*")), list(tmp.iterdir())
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "postgres" in cmd and str(tmp) in cmd:
            alive.append(cmd)
    assert alive == []
