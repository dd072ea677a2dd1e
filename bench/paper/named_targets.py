"""Questions whose Cypher names its target, as the paper's own MAG and AMAZON examples do.

The paper's Tables 24–25 show Cypher an LLM wrote with a title condition on the answer
(``… ->(y:paper) WHERE y.title CONTAINS "topological" RETURN y.title``). This script
takes a STaRK-format question set with a gold ``cypher`` column (``afr synth`` writes
one) and keeps the questions that end in a described property ("…, whose description
mentions an end-to-end failure analysis", "… is also characterised by …"), with two new
columns, each the gold Cypher with ``WHERE y.title CONTAINS "<word>"`` on its target:

- ``cypher_named``: the word is the longest of that closing phrase, as an LLM reading the
  question writes it (the issue's example: ``y.title CONTAINS "failure"``); it need not
  be in any answer's title;
- ``cypher_named_title``: the word is the longest of a gold answer's title, so the
  condition holds for that answer.

The gold answers stay the question's own. Replaying a column measures what a named
target does to the answers:

    python bench/paper/named_targets.py SYNTH_DIR OUT_DIR
    afr --db STORE eval OUT_DIR --replay cypher_named --reranker none --offline
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import sys
from pathlib import Path

# the phrases that open a question's closing, described property
PROPERTY = re.compile(r"(?:mentions|characterised by|described as having|praised or "
                      r"criticised for|described as)\s+(.+?)[.?]?$")
STOP = {"with", "from", "into", "over", "under", "towards", "beyond", "about", "using",
        "their", "between", "practical", "novel"}


def title_word(title: str) -> str | None:
    """The longest word of a title worth a CONTAINS (five letters or more, not filler)."""
    words = [w for w in re.findall(r"[A-Za-z]{5,}", title) if w.lower() not in STOP]
    return max(words, key=len).lower() if words else None


def question_word(query: str) -> str | None:
    """The word an LLM would put in a CONTAINS: the longest of the question's closing
    property phrase (None when the question has none)."""
    found = PROPERTY.search(query.strip())
    return title_word(found.group(1)) if found else None


def with_named_target(cypher: str, word: str) -> str | None:
    """``cypher`` with a title condition on its RETURN variable (None: no RETURN var)."""
    found = re.search(r"\bRETURN\s+([A-Za-z_]\w*)", cypher)
    if found is None:
        return None
    var = found.group(1)
    head, ret = cypher[:found.start()], cypher[found.start():]
    joiner = " AND " if re.search(r"\bWHERE\b", head) else " WHERE "
    return f"{head.rstrip()}{joiner}{var}.title CONTAINS \"{word}\" {ret}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("synth_dir", type=Path, help="an SKB directory with questions.csv "
                        "(columns id, query, answer_ids, cypher) and nodes.jsonl.gz")
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args(argv)
    names = {}
    with gzip.open(args.synth_dir / "nodes.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            node = json.loads(line)
            names[str(node["id"])] = node.get("name") or ""
    with open(args.synth_dir / "questions.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    kept = []
    for row in rows:
        gold = [g.strip() for g in row["answer_ids"].strip("[]").split(",") if g.strip()]
        in_title = next((w for w in (title_word(names.get(g, "")) for g in gold) if w), None)
        asked = question_word(row["query"])
        if asked is None or in_title is None:
            continue
        named = with_named_target(row["cypher"], asked)
        titled = with_named_target(row["cypher"], in_title)
        if named is not None and titled is not None:
            kept.append({**row, "cypher_named": named, "cypher_named_title": titled})
    if not kept:
        print("no question could be given a named target", file=sys.stderr)
        return 1
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with open(args.out_dir / "questions.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(kept[0]))
        writer.writeheader()
        writer.writerows(kept)
    print(f"wrote {args.out_dir / 'questions.csv'}: {len(kept)} of {len(rows)} questions "
          "with a named target (columns cypher_named, cypher_named_title)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
