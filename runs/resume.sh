#!/usr/bin/env bash
# Starts the long runs kept in runs/ (README.md there) that are not running
# yet, in the background, one queue a core: each run resumes from its
# checkpoint in run_state/, or on a new machine from what runs/ keeps. Logs
# go to run_state/<queue>.log. Run it where the package is installed with
# Kociemba's solver, which the cube's evaluation compares with (`pip install
# -c constraints.txt -e ".[test]" kociemba`); stop the runs with `kill -TERM`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHON=${PYTHON:-python}
mkdir -p run_state

start() {  # start CORE QUEUE PATTERN COMMAND: unless PATTERN already runs.
  local core=$1 queue=$2 pattern=$3 command=$4
  if pgrep -f -- "$pattern" > /dev/null; then
    echo "$queue is already running"
    return
  fi
  nohup taskset -c "$core" bash -c "$command" >> "run_state/$queue.log" 2>&1 &
  echo "started $queue on core $core (log: run_state/$queue.log)"
}

# Issue 69: the 3x3x3 cube's random-walk-distance model to 540 training
# minutes on core 0 (its last stage ships the model if it beats the shipped
# one), then the side-by-side table's part that searches with it; the
# table's other part has ended. When both have, `bash
# runs/learned_puzzle_solvers.sh` joins them into the table. Then, on core
# 0, issue 70's belief model of the SmartBot blueprint (6 hours, its mirror
# in runs/belief_campaign/). On core 1, issue 70's SPARTA on SmartBot at
# this project's settings, the rule bot's six- and seven-card belief models
# (runs/belief_hand_sizes.sh), then SPARTA at its reference settings.
# (Lights Out's campaign, the cube's baselines and issue 71's Stratego match
# spread have ended, as have issues 44-46's runs; their commands are in
# runs/README.md.)
start 0 free_label_cube \
  "runs=rubiks_cube:3:distance|learned_puzzle_solvers.sh cube_free_label|lbs_belief_campaign.py --blueprints=smartbot" \
  '"$PYTHON" benchmarks/free_label_campaign.py --runs=rubiks_cube:3:distance \
   --minutes=540 --ship --output_dir=run_state/free_label_campaign \
   --mirror_dir=runs/free_label_campaign &&
   bash runs/learned_puzzle_solvers.sh cube_free_label &&
   "$PYTHON" benchmarks/lbs_belief_campaign.py --blueprints=smartbot \
   --minutes=360 --ship --output_dir=run_state/belief_campaign \
   --mirror_dir=runs/belief_campaign'
start 1 hanabi_core1 \
  "hanabi_smartbot_search.sh|belief_hand_sizes.sh" \
  'bash runs/hanabi_smartbot_search.sh ours &&
   bash runs/belief_hand_sizes.sh &&
   bash runs/hanabi_smartbot_search.sh reference'
