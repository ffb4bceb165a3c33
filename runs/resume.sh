#!/usr/bin/env bash
# Starts the long runs kept in runs/ (README.md there) that are not running
# yet, in the background, one queue a core: each run resumes from its
# checkpoint in run_state/, or on a new machine from what runs/ keeps. Logs
# go to run_state/<queue>.log. Run it where the package is installed
# (`pip install -c constraints.txt -e ".[test]"`); stop the runs with
# `kill -TERM`.
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

# Issue 70 on both cores. Core 0: the belief model of the SmartBot
# blueprint (3 hours, its mirror in runs/belief_campaign/; ended), LBS-16 and
# SPARTA on SmartBot timed side by side (runs/hanabi_smartbot_side_by_side.sh),
# LBS on SmartBot beside SPARTA (runs/hanabi_smartbot_lbs.sh), the rule bot's seven-card
# belief model, then the hand-size table with the new six- and seven-card
# models (runs/hanabi_hand_sizes.sh). Core 1: SPARTA on SmartBot at this project's
# settings, then at its reference settings (runs/hanabi_smartbot_search.sh),
# the hand-size table with the belief models shipped before the campaigns
# (runs/hanabi_hand_sizes.sh shipped: SPARTA's six-card cell takes about five
# hours), the six-card belief model (runs/belief_hand_sizes.sh), then LBS-16
# against that campaign's snapshots (runs/hanabi_hand_sizes.sh value
# six_cards; core 0's final table then finds it played). (Issue 69's runs, Lights Out's
# campaign, the cube's baselines and issue 71's Stratego match spread have
# ended, as have issues 44-46's runs; their commands are in runs/README.md.)
start 0 hanabi_core0 \
  "lbs_belief_campaign.py --blueprints=smartbot|hanabi_smartbot_side_by_side.sh|hanabi_smartbot_lbs.sh|belief_hand_sizes.sh seven_cards|hanabi_hand_sizes.sh$" \
  '"$PYTHON" benchmarks/lbs_belief_campaign.py --blueprints=smartbot \
   --minutes=180 --ship --output_dir=run_state/belief_campaign \
   --mirror_dir=runs/belief_campaign &&
   bash runs/hanabi_smartbot_side_by_side.sh &&
   bash runs/hanabi_smartbot_lbs.sh &&
   bash runs/belief_hand_sizes.sh seven_cards &&
   bash runs/hanabi_hand_sizes.sh'
start 1 hanabi_core1 \
  "hanabi_smartbot_search.sh|hanabi_hand_sizes.sh shipped|belief_hand_sizes.sh six_cards|hanabi_hand_sizes.sh value" \
  'bash runs/hanabi_smartbot_search.sh ours reference &&
   bash runs/hanabi_hand_sizes.sh shipped &&
   bash runs/belief_hand_sizes.sh six_cards &&
   bash runs/hanabi_hand_sizes.sh value six_cards'
