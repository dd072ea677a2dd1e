#!/usr/bin/env bash
# Baseline of the real-text (WordNet) benchmark: built-in hash embedder, no reranker, DuckDB.
#
#   bash bench/real/run_baseline.sh [WORK_DIR]     (default /work/real; needs ~3 GB there)
#
# Builds the SKB, loads it, embeds and indexes it, then runs every method on dev and test
# separately. Each run is named SPLIT-METHOD; `afr --db WORK_DIR/real.duckdb eval show NAME`
# prints its table, `--json` the numbers (bench/real/BASELINE.md was filled from those).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${1:-/work/real}"
SKB="$WORK/skb"
DB="$WORK/real.duckdb"
mkdir -p "$WORK"

python "$HERE/build_skb.py" "$SKB"
if [ ! -e "$DB" ]; then
  afr --db "$DB" load "$SKB"
  afr --db "$DB" embed                 # doc + doc_rel vectors (hash-ngram-v1) and BM25 index
fi
python "$HERE/verify_questions.py" "$DB"   # every gold answer still matches its check query

run() {  # NAME ARGS...: one eval run, skipped when a finished run of that name exists
  local name="$1"; shift
  if afr --db "$DB" eval show "$name" >/dev/null 2>&1; then echo "have $name"; return; fi
  afr --no-progress --db "$DB" eval run "$@" --reranker none --name "$name"
}

for split in dev test; do
  Q="$SKB/$split.csv"
  # af with the gold Cypher replayed (no LLM); the plain methods side by side (they take
  # the question's target_type from the same column, as replay does)
  run "$split-gold"    "$Q" --replay cypher --methods bm25,hybrid,vss
  run "$split-noisy"   "$Q" --replay cypher_noisy
  run "$split-paper"   "$Q" --replay cypher --ranking paper
  run "$split-offline" "$Q" --offline --methods bm25,hybrid,vss
  run "$split-kar"     "$Q" --offline --method kar
done

# SAGE needs the similarity graph (slow at this size: exact neighbours of 265K nodes)
if [ ! -e "$WORK/.similarity-done" ]; then
  afr --db "$DB" index --similarity && touch "$WORK/.similarity-done"
fi
for split in dev test; do
  run "$split-sage" "$SKB/$split.csv" --offline --method sage
done

for split in dev test; do
  for m in gold noisy paper offline kar sage; do
    afr --db "$DB" eval show "$split-$m" --json > "$WORK/$split-$m.json"
  done
done
