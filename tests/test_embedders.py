"""Embedders: the built-in one, an OpenAI-compatible server, spec parsing."""

from __future__ import annotations

import random
import re
import shlex
import socket
import tomllib
import unicodedata
import zlib
from pathlib import Path

import numpy as np
import pytest
from fake_openai import FakeOpenAI, Reply

from afr.embed import HashingEmbedder, make_embedder
from afr.errors import EmbeddingError
from afr.resources import install_command

pytest_plugins = ("toy_fixtures",)  # toy_db


def test_hashing_is_deterministic_and_normalised() -> None:
    e = HashingEmbedder(128)
    a = e.embed(["Alzheimer's disease", "lung cancer", ""])
    b = HashingEmbedder(128).embed(["Alzheimer's disease", "lung cancer", ""])
    assert np.array_equal(a, b) and a.shape == (3, 128) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a[:2], axis=1), 1.0) and not a[2].any()


def test_hashing_tolerates_misspellings() -> None:
    v = HashingEmbedder().embed(["Alzheimer disease", "Alzheimers diseas", "asthma attack"])
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3


def test_openai_compatible_batches_and_dimension() -> None:
    with FakeOpenAI(embed_dim=24) as server:
        e = make_embedder("openai:fake-embed", base_url=server.base_url, api_key="k",
                          batch_size=100)
        vectors = e.embed([f"text {i}" for i in range(250)])
        assert vectors.shape == (250, 24) and e.dim == 24
        assert len([r for r in server.requests if r["_path"].endswith("/embeddings")]) == 3
        assert e.model_id == "openai:fake-embed"
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_openai_unreachable_is_one_line() -> None:
    e = make_embedder("openai:m", base_url="http://127.0.0.1:1/v1", api_key="k",
                      max_retries=1)
    e.sleep = lambda s: None
    with pytest.raises(EmbeddingError) as info:
        e.embed(["x"])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("spec", ["nonsense", "hash:abc", "openai:", "st:"])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(EmbeddingError):
        make_embedder(spec)


def test_st_missing_names_a_command_this_install_can_run() -> None:
    """The hint names the extra as this afr can get it: here an install of a source tree,
    editable (a developer's) or not (CI's `pip install .`) — `pip install 'afr[st]'` would
    fetch a package of that name from PyPI."""
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        with pytest.raises(EmbeddingError) as info:
            make_embedder("st:all-MiniLM-L6-v2")
        hint = str(info.value).split(": ", 1)[1]
        assert hint == install_command("st")
        _runnable_from_source(hint, "st")


def _runnable_from_source(hint: str, extra: str) -> None:
    """A `pip install [-e] PATH[EXTRA]` hint names a source tree that declares EXTRA."""
    words = [w for w in shlex.split(hint) if w != "-e"]
    assert words[:2] == ["pip", "install"] and len(words) == 3, hint
    path, _, rest = words[2].partition("[")
    assert rest == f"{extra}]"
    project = tomllib.loads((Path(path) / "pyproject.toml").read_text(encoding="utf-8"))
    assert extra in project["project"]["optional-dependencies"]


def test_install_command_for_each_kind_of_install(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    import afr.resources as resources

    source = tmp_path / "afr-src"
    source.mkdir()
    (source / "pyproject.toml").write_text("[project]\nname = 'afr'\n")
    monkeypatch.setattr(resources, "_SOURCE_ROOT", source)
    assert install_command("st") == f"pip install -e '{source}[st]'"  # before: 'afr[st]'
    monkeypatch.chdir(source)
    assert install_command("st") == "pip install -e '.[st]'"
    site = tmp_path / "site-packages"  # a wheel's afr: no pyproject.toml beside it
    site.mkdir()
    monkeypatch.setattr(resources, "_SOURCE_ROOT", site)
    monkeypatch.setattr(resources, "_installed_from_folder", lambda: None)
    assert install_command("plot") == "pip install 'afr[plot]'"
    monkeypatch.setattr(resources, "_installed_from_folder", lambda: source)
    assert install_command("plot") == "pip install '.[plot]'"  # `pip install .` from there


# -- failures: the LLM client's fast-fail rules, and the cause named (issue 23, item 12) --

def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _embedder(url: str, slept: list[float], **kw):
    e = make_embedder("openai:m", base_url=url, api_key="k", **kw)
    e.sleep = slept.append
    return e


def test_a_refused_port_gets_one_quick_retry_and_names_the_cause() -> None:
    slept: list[float] = []
    e = _embedder(closed_port_url(), slept, max_retries=4)
    with pytest.raises(EmbeddingError) as info:
        e.embed(["x"])
    # before: five tries, about 8 s of backoff, and "failed after 5 tries: APIConnectionError"
    assert "Connection refused" in str(info.value) and "\n" not in str(info.value)
    assert slept == [0.2]
    with pytest.raises(EmbeddingError, match="not asked again"):
        e.embed(["y"])  # down: no try, no wait
    assert slept == [0.2]


@pytest.mark.parametrize(("status", "words"), [
    (401, "not authorised (bad key); check AFR_EMBED_API_KEY"),
    (404, "not found (no such model); check the base URL (AFR_EMBED_BASE_URL) and the model "
          "name (m)")])
def test_access_failures_fail_at_once(status: int, words: str) -> None:
    error = "bad key" if status == 401 else "no such model"
    with FakeOpenAI(embed_reply=lambda r: Reply(status=status, error=error)) as server:
        slept: list[float] = []
        e = _embedder(server.base_url, slept)
        with pytest.raises(EmbeddingError, match=re.escape(words)):
            e.embed(["x"])
        with pytest.raises(EmbeddingError, match="not asked again"):
            e.embed(["x"])
        assert len(server.requests) == 1 and slept == []


def test_timeouts_in_a_row_end_it() -> None:
    with FakeOpenAI(embed_reply=lambda r: Reply(delay_s=2)) as server:
        slept: list[float] = []
        e = _embedder(server.base_url, slept, timeout_s=0.2, max_retries=4)
        with pytest.raises(EmbeddingError, match="timed out 2 times in a row"):
            e.embed(["x"])
        assert len(server.requests) == 2 and len(slept) == 1


def test_server_errors_are_retried_and_named() -> None:
    seen = {"n": 0}

    def flaky(request: dict) -> Reply | None:
        seen["n"] += 1
        return Reply(status=503, error="warming up") if seen["n"] <= 2 else None

    with FakeOpenAI(embed_reply=flaky) as server:
        slept: list[float] = []
        assert _embedder(server.base_url, slept).embed(["x"]).shape == (1, 16)
        assert len(slept) == 2
    failing = FakeOpenAI(embed_reply=lambda r: Reply(status=500, error="disk full"))
    with failing, pytest.raises(EmbeddingError,
                                match=re.escape("answered HTTP 500: disk full (after 2 tries)")):
        _embedder(failing.base_url, [], max_retries=1).embed(["x"])


def test_cli_embed_against_a_refused_port(toy_db: list[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from afr.cli.main import cli
    from click.testing import CliRunner
    from toy_stores import open_store

    from afr.embed import spec_for_store

    monkeypatch.setenv("AFR_EMBED_BASE_URL", closed_port_url())
    result = CliRunner().invoke(cli, [*toy_db, "embed", "--model", "openai:m", "--rebuild"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("afr: error: cannot reach the embedding service")
    assert "Connection refused" in result.stderr and len(result.stderr.splitlines()) == 1
    store = open_store(toy_db)
    try:
        assert spec_for_store(store) == "hash:384"  # the vectors it had are still there
    finally:
        store.close()


class _OneTextAtATime(HashingEmbedder):
    """The built-in embedder as it was before it embedded batches at once (kept here to
    check that the batched one gives the very same bits)."""

    @staticmethod
    def _old_hashes(text: str) -> list[int]:
        text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
        words = re.findall(r"\w+", text)
        hashes = [zlib.crc32(f"b:{a} {b}".encode()) for a, b in
                  zip(words, words[1:], strict=False)]
        for word in words:
            padded = f"<{word}>"
            feats = [f"w:{word}"]
            for n in (3, 4):
                feats += [f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1)]
            hashes += [zlib.crc32(f.encode("utf-8")) for f in feats]
        return hashes

    def embed(self, texts):  # type: ignore[override]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            hashes = np.array(self._old_hashes(text or ""), dtype=np.uint32)
            if not len(hashes):
                continue
            slots = (hashes & 0x7FFFFFFF) % self.dim
            signs = np.where(hashes & 0x80000000, 1.0, -1.0)
            counts = np.bincount(slots, weights=signs, minlength=self.dim)
            val = counts.astype(np.float32)
            with np.errstate(divide="ignore"):
                out[row] = np.sign(val) * (1.0 + np.log(np.abs(val) + 1e-12).clip(min=0))
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out


@pytest.mark.parametrize("dim", [16, 100, 384])
def test_batched_hashing_is_bit_identical(dim: int) -> None:
    rng = random.Random(dim)
    # (with characters whose normalising or lower-casing depends on neighbours or
    # changes length: final sigma, ligatures, dotted I, combining marks, odd spaces)
    alphabet = "abcdeéfghijklmnopqrstuvwxyzÄÖß'’ 0123456789-,.\t\nΣσﬁİ\u0301\u00a0\u3000\u2028"
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
             for _ in range(300)]
    texts = ["", " ", "''", None] + [
        " ".join(rng.choice(words) for _ in range(rng.choice([0, 1, 2, 5, 40, 400])))
        for _ in range(400)]
    rng.shuffle(texts)
    embedder = HashingEmbedder(dim)
    old = _OneTextAtATime(dim).embed(texts)
    for batch in (texts, texts[:7], texts[7:]):  # the second and third reuse memoised words
        new = embedder.embed(batch)
        assert new.dtype == np.float32
        want = old if batch is texts else old[:7] if len(batch) == 7 else old[7:]
        assert new.tobytes() == want.tobytes()
    assert HashingEmbedder(dim).embed([]).shape == (0, dim)


def test_hashing_is_thread_safe() -> None:
    """An evaluation embeds questions from several threads into one embedder, whose word
    memo grows as it goes: the vectors are those of a fresh embedder, one text at a time."""
    import threading

    from afr.embed.hashing import HashingEmbedder

    texts = [f"question {i} about word{i % 97} and thing{i * 7919 % 1000}" for i in range(600)]
    shared = HashingEmbedder(64)
    got: dict[int, np.ndarray] = {}

    def work(start: int) -> None:
        for i in range(start, len(texts), 4):
            got[i] = shared.embed([texts[i]])[0]

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fresh = HashingEmbedder(64)
    for i, text in enumerate(texts):
        assert np.array_equal(got[i], fresh.embed([text])[0]), i
