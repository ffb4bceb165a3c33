#!/usr/bin/env bash
# Issue 44, item 3: the anchored variant beside plain P2SRO at equal
# episodes from one checkpoint. It forks the run to 820,000 episodes at its
# round 76 (179,385 episodes, population 9, the mirror of commit 5ff8098)
# with the heuristic, scout and probabilistic bots heading the population
# (`--anchor_bots`), for 60,000 episodes; the control is that run itself,
# going on unchanged from the same checkpoint. Resumes from
# run_state/stratego_p2sro_anchored, or on a new machine from its mirror in
# runs/stratego_p2sro_anchored (commit it).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python}
source_dir=run_state/anchor_src
if [ ! -e "$source_dir/runs/stratego_p2sro_cpu/population/state.pkl" ]; then
  mkdir -p "$source_dir"
  git archive 5ff8098 runs/stratego_p2sro_cpu | tar -x -C "$source_dir"
fi
"$python" -m open_spiel_ext.examples.stratego_p2sro \
  --fork_from="$source_dir/runs/stratego_p2sro_cpu/population" \
  --anchor_bots=heuristic,scout,probabilistic \
  --max_episodes=239385 --max_minutes=100000 --workers=1 \
  --output_dir=run_state/stratego_p2sro_anchored \
  --mirror_dir=runs/stratego_p2sro_anchored
