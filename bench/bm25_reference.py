"""afr's BM25 against bm25s, the reference, on a loaded and indexed store's questions.

Each question is searched over the documents of its ``target_type`` (as ``afr eval
--replay`` gives the plain methods), top 20, scored with afr's metrics. Rows:

- ``afr bm25``: the store's lexical index with the [bm25] defaults (its recorded tokeniser
  must be the settings', as in every ask);
- ``afr bm25, min_idf 0``: the same, every query term scored;
- ``bm25s, afr's tokens``: bm25s tokenising itself with afr's word pattern, stopwords and
  stemmer (every term scored: it should equal the row above, up to ties);
- ``bm25s default + stemmer``: bm25s's own tokenisation (two-letter words and up, its
  English stopword list) with the Snowball stemmer afr uses — the reference issue 27 names;
- ``bm25s default, no stemmer``.

    python bench/bm25_reference.py STORE QUESTIONS.csv [QUESTIONS.csv ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

from afr.evaluate.metrics import mean_metrics, question_metrics
from afr.lexical import bm25, index_tokenizer
from afr.lexical.tokens import STOPWORDS
from afr.settings import BM25Settings
from afr.store import open_store
from afr.vectors.documents import build_documents

K = 20
SHOWN = ("hit@1", "hit@5", "hit@20", "recall@20", "mrr")


def read_questions(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        row["gold"] = json.loads(row["answer_ids"])
    return rows


class Reference:
    """bm25s over one node type's documents, with one tokenisation."""

    def __init__(self, texts: list[str], ext_ids: list[str], tokenize: Callable) -> None:
        self.ext_ids = ext_ids
        self.tokenize = tokenize
        self.model = bm25s.BM25(k1=1.2, b=0.75, method="lucene", dtype="float64")
        self.model.index(tokenize(texts), show_progress=False)

    def top(self, question: str) -> list[str]:
        terms = self.tokenize([question])[0]
        vocab = self.model.vocab_dict
        known = list(dict.fromkeys(vocab[t] for t in terms if t in vocab))
        scores = self.model.get_scores_from_ids(known) if known else np.zeros(
            len(self.ext_ids))
        order = sorted((i for i in np.flatnonzero(scores > 0)),
                       key=lambda i: (-scores[i], i))[:K]
        return [self.ext_ids[i] for i in order]


def tokenisations() -> dict[str, Callable]:
    stemmer = Stemmer.Stemmer("english")
    afr_stop = sorted(STOPWORDS)

    def afr_tokens(texts: list[str]) -> list[list[str]]:
        return bm25s.tokenize([t.casefold() for t in texts], token_pattern=r"(?u)\w+",
                              stopwords=afr_stop, stemmer=stemmer, return_ids=False,
                              show_progress=False)

    def default_stemmed(texts: list[str]) -> list[list[str]]:
        return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, return_ids=False,
                              show_progress=False)

    def default_plain(texts: list[str]) -> list[list[str]]:
        return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)

    return {"bm25s, afr's tokens": afr_tokens, "bm25s default + stemmer": default_stemmed,
            "bm25s default, no stemmer": default_plain}


def type_documents(store, node_type: str) -> tuple[list[str], list[str]]:
    rows = store.query("SELECT id, ext_id FROM nodes WHERE type = $t ORDER BY id",
                       {"t": node_type})
    docs = build_documents(store, [int(r[0]) for r in rows], "doc")
    return [docs.get(int(r[0]), "") for r in rows], [str(r[1]) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store")
    parser.add_argument("questions", nargs="+", type=Path)
    args = parser.parse_args()
    store = open_store(args.store, read_only=True)
    print(f"index tokeniser: {index_tokenizer(store).describe()}")
    ext = dict((int(a), str(b)) for a, b in store.query("SELECT id, ext_id FROM nodes"))
    sets = {p: read_questions(p) for p in args.questions}
    types = sorted({q["target_type"] for qs in sets.values() for q in qs})
    refs: dict[tuple[str, str], Reference] = {}
    for node_type in types:
        started = time.perf_counter()
        texts, ext_ids = type_documents(store, node_type)
        for name, tok in tokenisations().items():
            refs[(name, node_type)] = Reference(texts, ext_ids, tok)
        print(f"{node_type}: {len(texts):,} documents, bm25s indexed 3 ways in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    afr_rows = {"afr bm25": BM25Settings(), "afr bm25, min_idf 0": BM25Settings(min_idf=0)}
    for path, questions in sets.items():
        print(f"\n{path} ({len(questions)} questions)  " + "  ".join(SHOWN))
        ranked: dict[str, list[list[str]]] = {}
        for name, params in afr_rows.items():
            ranked[name] = [[ext[n] for n, _ in bm25(store, q["query"], params=params,
                                                     types=[q["target_type"]], k=K)]
                            for q in questions]
        for name in tokenisations():
            ranked[name] = [refs[(name, q["target_type"])].top(q["query"]) for q in questions]
        for name, lists in ranked.items():
            m = mean_metrics(question_metrics(r, q["gold"])
                             for r, q in zip(lists, questions, strict=True))
            print(f"  {name:28}" + "  ".join(f"{100 * m[k]:5.1f}" for k in SHOWN))
        same = sum(a == b for a, b in zip(ranked["afr bm25, min_idf 0"],
                                          ranked["bm25s, afr's tokens"], strict=True))
        print(f"  afr (min_idf 0) and bm25s with afr's tokens: the same top {K} for {same} "
              f"of {len(questions)} questions")
    store.close()


if __name__ == "__main__":
    main()
