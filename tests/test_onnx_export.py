"""`python -m afr.embed.onnx_export`: a sentence-transformers folder → an `onnx:DIR` folder.

Tracing a transformer needs torch and transformers (the ``onnx-export`` extra, not in
``[test]``); here the trace is replaced by the tiny token graph of test_onnx_embedder, and
everything around it runs for real: reading the source's pooling and limits, ONNX
Runtime's int8 quantisation, the tokenizer copy, the config, the folder appearing only
complete."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_onnx_embedder import DIM, TEXTS, token_graph, word_tokenizer

from afr.embed import make_embedder, onnx_export
from afr.errors import EmbeddingError

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def st_folder(folder: Path, pooling: str = "mean", normalize: bool = True) -> Path:
    """The files of a sentence-transformers folder the exporter reads (no weights)."""
    (folder / "1_Pooling").mkdir(parents=True)
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": DIM, f"pooling_mode_{pooling}_tokens": True}))
    (folder / "config.json").write_text(json.dumps({"hidden_size": DIM}))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    word_tokenizer(folder / "tokenizer.json")
    return folder


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trace replaced by the tiny token graph (what torch would write)."""
    monkeypatch.setattr(onnx_export, "export_transformer",
                        lambda source, target: token_graph(target))


def run(*args: str | Path) -> int:
    return onnx_export.main([str(a) for a in args])


def test_source_config_reads_pooling_limits_and_normalisation(tmp_path: Path) -> None:
    config = onnx_export.source_config(st_folder(tmp_path / "st"), None)
    assert (config.dim, config.max_tokens, config.pooling, config.normalize) == \
        (DIM, 128, "mean", True)
    assert onnx_export.source_config(tmp_path / "st", 64).max_tokens == 64
    plain = onnx_export.source_config(st_folder(tmp_path / "plain", normalize=False), None)
    assert plain.normalize is False


@pytest.mark.usefixtures("traced")
def test_int8_export_quantises_and_embeds_like_fp32(tmp_path: Path) -> None:
    source = st_folder(tmp_path / "st")
    assert run(source, tmp_path / "fp32", "--max-tokens", "64") == 0
    assert run(source, tmp_path / "int8", "--int8") == 0
    assert sorted(p.name for p in (tmp_path / "int8").iterdir()) == \
        ["afr_onnx.json", "model.onnx", "tokenizer.json"]
    config = json.loads((tmp_path / "int8" / "afr_onnx.json").read_text())
    assert (config["weights"], config["max_tokens"], config["dim"]) == ("int8", 128, DIM)
    assert json.loads((tmp_path / "fp32" / "afr_onnx.json").read_text())["max_tokens"] == 64
    stored = {onnx.helper.tensor_dtype_to_np_dtype(t.data_type)
              for t in onnx.load(str(tmp_path / "int8" / "model.onnx")).graph.initializer}
    assert np.dtype(np.int8) in stored or np.dtype(np.uint8) in stored
    fp32 = make_embedder(f"onnx:{tmp_path / 'fp32'}").embed(TEXTS)
    int8 = make_embedder(f"onnx:{tmp_path / 'int8'}").embed(TEXTS)
    cosines = (fp32 * int8).sum(axis=1)[np.linalg.norm(fp32, axis=1) > 0]
    assert cosines.min() > 0.99 and not np.array_equal(fp32, int8)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_missing_source_is_one_line_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path / "no-model", tmp_path / "out", "--int8") == 1
    err = capsys.readouterr().err
    assert err.startswith("afr: error: no model folder") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.usefixtures("traced")
def test_refuses_a_full_out_folder_a_foreign_pooling_and_bad_limits(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = st_folder(tmp_path / "st")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    cls = st_folder(tmp_path / "cls", pooling="cls")
    for args in ([source, tmp_path / "full"], [cls, tmp_path / "out"],
                 [source, tmp_path / "out", "--max-tokens", "0"]):
        assert run(*args) == 1
        err = capsys.readouterr().err
        assert err.startswith("afr: error: ") and err.count("\n") == 1, err
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"
    assert not (tmp_path / "out").exists()


@pytest.mark.usefixtures("traced")
def test_a_failed_export_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(fp32: Path, int8: Path) -> None:
        raise EmbeddingError("quantisation failed")

    monkeypatch.setattr(onnx_export, "quantize_int8", fails)
    source = st_folder(tmp_path / "st")
    assert run(source, tmp_path / "models" / "out", "--int8") == 1
    assert list((tmp_path / "models").iterdir()) == []
    shutil.rmtree(tmp_path / "models")
