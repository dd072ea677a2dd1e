"""The settings file: LLM endpoint, per-step models and effort, prompt folder; precedence
flags > environment > file > defaults; clear one-line errors for broken files."""

from __future__ import annotations

from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text

from afr.pipeline.ask import Pipeline
from afr.settings import SettingsError, resolve_settings
from afr.store import DuckDBStore


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("AFR_LLM_BASE_URL", "AFR_LLM_MODEL", "AFR_LLM_API_KEY", "OPENAI_API_KEY",
                 "AFR_LLM_TIMEOUT", "AFR_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_file_then_env_then_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cfg = write(tmp_path / "c.toml", '[llm]\nbase_url = "http://file/v1"\nmodel = "file-m"\n'
                'api_key_env = "MY_KEY"\ntimeout_s = 7\n')
    monkeypatch.setenv("AFR_CONFIG", str(cfg))
    monkeypatch.setenv("MY_KEY", "sekrit")
    resolved = resolve_settings()
    config = resolved.settings.llm
    assert (config.base_url, config.model, config.api_key, config.timeout_s) == (
        "http://file/v1", "file-m", "sekrit", 7.0)
    assert resolved.sources["llm.api_key"] == "env MY_KEY (llm.api_key_env)"
    assert resolved.sources["llm.model"] == f"file {cfg}"
    monkeypatch.setenv("AFR_LLM_MODEL", "env-m")
    resolved = resolve_settings()
    assert resolved.settings.llm.model == "env-m"
    assert resolved.sources["llm.model"] == "env AFR_LLM_MODEL"
    flagged = resolve_settings({"llm.model": "flag-m"})
    assert flagged.settings.llm.model == "flag-m"
    assert flagged.sources["llm.model"] == "flag --llm-model"
    assert flagged.sources["af.l_max"] == "default"


def test_lookup_order(tmp_path: Path) -> None:
    assert not resolve_settings().settings.llm.configured
    write(tmp_path / "xdg" / "afr" / "config.toml", '[llm]\nmodel = "user"\n')
    assert resolve_settings().settings.llm.model == "user"
    write(tmp_path / "afr.toml", '[llm]\nmodel = "local"\n')  # ./afr.toml wins over the user's
    assert resolve_settings().settings.llm.model == "local"


def test_every_section_can_be_set_in_the_file(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    cfg = write(tmp_path / "c.toml", '[af]\nl_max = 30\nranking = "paper"\n[bm25]\nk1 = 1.5\n'
                '[sage]\nk_seed = 4\n[kar]\nhops = 1\n[ranking]\ngraph = 3\n')
    monkeypatch.setenv("AFR_CONFIG", str(cfg))
    s = resolve_settings().settings
    assert (s.af.l_max, s.af.ranking, s.bm25.k1, s.sage.k_seed, s.kar.hops) == (
        30, "paper", 1.5, 4, 1)
    assert s.ranking.graph == 3.0 and isinstance(s.ranking.graph, float)


@pytest.mark.parametrize("text, message", [
    ("[llm\nmodel = 1", "settings file"),
    ('[llm]\nmodle = "x"\n', "unknown key llm.modle"),
    ('[llm]\ntimeout_s = "soon"\n', "llm.timeout_s has the wrong type"),
    ('[llm.steps.rewrite]\nmodel = "x"\n', "unknown step [llm.steps.rewrite]"),
    ('[ranking]\nk1 = 1.5\n', "ranking.k1 is now bm25.k1"),
    ('[af]\nl_max = 0\n', "af.l_max must be between 1 and 10000"),
    ('[llm.steps.rerank]\neffort = "huge"\n', "effort must be one of"),
    ('[server]\nport = 1\n', "unknown section [server]"),
])
def test_broken_files_are_one_line_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          text: str, message: str) -> None:
    monkeypatch.setenv("AFR_CONFIG", str(write(tmp_path / "bad.toml", text)))
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "x.duckdb"), "ask", "anything"])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_missing_afr_config_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AFR_CONFIG", str(tmp_path / "nope.toml"))
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "x.duckdb"), "ask", "anything"])
    assert result.exit_code != 0 and "AFR_CONFIG points to" in result.output


def test_bad_timeout_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFR_LLM_TIMEOUT", "soon")
    with pytest.raises(SettingsError, match="AFR_LLM_TIMEOUT must be a number"):
        resolve_settings()
    monkeypatch.setenv("AFR_LLM_TIMEOUT", "-3")
    with pytest.raises(SettingsError, match="AFR_LLM_TIMEOUT must be at least"):
        resolve_settings()


CYPHER = ("MATCH (y:exception)-[:module_defines_exception]-(m:module {name: 'calendar'}) "
          "RETURN y")


def responder(request: dict) -> Reply:
    text = prompt_text(request)
    if "Cypher" in text:
        return Reply(CYPHER)
    if "Rank all" in text:
        return Reply("1, 2")
    return Reply("exception")


def test_step_models_and_effort_reach_the_server(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path, demo_path: Path) -> None:
    with FakeOpenAI(responder) as server:
        cfg = write(tmp_path / "c.toml", f'[llm]\nbase_url = "{server.base_url}"\n'
                    'model = "main-model"\n[llm.steps.cypher]\nmodel = "cypher-model"\n'
                    'effort = "high"\n[llm.steps.rerank]\neffort = "minimal"\n')
        monkeypatch.setenv("AFR_CONFIG", str(cfg))
        store = DuckDBStore(demo_path)
        try:
            settings = resolve_settings({"rerank.method": "listwise", "ask.log": False,
                                         "llm.use_cache": False}).settings
            pipeline = Pipeline(store, settings)
            pipeline.ask("Which exceptions does the calendar module define?")
        finally:
            store.close()
        by_step = {}
        for request in server.chat_requests():
            text = prompt_text(request)
            step = "cypher" if "Cypher" in text else "rerank" if "Rank all" in text \
                else "target"
            by_step[step] = (request["model"], request.get("reasoning_effort"))
    assert by_step["cypher"] == ("cypher-model", "high")
    assert by_step["rerank"] == ("main-model", "minimal")
    assert by_step["target"] == ("main-model", "medium")


def test_cli_step_flags_beat_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      demo_path: Path) -> None:
    with FakeOpenAI(responder) as server:
        cfg = write(tmp_path / "c.toml", '[llm]\nmodel = "main-model"\n'
                    '[llm.steps.cypher]\nmodel = "cypher-model"\n')
        monkeypatch.setenv("AFR_CONFIG", str(cfg))
        result = CliRunner().invoke(cli, [
            "--db", str(demo_path), "ask", "Which exceptions does calendar define?",
            "--llm-url", server.base_url, "--step-model", "cypher=flag-model",
            "--effort", "target=low", "--reranker", "none", "--no-log", "--no-cache"])
        assert result.exit_code == 0, result.output
        models = {("Cypher" in prompt_text(r), r["model"], r.get("reasoning_effort"))
                  for r in server.chat_requests()}
    assert (True, "flag-model", "medium") in models
    assert (False, "main-model", "low") in models


def test_cli_bad_step_flag(tmp_path: Path, demo_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(demo_path), "ask", "q",
                                      "--step-model", "rewrite=x"])
    assert result.exit_code != 0 and "--step-model takes STEP=VALUE" in result.output


def test_broken_user_prompt_template_is_one_line_error(tmp_path: Path,
                                                        demo_path: Path) -> None:
    prompts = tmp_path / "prompts"
    write(prompts / "target_type.j2", "[user]\n{{ question | nosuchfilter }}\n")
    with FakeOpenAI(responder) as server:
        result = CliRunner().invoke(cli, [
            "--db", str(demo_path), "ask", "Which exceptions does calendar define?",
            "--llm-url", server.base_url, "--llm-model", "m", "--prompts", str(prompts),
            "--no-log"])
        assert not server.chat_requests()
    assert result.exit_code != 0
    assert "prompt template target_type.j2" in result.output and "Traceback" not in result.output


def test_cli_effort_flag_beats_the_file_at_its_default_value(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, demo_path: Path) -> None:
    # target=medium is the built-in default; a flag giving it must still beat the file's
    # "high" (the old merge took a value equal to the default for "not given").
    with FakeOpenAI(responder) as server:
        cfg = write(tmp_path / "c.toml", f'[llm]\nbase_url = "{server.base_url}"\n'
                    'model = "main-model"\n[llm.steps.target]\neffort = "high"\n')
        monkeypatch.setenv("AFR_CONFIG", str(cfg))
        result = CliRunner().invoke(cli, [
            "--db", str(demo_path), "ask", "Which exceptions does calendar define?",
            "--effort", "target=medium", "--reranker", "none", "--no-log", "--no-cache"])
        assert result.exit_code == 0, result.output
        efforts = {"Cypher" in prompt_text(r): r.get("reasoning_effort")
                   for r in server.chat_requests()}
    assert efforts == {False: "medium", True: "medium"}


def test_resolved_step_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Flags beat the file, which beats the defaults."""
    cfg = write(tmp_path / "c.toml", '[llm.steps.target]\neffort = "high"\nmodel = "file-m"\n'
                '[prompts]\ndir = "/from/file"\n')
    monkeypatch.setenv("AFR_CONFIG", str(cfg))
    plain = resolve_settings().settings
    given = resolve_settings({"prompts.dir": "/given", "llm.steps.target.effort": "medium",
                              "llm.steps.target.model": "flag-m"}).settings
    steps = plain.llm.steps
    assert (steps.target.effort, steps.cypher.effort, steps.rerank.effort) == (
        "high", "medium", "low")
    assert (steps.target.model, plain.prompts.dir) == ("file-m", "/from/file")
    assert (given.llm.steps.target.effort, given.llm.steps.target.model,
            given.prompts.dir) == ("medium", "flag-m", "/given")


def test_llm_fields_flags_then_environment_then_file(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    cfg = write(tmp_path / "c.toml", '[llm]\nmodel = "file-m"\nbase_url = "http://file/v1"\n')
    monkeypatch.setenv("AFR_CONFIG", str(cfg))
    monkeypatch.setenv("AFR_LLM_MODEL", "env-m")
    config = resolve_settings({"llm.base_url": "http://flag/v1"}).settings.llm
    assert (config.base_url, config.model) == ("http://flag/v1", "env-m")
