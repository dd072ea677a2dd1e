"""No silent skips (tests/conftest.py): every skip is listed at the end of a run, a run
without PostgreSQL says so in capitals, and a CI run fails on a skip that
tests/skips_allowed.txt does not allow. Checked on small suites run in a child pytest
with this conftest."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import allowed_skips

HERE = Path(__file__).parent
SUITE = '''
import pytest

def test_runs():
    assert True

def test_skips():
    pytest.skip("nothing to test here")

def test_without_a_server():
    pytest.skip("no PostgreSQL: install pgserver or set AFR_TEST_DATABASE_URL")
'''


def _run(tmp_path: Path, allowed: str, ci: bool) -> subprocess.CompletedProcess:
    for name in ("conftest.py", "pgutil.py"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "skips_allowed.txt").write_text(allowed, encoding="utf-8")
    (tmp_path / "test_small.py").write_text(SUITE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": "true"} if ci else {})
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--basetemp={tmp_path / 'base'}", "--rootdir", str(tmp_path),
                           "-c", os.devnull, str(tmp_path / "test_small.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True)


def test_a_developer_run_lists_its_skips_and_the_stores_it_did_not_test(tmp_path: Path
                                                                       ) -> None:
    done = _run(tmp_path, "", ci=False)
    assert done.returncode == 0, done.stdout
    assert "test_small.py::test_skips: nothing to test here" in done.stdout
    assert "POSTGRESQL WAS NOT TESTED: 1 tests skipped" in done.stdout


def test_ci_fails_on_a_skip_it_does_not_allow(tmp_path: Path) -> None:
    done = _run(tmp_path, "*test_small.py::test_without_a_server | the server test\n",
                ci=True)
    assert done.returncode == 1, done.stdout
    assert "not allowed in CI (tests/skips_allowed.txt): test_small.py::test_skips" \
        in done.stdout
    assert "test_small.py::test_without_a_server: no PostgreSQL" in done.stdout
    assert "not allowed in CI (tests/skips_allowed.txt): test_small.py::test_without_a" \
        not in done.stdout


def test_ci_passes_when_every_skip_is_allowed(tmp_path: Path) -> None:
    done = _run(tmp_path, "*test_small.py::test_skips | nothing to test\n"
                          "*::test_without_a_server | the server test\n", ci=True)
    assert done.returncode == 0, done.stdout
    assert "not allowed" not in done.stdout


def test_an_allowed_skip_needs_a_reason(tmp_path: Path) -> None:
    (tmp_path / "allowed.txt").write_text("tests/test_x.py::test_y\n", encoding="utf-8")
    with pytest.raises(ValueError, match="gives no reason"):
        allowed_skips(tmp_path / "allowed.txt")


def test_every_allowed_skip_names_a_test_that_exists() -> None:
    entries = allowed_skips()
    assert entries
    for pattern, _ in entries:
        path, _, name = pattern.partition("::")
        tree = ast.parse((HERE.parent / path).read_text(encoding="utf-8"))
        assert name in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}, \
            pattern
