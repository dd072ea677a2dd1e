"""A transformer run by ONNX Runtime (optional extra: `pip install 'afr[onnx]'`): `onnx:DIR`.

DIR holds ``model.onnx`` (token vectors out of ``input_ids``, and ``attention_mask`` and
``token_type_ids`` where the graph takes them), ``tokenizer.json`` (a fast Hugging Face
tokenizer) and ``afr_onnx.json`` (what the embedder needs: max tokens, pooling, normalise,
dimension, source model). ``python -m afr.embed.onnx_export`` writes such a folder from a
sentence-transformers model, with int8 weights if asked. No torch at run time: the same
vectors as the source model at a fraction of its CPU time (``bench/real/EMBEDDERS.md``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from afr.errors import EmbeddingError

ONNX_HINT = "pip install 'afr[onnx]'"
MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE = "model.onnx", "tokenizer.json", "afr_onnx.json"
POOLINGS = ("mean",)


@dataclass(frozen=True)
class OnnxModelConfig:
    """``afr_onnx.json``: how token vectors become one text vector."""

    dim: int
    max_tokens: int
    pooling: str = "mean"
    normalize: bool = True
    pad_id: int = 0
    source: str = ""
    weights: str = "fp32"  # or "int8": what the exporter wrote, for people reading it

    @classmethod
    def read(cls, path: Path) -> OnnxModelConfig:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            config = cls(**{k: raw[k] for k in cls.__dataclass_fields__ if k in raw})
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise EmbeddingError(f"cannot read {str(path)!r}: {type(exc).__name__}") from None
        if config.pooling not in POOLINGS or config.max_tokens < 1 or config.dim < 1:
            raise EmbeddingError(f"{str(path)!r}: pooling must be one of {POOLINGS}, "
                                 "max_tokens and dim positive")
        return config

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.__dict__, indent=2) + "\n", encoding="utf-8")


def model_folder(path: str) -> Path:
    """The absolute folder of an ONNX model, checked for its three files."""
    folder = Path(path).expanduser().resolve()
    missing = [f for f in (MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE)
               if not (folder / f).is_file()]
    if missing:
        raise EmbeddingError(
            f"no ONNX model at {path!r} (a folder with {', '.join(missing)} missing; "
            "export one with: python -m afr.embed.onnx_export ST_MODEL_DIR OUT_DIR --int8)")
    return folder


def machine_cores() -> int:
    """The cores this process may run on (a container's or a Spark executor's share)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)


def mean_pool(tokens: np.ndarray, mask: np.ndarray, normalize: bool) -> np.ndarray:
    """One vector per text: the mean of its unmasked token vectors (zeros for a text
    without tokens, never NaN), scaled to length 1 if ``normalize``."""
    weights = mask[:, :, None].astype(np.float32)
    counts = np.maximum(weights.sum(axis=1), 1.0)
    vectors = (tokens * weights).sum(axis=1) / counts
    if normalize:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms > 0, norms, 1.0)
    return vectors.astype(np.float32)


class OnnxEmbedder:
    def __init__(self, path: str, batch_size: int = 32, sort_by_length: bool = True,
                 threads: int | None = None) -> None:
        folder = model_folder(path)
        self.config = OnnxModelConfig.read(folder / CONFIG_FILE)
        self._tokenizer, self._session = _load(folder, self.config, threads or machine_cores())
        self._inputs = {i.name for i in self._session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise EmbeddingError(f"{str(folder / MODEL_FILE)!r} takes no input_ids")
        # the absolute folder: `afr ask` run from elsewhere recreates the same embedder
        self.model_id = f"onnx:{folder}"
        self.batch_size = batch_size
        # texts of like length batched together: less padding for the transformer to run
        self.sort_by_length = sort_by_length

    @property
    def dim(self) -> int:
        return self.config.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i])) if self.sort_by_length \
            else list(range(len(ids)))
        for start in range(0, len(order), self.batch_size):
            chosen = order[start:start + self.batch_size]
            out[chosen] = self._embed_batch([ids[i] for i in chosen])
        return out

    def _embed_batch(self, ids: list[list[int]]) -> np.ndarray:
        width = max(1, max(len(row) for row in ids))
        input_ids = np.full((len(ids), width), self.config.pad_id, dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for row, tokens in enumerate(ids):
            input_ids[row, :len(tokens)] = tokens
            mask[row, :len(tokens)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask,
                "token_type_ids": np.zeros_like(input_ids)}
        tokens = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        if tokens.ndim != 3 or tokens.shape[2] != self.dim:
            raise EmbeddingError(f"{self.model_id} gave token vectors of shape {tokens.shape}, "
                                 f"not (texts, tokens, {self.dim})")
        return mean_pool(tokens, mask, self.config.normalize)


def _load(folder: Path, config: OnnxModelConfig, threads: int) -> tuple[Any, Any]:
    """(tokenizer truncating at the config's max tokens, inference session on ``threads``
    intra-op threads)."""
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError:
        raise EmbeddingError(f"onnxruntime and tokenizers are not installed: {ONNX_HINT}"
                             ) from None
    try:
        tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # threads that wait for work sleep instead of spinning: on a shared 2-core machine
        # (load 9) spinning burnt half the CPU time, 23-30 against 41-47 doc_rel nodes
        # per CPU-second, and ran 3-4 against 11-13 nodes/s
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: its warnings are not the user's
        session = ort.InferenceSession(str(folder / MODEL_FILE), options,
                                       providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - corrupt or foreign files
        raise EmbeddingError(f"cannot load the ONNX model at {str(folder)!r}: "
                             f"{type(exc).__name__}") from None
    tokenizer.no_padding()  # each batch is padded to its own longest text, here
    tokenizer.enable_truncation(max_length=config.max_tokens)
    return tokenizer, session
