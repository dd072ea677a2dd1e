"""Every command afr prints for the user to run, run as printed (issue 23, items 3 and 4).

Each scenario makes the CLI print hints — load's next step, demo's first question, info on
an empty store, eval's show/export and resume lines, the commands quoted in errors — and
each hint found in its output is run with shlex, from the same folder and environment, on
both stores. A hint "runs" when it reaches the store the user works on: the command it
names does its job there (the resume line resumes that very eval run).
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
import socket
from pathlib import Path

import pytest
from afr.cli import hints
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import toy_skb

from afr.demo import ensure_demo_store

ROOT = Path(__file__).resolve().parent.parent
AFR_VARS = ("AFR_DB", "AFR_SCHEMA", "AFR_CONFIG", "AFR_LLM_BASE_URL", "AFR_LLM_MODEL",
            "AFR_LLM_API_KEY", "AFR_LLM_TIMEOUT", "OPENAI_API_KEY")
# A hint at the end of a line ("…: afr embed --db x"), or quoted in a message ('afr demo').
_TAIL = re.compile(r": (afr \S.*)$")
_QUOTED = re.compile(r"'(afr [^']*)'|\"(afr [^\"]*)\"")
# A placeholder for the user to fill in (DIR, SOURCE): such a hint is not run.
_PLACEHOLDER = re.compile(r"\b[A-Z]{2,}\b")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in AFR_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_demo_store(tmp_path_factory.mktemp("demo") / "demo.duckdb", progress=False)


@pytest.fixture(params=["duckdb", "postgres"])
def store_args(request: pytest.FixtureRequest, tmp_path: Path) -> list[str]:
    """The global options naming a fresh store of each kind."""
    if request.param == "duckdb":
        return ["--db", str(tmp_path / "my store.duckdb")]  # a space: quoting matters
    url = request.getfixturevalue("pg_url")
    return ["--db", url, "--schema", request.getfixturevalue("pg_schema_name")]


def afr(*args: str):
    return CliRunner().invoke(cli, list(args))


def hints_in(text: str) -> list[str]:
    """The runnable commands a command's output names (placeholders skipped)."""
    found = []
    for line in text.splitlines():
        tail = _TAIL.search(line)
        if tail:
            found.append(tail.group(1))
        found += [a or b for a, b in _QUOTED.findall(line)]
    return [h for h in dict.fromkeys(found) if not _PLACEHOLDER.search(h)]


def run_hint(hint: str):
    words = shlex.split(hint)
    assert words[0] == "afr", hint
    return afr(*words[1:])


def test_load_embed_demo_and_info_hints_run(store_args: list[str], tmp_path: Path) -> None:
    # info on an empty store: the demo loads into this very store
    assert afr(*store_args, "init").exit_code == 0
    info = afr(*store_args, "info")
    [demo_hint] = hints_in(info.output)
    assert demo_hint.startswith("afr demo") and "--db" in demo_hint
    assert run_hint(demo_hint).exit_code == 0
    assert "python-stdlib" in afr(*store_args, "info").output

    # the demo's first question, asked where the demo is
    shown = afr(*store_args, "demo")
    [ask_hint] = hints_in(shown.output)
    asked = run_hint(ask_hint)
    assert asked.exit_code == 0 and "exception" in asked.stdout

    # load's next step, then a question, on a store of its own
    other = [*store_args[:-1], store_args[-1] + "2"] if "--schema" in store_args else \
        ["--db", str(tmp_path / "other store.duckdb")]
    loaded = afr(*other, "load", str(toy_skb(tmp_path / "skb")))
    assert loaded.exit_code == 0, loaded.output
    # asked before 'afr embed': the error names it, runnable here
    early = afr(*other, "ask", "papers citing Deep Graph Learning")
    assert early.exit_code != 0
    embed_hints = hints_in(loaded.output) + hints_in(early.output)
    assert embed_hints and all(h.startswith("afr embed") for h in embed_hints), embed_hints
    for hint in embed_hints:
        assert run_hint(hint).exit_code == 0
    assert afr(*other, "ask", "papers citing Deep Graph Learning").exit_code == 0


def test_eval_hints_run(store_args: list[str], demo_file: Path, tmp_path: Path) -> None:
    if "--schema" in store_args:
        assert afr(*store_args, "demo").exit_code == 0
    else:
        shutil.copy(demo_file, store_args[1])
    done = afr(*store_args, "--no-progress", "eval", "demo", "--limit", "2", "--offline")
    assert done.exit_code == 0, done.output
    found = hints_in(done.stderr)
    assert [h.split()[:3] for h in found] == [["afr", "eval", "show"],
                                             ["afr", "eval", "export"]], found
    shown = run_hint(found[0])
    assert shown.exit_code == 0 and "hit@1" in shown.output
    exported = run_hint(found[1])
    assert exported.exit_code == 0
    csv_name = shlex.split(found[1])[shlex.split(found[1]).index("--csv") + 1]
    assert (tmp_path / csv_name).read_text(encoding="utf-8").count("\n") == 3


def test_the_dead_llm_stop_hint_resumes_that_run(store_args: list[str], demo_file: Path,
                                                 tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if "--schema" in store_args:
        assert afr(*store_args, "demo").exit_code == 0
    else:
        shutil.copy(demo_file, store_args[1])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "llm.toml"
    config.write_text(f'[llm]\nbase_url = "http://127.0.0.1:{port}/v1"\nmodel = "m"\n'
                      'api_key = "k"\ntimeout_s = 2\n')
    monkeypatch.setenv("AFR_CONFIG", str(config))
    stopped = afr(*store_args, "--no-progress", "eval", "demo", "--limit", "2")
    assert stopped.exit_code == 3, stopped.output
    [resume] = hints_in(stopped.stderr)
    eval_id = resume.split("--resume ")[1].split()[0]
    resumed = run_hint(resume)
    # the same run, found in the same store: resumed (and stopped again: the LLM is down)
    assert f"eval {eval_id}: 2 questions (resuming" in resumed.stderr, resumed.output
    assert "no eval" not in resumed.output


def test_the_newcomer_loop_ends(demo_file: Path, tmp_path: Path) -> None:
    """afr init, then afr ask: the hint loads the demo into ./afr.duckdb (afr demo would
    fill the cache, which ./afr.duckdb hides), and the ask then answers."""
    assert afr("init").exit_code == 0
    question = "Which exceptions in the json module inherit from ValueError?"
    empty = afr("ask", question)
    assert empty.exit_code == 1
    [hint] = [h for h in hints_in(empty.output) if "demo" in h]
    assert shlex.split(hint) == ["afr", "demo", "--db", "afr.duckdb"]
    assert run_hint(hint).exit_code == 0
    assert afr("ask", question).exit_code == 0

    # the demo in the cache, while ./afr.duckdb exists: its question names the cache
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copy(demo_file, cache / "demo.duckdb")
    shown = afr("demo")
    assert "it was ready already" in shown.output
    [ask_hint] = hints_in(shown.output)
    assert str(cache / "demo.duckdb") in ask_hint
    assert "the bundled demo store" in run_hint(ask_hint).stderr
    # and without ./afr.duckdb the plain command finds it
    (tmp_path / "afr.duckdb").unlink()
    [plain] = hints_in(afr("demo").output)
    assert "--db" not in plain and run_hint(plain).exit_code == 0


def test_every_printed_hint_is_registered_and_exercised() -> None:
    """Each hint the CLI prints goes through hints.command with a registered kind, and
    every kind is printed by some command (so the scenarios above cover them all)."""
    used = set()
    for path in (ROOT / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "command" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                used.add(node.args[0].value)
    assert used == set(hints.HINTS)
    with pytest.raises(KeyError):
        hints.command("no.such.hint", "info")


def test_hints_quote_for_the_shell(tmp_path: Path) -> None:
    db = str(tmp_path / "it's here.duckdb")
    loaded = afr("--db", db, "load", str(toy_skb(tmp_path / "skb")))
    [hint] = hints_in(loaded.output)
    assert shlex.split(hint) == ["afr", "embed", "--db", db]
