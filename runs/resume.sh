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

# Issue 69's free-label campaign (benchmarks/free_label_campaign.py): the
# 3x3x3 cube's random-walk-distance model to 540 training minutes on core 0,
# 7x7 Lights Out's pressed-set model on core 1, then the cube's baselines at
# equal training minutes (runs/free_label_baselines.sh); each campaign ships
# its model at its last stage if it beats the shipped one. (Issues 44-46's runs have ended; their commands are in
# runs/README.md.)
start 0 free_label_cube "runs=rubiks_cube:3:distance" \
  '"$PYTHON" benchmarks/free_label_campaign.py --runs=rubiks_cube:3:distance \
   --minutes=540 --ship --output_dir=run_state/free_label_campaign \
   --mirror_dir=runs/free_label_campaign'
start 1 free_label_lights_out "runs=lights_out:7:pressed|free_label_baselines|cayleypy_baseline|deepcubea_train" \
  '"$PYTHON" benchmarks/free_label_campaign.py --runs=lights_out:7:pressed \
   --minutes=150 --snapshots=10,30,60,90,150 --ship \
   --output_dir=run_state/free_label_campaign \
   --mirror_dir=runs/free_label_campaign \
   && bash runs/free_label_baselines.sh'
