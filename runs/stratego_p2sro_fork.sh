#!/usr/bin/env bash
# Issue 44, item 3: a variant of the run to 820,000 episodes, forked from
# one of its checkpoints and compared with the run itself going on unchanged
# at equal episodes. Usage: bash runs/stratego_p2sro_fork.sh NAME ANCHOR_BOTS
# forks the run at its round 76 (179,385 episodes, population 9, the mirror
# of commit 5ff8098) with ANCHOR_BOTS heading the population
# (`--anchor_bots`), for 60,000 episodes:
#   anchored  heuristic,scout,probabilistic  (the bots it is measured against)
#   heldout   heuristic,scout  (the probabilistic bot held out)
# Resumes from run_state/stratego_p2sro_NAME, or on a new machine from its
# mirror in runs/stratego_p2sro_NAME (commit it);
# runs/stratego_p2sro_fork_eval.sh NAME measures it once it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
  echo "usage: $0 NAME ANCHOR_BOTS" >&2
  exit 2
fi
name=$1 anchors=$2
python=${PYTHON:-python}
source_dir=run_state/anchor_src
if [ ! -e "$source_dir/runs/stratego_p2sro_cpu/population/state.pkl" ]; then
  mkdir -p "$source_dir"
  git archive 5ff8098 runs/stratego_p2sro_cpu | tar -x -C "$source_dir"
fi
"$python" -m open_spiel_ext.examples.stratego_p2sro \
  --fork_from="$source_dir/runs/stratego_p2sro_cpu/population" \
  --anchor_bots="$anchors" \
  --max_episodes=239385 --max_minutes=100000 --workers=1 \
  --output_dir="run_state/stratego_p2sro_$name" \
  --mirror_dir="runs/stratego_p2sro_$name"
