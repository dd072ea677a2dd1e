"""Index building: embed the SKB's node documents into the store, incrementally.

`afr embed` fills ``emb_doc`` and ``emb_doc_rel``. The store records which embedder made
each variant; mixing models is refused, because similarities between vectors of
different models mean nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from afr.embed.base import Embedder, embed_texts, known_dim
from afr.errors import EmbeddingError
from afr.progress import bar
from afr.store.base import VECTOR_VARIANTS, Store
from afr.vectors.documents import DocumentBuilder
from afr.vectors.memory import (
    matrix_path,
    new_vectors_version,
    open_matrix,
    vectors_changed,
    version_key,
    write_matrix_file,
)
from afr.vectors.spark_embed import embedded_frame, executor_spec


@dataclass
class EmbedReport:
    model_id: str
    dim: int
    embedded: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: Variants whose vectors a rebuild replaced (swapped in whole, at the end).
    rebuilt: list[str] = field(default_factory=list)
    #: Variants whose rebuild continued one an earlier run left unfinished.
    resumed: list[str] = field(default_factory=list)
    #: What could not be done, for the user (approximate indexes this role may not build).
    notes: list[str] = field(default_factory=list)


def shadow_variant(variant: str) -> str:
    """The variant a rebuild of ``variant`` fills (table ``emb_<variant>_rebuild``) while
    the old vectors keep answering; swapped in only when complete."""
    return f"{variant}_rebuild"


def _rebuild_key(variant: str) -> str:
    return f"rebuild_{variant}"


def pending_rebuild(store: Store, variant: str) -> tuple[str, int] | None:
    """(model id, dimensions) of an unfinished rebuild of ``variant``, or None."""
    value = store.get_meta(_rebuild_key(variant))
    if not value:
        return None
    state = json.loads(value)
    return state["model_id"], int(state["dim"])


def check_model(store: Store, variant: str, embedder: Embedder) -> tuple[str, int] | None:
    """The (model id, dimensions) the store's ``variant`` vectors were made with, after
    checking ``embedder`` makes the same kind: same model, same size."""
    recorded = store.embedding_model(variant)
    if recorded and not _same_model(recorded, embedder):
        raise EmbeddingError(
            f"the store's {variant!r} vectors were made by {recorded[0]} (dim {recorded[1]}), "
            f"not {_describe(embedder)}; use the same embedder, or 'afr embed --rebuild'"
        )
    return recorded


def _same_model(recorded: tuple[str, int], embedder: Embedder) -> bool:
    dim = known_dim(embedder)
    return recorded[0] == embedder.model_id and (dim is None or dim == recorded[1])


def _describe(embedder: Embedder) -> str:
    dim = known_dim(embedder)
    return embedder.model_id if dim is None else f"{embedder.model_id} (dim {dim})"


def embed_store(
    store: Store,
    embedder: Embedder,
    *,
    variants: Sequence[str] = VECTOR_VARIANTS,
    batch_size: int = 256,
    rebuild: bool = False,
    progress: bool | None = None,
) -> EmbedReport:
    """Embed every node lacking a vector; what is embedded is committed at least every
    ``COMMIT_SECONDS`` (and when the embedder fails), so a rerun resumes.

    ``rebuild`` embeds every node again into shadow tables while the old vectors keep
    answering; when all requested variants are complete they replace the old ones in one
    transaction. A failed or interrupted rebuild leaves the old vectors as they were, and
    a rerun with the same embedder continues the shadow tables where they stopped."""
    started = time.perf_counter()
    store.require_skb()
    for variant in variants:
        if variant not in VECTOR_VARIANTS:
            raise EmbeddingError(f"unknown document variant {variant!r}; use doc or doc_rel")
    report = EmbedReport(embedder.model_id, 0)
    filled: dict[str, tuple[str, int] | None] = {}
    for variant in variants:
        if rebuild:
            target = shadow_variant(variant)
            recorded = pending_rebuild(store, variant)
            if recorded and _same_model(recorded, embedder):
                report.resumed.append(variant)
            else:  # nothing to continue, or another embedder's: start afresh
                with store.transaction():
                    store.drop_vectors(target)
                    store.delete_meta_value(_rebuild_key(variant))
                recorded = None
        else:
            target = variant
            recorded = check_model(store, variant, embedder)
        done, recorded = _fill(store, embedder, variant, target, recorded,
                               batch_size=batch_size, progress=progress)
        report.embedded[variant] = done
        filled[variant] = recorded
        if recorded:
            report.notes += store.build_vector_index(target, recorded[1])
            report.dim = recorded[1]
    if rebuild:
        _swap_in(store, embedder, {v: r for v, r in filled.items() if r})
        report.rebuilt = [v for v, r in filled.items() if r]
    for variant, recorded in filled.items():
        total, have = store.run("embed/count.sql", variant=variant)[0] if recorded else (0, 0)
        report.total[variant] = int(have)
        if recorded:
            _write_matrix(store, variant, recorded[1])
    report.seconds = time.perf_counter() - started
    return report


#: Nodes whose documents are built together: set-based reads of nodes and relations cost
#: per statement, so they read many nodes at once, whatever the embedder's batch size.
DOCUMENT_CHUNK = 4096
#: Embedded vectors are written (one transaction) at least this often, and after each
#: chunk: a slow embedder commits every batch; the fast built-in one does not pay a
#: commit per batch.
COMMIT_SECONDS = 1.0


def _fill(store: Store, embedder: Embedder, variant: str, target: str,
          recorded: tuple[str, int] | None, *, batch_size: int, progress: bool
          ) -> tuple[int, tuple[str, int] | None]:
    """Embed the nodes missing from ``target`` (``variant`` or its shadow) batch by batch,
    committing at least every ``COMMIT_SECONDS``; when the embedder fails, what it did
    embed is committed first. The number embedded and the (model, dim) recorded."""
    shadow = target != variant
    if recorded:
        missing = [int(r[0]) for r in store.run("embed/missing.sql", variant=target)]
    else:
        missing = [int(r[0]) for r in store.run("embed/all_ids.sql")]
    # Writing vectors forgets the store's cached facts: read the labels once, here.
    builder = DocumentBuilder(store, variant)
    spec = executor_spec(embedder) if store.dataframe_session() is not None else None
    if spec is not None:
        return _fill_on_executors(store, embedder, spec, variant, target, recorded, missing,
                                  builder, batch_size=batch_size, progress=progress)
    pending_ids: list[np.ndarray] = []
    pending_vectors: list[np.ndarray] = []
    state = {"recorded": recorded, "done": 0, "flushed": time.perf_counter()}

    def flush() -> None:
        if not pending_ids:
            return
        ids = np.concatenate(pending_ids)
        vectors = np.concatenate(pending_vectors)
        pending_ids.clear()
        pending_vectors.clear()
        state["recorded"] = _write_batch(store, embedder, variant, target, state["recorded"],
                                         ids, vectors)
        if not shadow:
            vectors_changed(store)  # in-memory search matrices are stale from now on
        state["done"] += len(ids)
        state["flushed"] = time.perf_counter()

    chunk_size = max(batch_size, DOCUMENT_CHUNK)
    with bar(len(missing), f"embedding {variant}", enabled=progress, unit="node") as pbar:
        for chunk_start in range(0, len(missing), chunk_size):
            chunk = missing[chunk_start:chunk_start + chunk_size]
            docs = builder.build(chunk)
            for start in range(0, len(chunk), batch_size):
                ids = chunk[start:start + batch_size]
                try:
                    vectors = embed_texts(embedder, [docs.get(i, "") for i in ids])
                    _check_dim(embedder, variant, state["recorded"] or (
                        (embedder.model_id, pending_vectors[0].shape[1]) if pending_vectors
                        else None), vectors.shape[1])
                except BaseException:
                    flush()  # keep what was embedded: a rerun continues from there
                    raise
                pending_ids.append(np.asarray(ids, dtype=np.int64))
                pending_vectors.append(vectors)
                if time.perf_counter() - state["flushed"] >= COMMIT_SECONDS:
                    flush()
                pbar.update(len(ids))
            flush()
    return state["done"], state["recorded"]


def _fill_on_executors(store: Store, embedder: Embedder, spec: str, variant: str,
                       target: str, recorded: tuple[str, int] | None, missing: list[int],
                       builder: DocumentBuilder, *, batch_size: int, progress: bool
                       ) -> tuple[int, tuple[str, int] | None]:
    """``_fill`` on a store with a DataFrame engine (``afr.vectors.spark_embed``): each
    chunk of documents (the store's ``document_batch``) is embedded by the executors and
    written by them, one transaction per chunk, so an interrupted run keeps every finished
    chunk."""
    session = store.dataframe_session()
    dim = known_dim(embedder)
    assert dim is not None  # executor_spec sends only embedders of a known dimension
    _check_dim(embedder, variant, recorded, dim)
    done = 0
    with bar(len(missing), f"embedding {variant} (Spark)", enabled=progress,
             unit="node") as pbar:
        for start in range(0, len(missing), store.document_batch):
            chunk = missing[start:start + store.document_batch]
            docs = builder.build(chunk)
            frame = embedded_frame(session, spec, chunk, [docs.get(i, "") for i in chunk],
                                   batch_size=batch_size)
            with store.transaction():
                recorded = _prepare_target(store, embedder, variant, target, recorded, dim)
                store.append_frame(f"emb_{target}", frame)
                _record_written(store, embedder, variant, target, dim)
            if target == variant:
                vectors_changed(store)
            done += len(chunk)
            pbar.update(len(chunk))
    return done, recorded


def _check_dim(embedder: Embedder, variant: str, recorded: tuple[str, int] | None,
               dim: int) -> None:
    if recorded is not None and recorded[1] != dim:
        raise EmbeddingError(
            f"{embedder.model_id} returned {dim}-d vectors but the store's "
            f"{variant!r} vectors have {recorded[1]} dimensions"
        )


def _write_batch(store: Store, embedder: Embedder, variant: str, target: str,
                 recorded: tuple[str, int] | None, ids: np.ndarray, vectors: np.ndarray
                 ) -> tuple[str, int]:
    """Write one batch of vectors of ``target`` in one transaction (creating its table
    with the first); the (model, dim) recorded."""
    dim = vectors.shape[1]
    with store.transaction():
        recorded = _prepare_target(store, embedder, variant, target, recorded, dim)
        store.write_vectors(target, ids, vectors)
        _record_written(store, embedder, variant, target, dim)
    return recorded


def _prepare_target(store: Store, embedder: Embedder, variant: str, target: str,
                    recorded: tuple[str, int] | None, dim: int) -> tuple[str, int]:
    """Before the first vectors of ``target``: its table, and (a shadow) the record of
    the rebuild under way. The (model, dim) recorded."""
    if recorded is None:
        store.create_vector_table(target, dim)
        recorded = (embedder.model_id, dim)
        if target != variant:
            store.set_meta_value(_rebuild_key(variant), json.dumps(
                {"model_id": embedder.model_id, "dim": dim}))
    return recorded


def _record_written(store: Store, embedder: Embedder, variant: str, target: str,
                    dim: int) -> None:
    """After vectors of ``target`` were written: the model, and a new vectors version
    (matrix files are stale now); a shadow is recorded only when swapped in."""
    if target == variant:
        store.record_embedding_model(variant, embedder.model_id, dim)
        new_vectors_version(store, variant)


def _swap_in(store: Store, embedder: Embedder, complete: dict[str, tuple[str, int]]) -> None:
    """Replace the vectors of each variant by its complete shadow, all in one transaction:
    queries see the old vectors or the new ones, never a mix or none."""
    if not complete:
        return
    with store.transaction():
        for variant, (model_id, dim) in complete.items():
            store.replace_vectors(variant, shadow_variant(variant))
            store.record_embedding_model(variant, model_id, dim)
            store.delete_meta_value(_rebuild_key(variant))
            new_vectors_version(store, variant)
    vectors_changed(store)


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
