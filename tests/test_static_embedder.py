"""The static (model2vec) embedder: `m2v:PATH` specs, offline, remembered by the store.

The model is built here from a word-level tokenizer and hand-made vectors (no download,
no transformer): each word's vector points along its topic, so the test knows which texts
must come out close."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import toy_skb

from afr.embed import embedder_for_store, make_embedder
from afr.errors import EmbeddingError
from afr.load import load_skb_dir
from afr.store import open_store
from afr.vectors import embed_store

pytest.importorskip("model2vec")

# word → topic axis; a topic's words share their main direction
TOPICS = {"graph": 0, "graphs": 0, "convolutional": 0, "attention": 0, "neighbourhoods": 0,
          "learning": 0, "networks": 1, "image": 2, "recognition": 2, "vision": 2,
          "residual": 2, "deep": 2, "paper": 3, "author": 3, "field": 3}
DIM = 8


def build_static_model(folder: Path) -> Path:
    """A model2vec folder: word-level tokenizer, one vector per word along its topic."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = ["[UNK]", "[PAD]", *TOPICS]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)},
                                           unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    rng = np.random.default_rng(27)
    vectors = rng.normal(0, 0.1, (len(words), DIM)).astype(np.float32)
    for i, word in enumerate(words):
        if word in TOPICS:
            vectors[i, TOPICS[word]] += 1.0
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_static_model(tmp_path_factory.mktemp("m2v") / "tiny-m2v")


def test_spec_makes_a_normalised_offline_embedder(model_dir: Path) -> None:
    embedder = make_embedder(f"m2v:{model_dir}")
    assert embedder.model_id == f"m2v:{model_dir.resolve()}" and embedder.dim == DIM
    vectors = embedder.embed(["graph attention networks", "Graph convolutional learning",
                              "deep residual image recognition", "", "zzz qqq"])
    assert vectors.shape == (5, DIM) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    assert np.isfinite(vectors).all() and not vectors[3].any()  # no tokens: zeros, not NaN
    assert embedder.embed([]).shape == (0, DIM)


def test_relative_path_is_recorded_absolute(model_dir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(model_dir.parent)
    assert make_embedder("m2v:tiny-m2v").model_id == f"m2v:{model_dir.resolve()}"


@pytest.mark.parametrize("spec", ["m2v:", "m2v:/nonexistent/model"])
def test_bad_paths_are_one_line(spec: str) -> None:
    with pytest.raises(EmbeddingError) as info:
        make_embedder(spec)
    assert "\n" not in str(info.value)


def test_missing_model2vec_names_the_extra(model_dir: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "model2vec", None)  # import fails as if not installed
    with pytest.raises(EmbeddingError, match=r"afr\[fast\]"):
        make_embedder(f"m2v:{model_dir}")


def test_store_recreates_the_static_embedder(model_dir: Path, tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.duckdb")
    try:
        load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
        report = embed_store(store, make_embedder(f"m2v:{model_dir}"), progress=False)
        assert report.dim == DIM
        again = embedder_for_store(store)
        assert again.model_id == f"m2v:{model_dir.resolve()}"
    finally:
        store.close()


def test_cli_embed_then_ask_uses_the_recorded_model(model_dir: Path, tmp_path: Path) -> None:
    runner, db = CliRunner(), str(tmp_path / "s.duckdb")

    def afr(*args: str):
        return runner.invoke(cli, ["--no-progress", "--db", db, *args],
                             catch_exceptions=False)

    assert afr("load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    embedded = afr("embed", "--model", f"m2v:{model_dir}")
    assert embedded.exit_code == 0, embedded.output
    info = json.loads(afr("info", "--json").output)
    assert {(e["variant"], e["model"], e["dim"]) for e in info["embeddings"]} == {
        ("doc", f"m2v:{model_dir.resolve()}", DIM), ("doc_rel", f"m2v:{model_dir.resolve()}", DIM)}
    asked = afr("ask", "Which paper by Thomas Kipf is about graph learning?", "--offline",
                "--json")
    assert asked.exit_code == 0, asked.output
    assert json.loads(asked.output)["answers"][0]["name"].startswith("Semi-supervised")


def test_cli_unknown_folder_is_one_line_and_embeds_nothing(tmp_path: Path) -> None:
    runner, db = CliRunner(), str(tmp_path / "s.duckdb")
    runner.invoke(cli, ["--db", db, "load", str(toy_skb(tmp_path / "skb"))])
    result = runner.invoke(cli, ["--db", db, "embed", "--model", f"m2v:{tmp_path}/nothing"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("afr: error: no static model at")
    info = json.loads(runner.invoke(cli, ["--db", db, "info", "--json"]).output)
    assert info["embeddings"] == []


def test_distill_refuses_a_missing_source(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from afr.embed.distill import main

    assert main([str(tmp_path / "no-model"), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("afr: error: no model folder") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_store_vocabulary_counts_words(tmp_path: Path) -> None:
    from afr.embed.distill import store_vocabulary

    store = open_store(tmp_path / "s.duckdb")
    try:
        load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    finally:
        store.close()
    words = store_vocabulary(str(tmp_path / "s.duckdb"), 3)
    assert words[0] == "graph" and len(words) == 3  # in 4 names and texts: the most often

