#!/usr/bin/env bash
# Starts the long runs kept in runs/ (README.md there), one a core, in the
# background: each resumes from its checkpoint in run_state/, or on a new
# machine from its mirror here. Logs go to run_state/<run>.log. Run it from
# an environment where the package is installed (`pip install -c
# constraints.txt -e ".[test]"`); stop the runs with `kill -TERM`.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python}
mkdir -p run_state

start() {  # start CORE NAME COMMAND...: unless NAME already runs.
  local core=$1 name=$2
  shift 2
  if pgrep -f -- "--output_dir=run_state/$name( |$)" > /dev/null; then
    echo "$name is already running"
    return
  fi
  nohup taskset -c "$core" "$python" "$@" --output_dir="run_state/$name" \
    --mirror_dir="runs/$name" >> "run_state/$name.log" 2>&1 &
  echo "started $name on core $core (log: run_state/$name.log)"
}

# Issue 44: Barrage Stratego P2SRO to 820,000 episodes.
start 0 stratego_p2sro_cpu -m open_spiel_ext.examples.stratego_p2sro \
  --max_episodes=820000 --max_minutes=100000 --workers=1
# Issue 45: DeepCubeA's CPU campaign, the 3x3x3 cube then Lights Out 7x7.
start 1 deepcubea_campaign benchmarks/deepcubea_campaign.py --ship
