"""Question sets: an SKB directory's questions.csv, or STaRK's QA files and splits."""

from __future__ import annotations

import ast
import csv
import gzip
import io
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from afr.errors import AfrError

SPLITS = ("train", "val", "test", "test-0.1", "human")


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    answer_ids: tuple[str, ...]
    # Columns beyond id,query,answer_ids (e.g. target_type, cypher, cypher_noisy from a
    # benchmark generator): `afr eval --replay COLUMN` reads its Cypher from here.
    extras: dict[str, str] = field(default_factory=dict, compare=False)


def _parse_ids(text: str, where: str) -> tuple[str, ...]:
    text = (text or "").strip()
    if not text:
        return ()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        try:  # STaRK writes Python list literals: [12, 7] or ['a', 'b']
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise AfrError(f"{where}: answer_ids is not a list: {text[:60]!r}") from None
    if isinstance(value, int | str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise AfrError(f"{where}: answer_ids is not a list: {text[:60]!r}")
    return tuple(str(v) for v in value)


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")  # type: ignore[return-value]
    return open(path, encoding="utf-8", newline="")


def read_questions_csv(path: Path) -> list[Question]:
    """id,query,answer_ids; extra columns are kept in ``Question.extras``."""
    out: list[Question] = []
    try:
        with _open_text(path) as fh:
            reader = csv.DictReader(fh)
            missing = {"id", "query", "answer_ids"} - set(reader.fieldnames or [])
            if missing:
                raise AfrError(f"{path.name}: missing column(s) {sorted(missing)}")
            for line, row in enumerate(reader, 2):
                extras = {k: v or "" for k, v in row.items()
                          if k not in ("id", "query", "answer_ids") and k is not None}
                out.append(Question(str(row["id"]).strip(), row["query"] or "",
                                    _parse_ids(row["answer_ids"], f"{path.name} line {line}"),
                                    extras))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise AfrError(f"{path}: cannot read questions ({exc})") from None
    return out


def find_question_file(source: Path, names: tuple[str, ...] = (
        "questions.csv", "questions.csv.gz", "stark_qa.csv")) -> Path:
    """The question file of ``source``: itself, or a known name in it (or, for STaRK's
    layout ``qa/<skb>/stark_qa/stark_qa.csv``, in its ``stark_qa`` folder)."""
    if source.is_file():
        return source
    if not source.exists():
        raise AfrError(f"{source}: no such file or directory")
    for folder in (source, source / "stark_qa"):
        for name in names:
            if (folder / name).is_file():
                return folder / name
    raise AfrError(f"{source}: no {' or '.join(names)} found")


def _split_dir(source: Path, question_file: Path) -> Path:
    # STaRK keeps split/ beside stark_qa/ (qa/<skb>/split/test.index).
    for base in (source if source.is_dir() else source.parent, question_file.parent,
                 question_file.parent.parent):
        if (base / "split").is_dir():
            return base / "split"
    return (source if source.is_dir() else source.parent) / "split"


def load_questions(source: Path, *, split: str | None = None, limit: int | None = None,
                   sample: int | None = None, seed: int = 0) -> list[Question]:
    """Questions from an SKB directory, a CSV file, or a STaRK QA directory with splits."""
    if split is not None and split not in SPLITS:
        raise AfrError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    if split == "human":
        questions = read_questions_csv(find_question_file(
            source, ("stark_qa_human_generated_eval.csv",)))
    else:
        qfile = find_question_file(source)
        questions = read_questions_csv(qfile)
        if split:
            index = _split_dir(source, qfile) / f"{split}.index"
            if not index.is_file():
                raise AfrError(f"split file {index} not found")
            wanted = [ln.strip() for ln in index.read_text().splitlines() if ln.strip()]
            by_id = {q.id: q for q in questions}
            unknown = [w for w in wanted if w not in by_id]
            if unknown:
                raise AfrError(f"{index.name}: {len(unknown)} ids not in the QA file, "
                               f"e.g. {unknown[:3]}")
            questions = [by_id[w] for w in wanted]
    seen: set[str] = set()
    dupes = [q.id for q in questions if q.id in seen or seen.add(q.id)]  # type: ignore[func-returns-value]
    if dupes:
        # results are stored per (run, question id): ids must tell questions apart
        raise AfrError(f"{source}: {len(dupes)} duplicate question id(s), e.g. {dupes[:3]}")
    if sample is not None and sample < len(questions):
        questions = random.Random(seed).sample(questions, sample)
    if limit is not None:
        questions = questions[:limit]
    return questions
