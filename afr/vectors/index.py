"""Index building: embed the SKB's node documents into the store, incrementally.

`afr embed` fills ``emb_doc`` and ``emb_doc_rel``. The store records which embedder made
each variant; mixing models is refused, because similarities between vectors of
different models mean nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from afr.embed.base import Embedder, embed_texts
from afr.errors import EmbeddingError
from afr.progress import bar
from afr.store.base import VECTOR_VARIANTS, Store
from afr.vectors.documents import build_documents
from afr.vectors.memory import (
    matrix_path,
    new_vectors_version,
    open_matrix,
    vectors_changed,
    version_key,
    write_matrix_file,
)


@dataclass
class EmbedReport:
    model_id: str
    dim: int
    embedded: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def check_model(store: Store, variant: str, embedder: Embedder) -> tuple[str, int] | None:
    recorded = store.embedding_model(variant)
    if recorded and recorded[0] != embedder.model_id:
        raise EmbeddingError(
            f"the store's {variant!r} vectors were made by {recorded[0]} (dim {recorded[1]}), "
            f"not {embedder.model_id}; use the same embedder, or 'afr embed --rebuild'"
        )
    return recorded


def embed_store(
    store: Store,
    embedder: Embedder,
    *,
    variants: Sequence[str] = VECTOR_VARIANTS,
    batch_size: int = 256,
    rebuild: bool = False,
    progress: bool = True,
) -> EmbedReport:
    """Embed every node lacking a vector; each batch commits, so a rerun resumes."""
    started = time.perf_counter()
    store.require_skb()
    report = EmbedReport(embedder.model_id, 0)
    for variant in variants:
        if variant not in VECTOR_VARIANTS:
            raise EmbeddingError(f"unknown document variant {variant!r}; use doc or doc_rel")
        if rebuild:
            with store.transaction():
                store.drop_vectors(variant)
            vectors_changed(store)
        recorded = check_model(store, variant, embedder)
        missing: list[int] = []
        if recorded:
            missing = [int(r[0]) for r in store.run("embed/missing.sql", variant=variant)]
        else:
            missing = [int(r[0]) for r in store.run("embed/all_ids.sql")]
        done = 0
        two_hop_cache: dict = {}
        with bar(len(missing), f"embedding {variant}", enabled=progress, unit="node") as pbar:
            for start in range(0, len(missing), batch_size):
                ids = missing[start:start + batch_size]
                docs = build_documents(store, ids, variant, two_hop_cache=two_hop_cache)
                vectors = embed_texts(embedder, [docs.get(i, "") for i in ids])
                dim = vectors.shape[1]
                with store.transaction():
                    if recorded is None:
                        store.create_vector_table(variant, dim)
                        store.record_embedding_model(variant, embedder.model_id, dim)
                        recorded = (embedder.model_id, dim)
                    elif recorded[1] != dim:
                        raise EmbeddingError(
                            f"{embedder.model_id} returned {dim}-d vectors but the store's "
                            f"{variant!r} vectors have {recorded[1]} dimensions"
                        )
                    store.write_vectors(variant, np.asarray(ids, dtype=np.int64), vectors)
                    store.record_embedding_model(variant, embedder.model_id, dim)
                    new_vectors_version(store, variant)  # matrix files are stale now
                vectors_changed(store)  # in-memory search matrices are stale from now on
                done += len(ids)
                pbar.update(len(ids))
        if recorded:
            store.build_vector_index(variant)
            report.dim = recorded[1]
            _write_matrix(store, variant, recorded[1])
        report.embedded[variant] = done
        total, have = store.run("embed/count.sql", variant=variant)[0] if recorded else (0, 0)
        report.total[variant] = int(have)
    report.seconds = time.perf_counter() - started
    return report


def _write_matrix(store: Store, variant: str, dim: int) -> None:
    """The variant's memory-mapped search matrix next to a DuckDB store file, current
    with its vectors: cold processes map it instead of building it (afr.vectors.memory).
    Stores with approximate indexes or not in a file have none."""
    if store.builds_vector_indexes or matrix_path(store, variant) is None:
        return
    if store.meta_fact(version_key(variant)) is None:  # vectors embedded before versions
        with store.transaction():
            new_vectors_version(store, variant)
    version = store.meta_fact(version_key(variant))
    path = matrix_path(store, variant)
    if version is not None and path is not None and open_matrix(path, version, dim) is None:
        write_matrix_file(store, variant)
