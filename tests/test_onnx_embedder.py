"""The ONNX Runtime embedder: `onnx:DIR` specs, offline, remembered by the store.

The model is built here with onnx's helper API, no transformer and no download: a graph
that looks each token up in a table of vectors (a stand-in for a transformer's token
vectors), a word-level tokenizer and the embedder's JSON. The table's padding row is not
zero, so a pooling that forgot the attention mask would show; numpy computes what every
text's vector must be."""

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
from afr.embed.spec import spec_from_model_id
from afr.errors import EmbeddingError
from afr.load import load_skb_dir
from afr.store import open_store
from afr.vectors import embed_store
from afr.vectors.spark_embed import executor_spec

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

WORDS = ["[PAD]", "[UNK]", "graph", "attention", "networks", "learning", "deep", "image",
         "recognition", "paper", "author", "field", "vision", "residual"]
DIM, MAX_TOKENS = 6, 5
TABLE = np.random.default_rng(7).normal(0, 1, (len(WORDS), DIM)).astype(np.float32)


def token_graph(path: Path, inputs: tuple[str, ...] = ("input_ids", "attention_mask")) -> None:
    """An ONNX graph: token ids → their rows of TABLE (texts × tokens × DIM). It declares
    ``inputs`` (only input_ids is read), as an exported transformer declares its own."""
    from onnx import TensorProto, helper, numpy_helper

    declared = [helper.make_tensor_value_info(name, TensorProto.INT64, ["texts", "tokens"])
                for name in inputs]
    out = helper.make_tensor_value_info("token_vectors", TensorProto.FLOAT,
                                        ["texts", "tokens", DIM])
    gather = helper.make_node("Gather", ["table", "input_ids"], ["token_vectors"], axis=0)
    graph = helper.make_graph([gather], "tokens", declared, [out],
                              initializer=[numpy_helper.from_array(TABLE, "table")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what every supported onnxruntime reads
    onnx.save(model, str(path))


def word_tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)},
                                           unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(path))


def build_model(folder: Path, normalize: bool = True, **graph_kw: tuple[str, ...]) -> Path:
    from afr.embed.onnx_embed import OnnxModelConfig

    folder.mkdir(parents=True)
    token_graph(folder / "model.onnx", **graph_kw)
    word_tokenizer(folder / "tokenizer.json")
    OnnxModelConfig(dim=DIM, max_tokens=MAX_TOKENS, normalize=normalize,
                    source="test").write(folder / "afr_onnx.json")
    return folder


def expected(text: str, normalize: bool = True) -> np.ndarray:
    """What the embedder must give: the mean of the first MAX_TOKENS words' rows."""
    ids = [WORDS.index(w) if w in WORDS else 1 for w in text.lower().split()][:MAX_TOKENS]
    if not ids:
        return np.zeros(DIM, dtype=np.float32)
    vector = TABLE[ids].mean(axis=0)
    return vector / np.linalg.norm(vector) if normalize else vector


TEXTS = ["graph attention networks", "Deep residual image recognition vision", "paper",
         "", "zzz graph", "graph learning", "author field paper graph deep vision image"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("onnx") / "tiny-onnx")


@pytest.mark.parametrize("batch_size", [1, 2, 3, 64])
@pytest.mark.parametrize("sort_by_length", [True, False])
def test_vectors_are_masked_means_in_the_texts_order(model_dir: Path, batch_size: int,
                                                     sort_by_length: bool) -> None:
    from afr.embed.onnx_embed import OnnxEmbedder

    embedder = OnnxEmbedder(str(model_dir), batch_size=batch_size,
                            sort_by_length=sort_by_length)
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), DIM) and vectors.dtype == np.float32
    assert np.allclose(vectors, [expected(t) for t in TEXTS], atol=1e-5)


def test_long_texts_are_cut_at_max_tokens(model_dir: Path) -> None:
    embedder = make_embedder(f"onnx:{model_dir}")
    long, cut = "graph attention networks learning deep image vision", \
        "graph attention networks learning deep"
    vectors = embedder.embed([long, cut])
    assert np.allclose(vectors[0], vectors[1], atol=1e-6)
    assert not np.allclose(vectors[0], embedder.embed(["graph attention networks"])[0])


def test_normalised_unless_the_config_says_not(model_dir: Path, tmp_path: Path) -> None:
    vectors = make_embedder(f"onnx:{model_dir}").embed(TEXTS)
    assert np.allclose(np.linalg.norm(vectors[[0, 1, 2, 4, 5, 6]], axis=1), 1.0)
    raw = make_embedder(f"onnx:{build_model(tmp_path / 'raw', normalize=False)}").embed(TEXTS)
    assert np.allclose(raw, [expected(t, normalize=False) for t in TEXTS], atol=1e-5)
    assert not np.allclose(np.linalg.norm(raw[[0, 1]], axis=1), 1.0)


def test_no_tokens_give_zeros_and_no_texts_no_rows(model_dir: Path) -> None:
    embedder = make_embedder(f"onnx:{model_dir}")
    vectors = embedder.embed(["", "graph"])
    assert np.isfinite(vectors).all() and not vectors[0].any()
    assert embedder.embed([]).shape == (0, DIM)


def test_feeds_only_the_inputs_the_graph_declares(tmp_path: Path) -> None:
    three = build_model(tmp_path / "bert-like",
                        inputs=("input_ids", "attention_mask", "token_type_ids"))
    only_ids = build_model(tmp_path / "ids", inputs=("input_ids",))
    for folder in (three, only_ids):
        assert np.allclose(make_embedder(f"onnx:{folder}").embed(TEXTS),
                           [expected(t) for t in TEXTS], atol=1e-5)


def test_spec_round_trip_and_spark_executors(model_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = make_embedder(f"onnx:{model_dir}")
    assert embedder.model_id == f"onnx:{model_dir.resolve()}" and embedder.dim == DIM
    spec = spec_from_model_id(embedder.model_id, DIM)
    assert make_embedder(spec).model_id == embedder.model_id
    assert executor_spec(embedder) == spec  # Spark executors make their own
    monkeypatch.chdir(model_dir.parent)
    assert make_embedder("onnx:tiny-onnx").model_id == f"onnx:{model_dir.resolve()}"


def broken_folders(root: Path, model_dir: Path) -> dict[str, Path]:
    """Folders the embedder must refuse, each with one thing wrong."""
    import shutil

    folders = {}
    for name, damage in {"no-config": "afr_onnx.json", "no-tokenizer": "tokenizer.json",
                         "no-model": "model.onnx"}.items():
        folders[name] = Path(shutil.copytree(model_dir, root / name))
        (folders[name] / damage).unlink()
    folders["bad-json"] = Path(shutil.copytree(model_dir, root / "bad-json"))
    (folders["bad-json"] / "afr_onnx.json").write_text("{not json")
    folders["bad-pooling"] = Path(shutil.copytree(model_dir, root / "bad-pooling"))
    config = json.loads((model_dir / "afr_onnx.json").read_text())
    (folders["bad-pooling"] / "afr_onnx.json").write_text(json.dumps({**config,
                                                                      "pooling": "cls"}))
    folders["bad-model"] = Path(shutil.copytree(model_dir, root / "bad-model"))
    (folders["bad-model"] / "model.onnx").write_bytes(b"not a graph")
    return folders


def test_bad_folders_are_one_line(model_dir: Path, tmp_path: Path) -> None:
    specs = ["onnx:", "onnx:/nonexistent/model",
             *(f"onnx:{f}" for f in broken_folders(tmp_path, model_dir).values())]
    for spec in specs:
        with pytest.raises(EmbeddingError) as info:
            make_embedder(spec)
        assert "\n" not in str(info.value), spec


def test_missing_onnxruntime_names_the_extra(model_dir: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if not installed
    with pytest.raises(EmbeddingError, match=r"afr\[onnx\]"):
        make_embedder(f"onnx:{model_dir}")


def test_store_recreates_the_onnx_embedder(model_dir: Path, tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.duckdb")
    try:
        load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
        report = embed_store(store, make_embedder(f"onnx:{model_dir}"), progress=False)
        assert report.dim == DIM
        assert embedder_for_store(store).model_id == f"onnx:{model_dir.resolve()}"
    finally:
        store.close()


def test_cli_embeds_with_it_and_refuses_an_unknown_folder(model_dir: Path,
                                                          tmp_path: Path) -> None:
    runner, db = CliRunner(), str(tmp_path / "s.duckdb")

    def afr(*args: str):
        return runner.invoke(cli, ["--no-progress", "--db", db, *args])

    assert afr("load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    refused = afr("embed", "--model", f"onnx:{tmp_path}/nothing")
    lines = [line for line in refused.output.splitlines() if line.strip()]
    assert refused.exit_code != 0
    assert len(lines) == 1 and lines[0].startswith("afr: error: no ONNX model at")
    assert json.loads(afr("info", "--json").output)["embeddings"] == []
    embedded = afr("embed", "--model", f"onnx:{model_dir}")
    assert embedded.exit_code == 0, embedded.output
    info = json.loads(afr("info", "--json").output)
    assert {(e["variant"], e["model"], e["dim"]) for e in info["embeddings"]} == {
        ("doc", f"onnx:{model_dir.resolve()}", DIM),
        ("doc_rel", f"onnx:{model_dir.resolve()}", DIM)}


def test_the_session_runs_on_the_machines_cores_without_spinning(model_dir: Path) -> None:
    from afr.embed.onnx_embed import machine_cores

    options = make_embedder(f"onnx:{model_dir}")._session.get_session_options()
    assert options.intra_op_num_threads == machine_cores()
    # idle threads sleep: spinning ones burnt half the CPU on a shared machine
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
