#!/usr/bin/env bash
# Issue 44, item 3: a fork of runs/stratego_p2sro_fork.sh against plain
# P2SRO at equal episodes, 1,000 games a pair, seats alternated. Usage:
# bash runs/stratego_p2sro_fork_eval.sh NAME plays the fork's networks
# (population.npz at 239,385 episodes) and the run to 820,000 episodes at its
# round 93 (240,876 episodes, the mirror of commit 68269e0, the first round
# past the fork's budget) each against the random, heuristic, scout and
# probabilistic bots, and the two head to head. Refuses a fork that has not
# ended; resumes from the matches played (stratego_eval's matches.jsonl),
# kept in runs/stratego_p2sro_NAME_eval (commit it).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then
  echo "usage: $0 NAME" >&2
  exit 2
fi
name=$1
python=${PYTHON:-python}
budget=239385
fork=runs/stratego_p2sro_$name
episodes=$("$python" -c "import json, sys
lines = open(sys.argv[1]).read().splitlines()
print(json.loads(lines[-1])['episodes'] if lines else 0)" \
  "$fork/metrics.jsonl")
if [ "$episodes" -lt "$budget" ]; then
  echo "the fork $name is at $episodes episodes, not yet $budget" >&2
  exit 1
fi
populations=run_state/${name}_eval
mkdir -p "$populations"
[ -e "$populations/plain.npz" ] || git show \
  68269e0:runs/stratego_p2sro_cpu/population.npz > "$populations/plain.npz"
cp "$fork/population.npz" "$populations/$name.npz"
"$python" -m open_spiel_ext.examples.stratego_eval \
  --bots="$populations/plain.npz,$populations/$name.npz" \
  --against="$populations/$name.npz,random,heuristic,scout,probabilistic" \
  --games=1000 --output_dir="runs/stratego_p2sro_${name}_eval"
