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

# Issue 44: Barrage Stratego P2SRO to 820,000 episodes, then its final
# population against the bots (1,000 games a bot) and each member alone
# against them (benchmarks/stratego_p2sro_diagnosis.py's members part).
start 0 stratego_p2sro_cpu "output_dir=run_state/stratego_p2sro_cpu" \
  '"$PYTHON" -m open_spiel_ext.examples.stratego_p2sro --max_episodes=820000 \
   --max_minutes=100000 --workers=1 --output_dir=run_state/stratego_p2sro_cpu \
   --mirror_dir=runs/stratego_p2sro_cpu \
   && "$PYTHON" -m open_spiel_ext.examples.stratego_eval \
   --bots=runs/stratego_p2sro_cpu/population.npz \
   --against=random,heuristic,scout,probabilistic --games=1000 \
   --output_dir=runs/stratego_p2sro_final_eval \
   && "$PYTHON" benchmarks/stratego_p2sro_diagnosis.py \
   --run_dir=run_state/stratego_p2sro_cpu/population --parts=plateau,members \
   --games=100 --output_dir=runs/stratego_p2sro_final_members'
# Issue 45's CPU campaign on the 3x3x3 cube (ended at 180 training minutes:
# the model sits at its DAVI fixed point, docs/puzzles.md), the shipped cube
# and Lights Out models on 100 test instances each, issue 44's anchored
# variant and its evaluation beside plain P2SRO (runs/stratego_p2sro_fork.sh,
# runs/stratego_p2sro_fork_eval.sh), issue 46's reruns of the NXDO
# experiments, issue 44's variant with the probabilistic bot held out, then
# the members diagnosis of the run to 820,000 episodes so far (kept member
# by member, so that core 0's at the run's end plays only the newest ones).
start 1 core1 "deepcubea_campaign.py|deepcubea_eval.py|runs/nxdo_thesis.sh|stratego_p2sro_fork|--parts=members --games" \
  '"$PYTHON" benchmarks/deepcubea_campaign.py --ship --puzzles=rubiks_cube:3 \
   --minutes=180 --output_dir=run_state/deepcubea_campaign \
   --mirror_dir=runs/deepcubea_campaign \
   && "$PYTHON" benchmarks/deepcubea_eval.py --models=rubiks_cube_3 \
   --count=100 --settings=0.6:1000 --max_nodes=1000000 \
   --output_dir=runs/deepcubea_eval/rubiks_cube_3 \
   && "$PYTHON" benchmarks/deepcubea_eval.py --models=lights_out_7 \
   --count=100 --settings=0.2:1000 --max_nodes=1000000 \
   --output_dir=runs/deepcubea_eval/lights_out_7 \
   && { bash runs/stratego_p2sro_fork.sh anchored heuristic,scout,probabilistic \
   && bash runs/stratego_p2sro_fork_eval.sh anchored; bash runs/nxdo_thesis.sh; \
   bash runs/stratego_p2sro_fork.sh heldout heuristic,scout \
   && bash runs/stratego_p2sro_fork_eval.sh heldout; \
   "$PYTHON" benchmarks/stratego_p2sro_diagnosis.py \
   --run_dir=run_state/stratego_p2sro_cpu/population --parts=members --games=100 \
   --output_dir=runs/stratego_p2sro_final_members; }'
