"""`afr synth`: STaRK-like synthetic SKBs and questions — a benchmark tool, not a data set.

``generate(out, like="prime", nodes=…, edges=…, questions=…, seed=…, noise=…)`` writes an
SKB directory in the skb-format (skb.json, nodes.jsonl.gz, edges.csv.gz, questions.csv,
and split/val.index and split/test.index: a seeded half of the questions each).
Each question has its gold answers (from afr's reference grounding plus a textual
property), its gold Cypher, and a noisy Cypher with LLM-like mistakes, so the retrieval
engine can be evaluated with no LLM at all (``afr eval … --replay cypher``).
"""

from __future__ import annotations

import csv
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from afr.errors import AfrError
from afr.progress import Phases
from afr.synth.graph import (
    SynthGraph,
    build_graph,
    min_nodes,
    write_edges,
    write_nodes,
    write_skb_json,
)
from afr.synth.questions import Question, QuestionMaker
from afr.synth.schemas import SHAPES

QUESTION_COLUMNS = ("id", "query", "answer_ids", "target_type", "cypher", "cypher_noisy",
                    "noise")


def fewest_nodes() -> dict[str, int]:
    """The fewest nodes ``generate`` takes, per schema shape (``like``)."""
    return {like: min_nodes(shape) for like, shape in SHAPES.items()}


@dataclass
class SynthReport:
    out: Path
    like: str
    nodes: int
    edges: int
    questions: int
    node_counts: dict[str, int] = field(default_factory=dict)
    edge_counts: dict[str, int] = field(default_factory=dict)
    noisy: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    items: list[Question] = field(default_factory=list, repr=False)  # the questions made


def write_questions(questions: list[Question], out: Path) -> None:
    with open(out / "questions.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(QUESTION_COLUMNS)
        for q in questions:
            writer.writerow([q.id, q.query, json.dumps(q.answer_ids), q.target_type, q.cypher,
                             q.cypher_noisy, q.noise])


#: The question splits ``afr synth`` writes (STaRK's layout: split/NAME.index, one id a
#: line): a seeded half each, so a weight is calibrated on one half (``afr index
#: --calibrate DIR --split val``) and measured on the other (``afr eval run DIR --split test``).
SPLIT_NAMES = ("val", "test")


def write_splits(questions: list[Question], out: Path, seed: int) -> None:
    """``split/val.index`` and ``split/test.index``: the questions' ids, shuffled by
    ``seed`` and halved (the odd one to test), each half in the questions' order."""
    ids = [q.id for q in questions]
    shuffled = ids[:]
    random.Random(seed).shuffle(shuffled)
    val = set(shuffled[:len(ids) // 2])
    (out / "split").mkdir(exist_ok=True)
    for name, wanted in zip(SPLIT_NAMES, (True, False), strict=True):
        lines = [str(i) for i in ids if (i in val) == wanted]
        (out / "split" / f"{name}.index").write_text("".join(f"{i}\n" for i in lines),
                                                       encoding="utf-8")


def generate(out: str | Path, *, like: str = "prime", nodes: int = 1000,
             edges: int | None = None, questions: int = 100, seed: int = 0,
             noise: float = 0.3, progress: bool = False, exist_ok: bool = False
             ) -> SynthReport:
    """Generate and write one synthetic SKB directory; returns what was written.

    ``exist_ok``: write into a non-empty directory, replacing the SKB files there.
    """
    if like not in SHAPES:
        raise AfrError(f"unknown shape {like!r}; use one of {', '.join(SHAPES)}")
    if not 0.0 <= noise <= 1.0:
        raise AfrError(f"--noise must be between 0 and 1, got {noise}")
    if seed < 0:
        raise AfrError(f"--seed must be 0 or more, got {seed}")
    if questions < 0:
        raise AfrError(f"--questions must be 0 or more, got {questions}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise AfrError(f"{out}: exists and is not a directory")
    if out.is_dir() and not exist_ok and any(out.iterdir()):
        raise AfrError(f"{out}: directory is not empty; choose a new one")
    shape = SHAPES[like]
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    graph: SynthGraph = build_graph(shape, nodes, edges, seed, progress=progress)
    seconds["graph"] = time.perf_counter() - started
    out.mkdir(parents=True, exist_ok=True)
    made: list[Question] = []
    with Phases(["nodes", "edges", "questions"], enabled=progress) as phases:
        phases.next("writing nodes")
        t = time.perf_counter()
        write_skb_json(graph, out)
        write_nodes(graph, out, progress=progress)
        seconds["nodes"] = time.perf_counter() - t
        phases.next("writing edges")
        t = time.perf_counter()
        write_edges(graph, out)
        seconds["edges"] = time.perf_counter() - t
        phases.next("making questions")
        t = time.perf_counter()
        if questions:
            made = QuestionMaker(graph, seed, noise).make(questions, progress=progress)
            write_questions(made, out)
            write_splits(made, out, seed)
        else:  # exist_ok: no stale questions of another SKB
            (out / "questions.csv").unlink(missing_ok=True)
            for name in SPLIT_NAMES:
                (out / "split" / f"{name}.index").unlink(missing_ok=True)
        seconds["questions"] = time.perf_counter() - t
    seconds["total"] = time.perf_counter() - started
    return SynthReport(
        out, like, graph.n_nodes, graph.n_edges, len(made),
        {b.spec.type: b.n for b in graph.blocks},
        {shape.edges[e.index].type: len(e.src) for e in graph.edges},
        sum(1 for q in made if q.noise), seconds, made,
    )


__all__ = ["QUESTION_COLUMNS", "SHAPES", "SynthReport", "fewest_nodes", "generate"]
