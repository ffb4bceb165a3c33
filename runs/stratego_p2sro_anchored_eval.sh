#!/usr/bin/env bash
# Issue 44, item 3: the anchored variant's networks against plain P2SRO's
# population at equal episodes, 1,000 games a pair, seats alternated:
# runs/stratego_p2sro_anchored.sh's population at 239,385 episodes and the
# run to 820,000 episodes at its round 93 (240,876 episodes, the mirror of
# commit 68269e0, the first round past the fork's budget), each against the
# random, heuristic, scout and probabilistic bots, and the two head to head.
# Refuses to measure a fork that has not ended; resumes from the matches
# played (stratego_eval's matches.jsonl), kept in
# runs/stratego_p2sro_anchored_eval (commit it).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python}
budget=239385
fork=runs/stratego_p2sro_anchored
episodes=$("$python" -c "import json, sys
lines = open(sys.argv[1]).read().splitlines()
print(json.loads(lines[-1])['episodes'] if lines else 0)" \
  "$fork/metrics.jsonl")
if [ "$episodes" -lt "$budget" ]; then
  echo "the anchored fork is at $episodes episodes, not yet $budget" >&2
  exit 1
fi
populations=run_state/anchored_eval
mkdir -p "$populations"
[ -e "$populations/plain.npz" ] || git show \
  68269e0:runs/stratego_p2sro_cpu/population.npz > "$populations/plain.npz"
cp "$fork/population.npz" "$populations/anchored.npz"
"$python" -m open_spiel_ext.examples.stratego_eval \
  --bots="$populations/plain.npz,$populations/anchored.npz" \
  --against="$populations/anchored.npz,random,heuristic,scout,probabilistic" \
  --games=1000 --output_dir=runs/stratego_p2sro_anchored_eval
