#!/usr/bin/env bash
# Issue 70, item 3: LBS on the SmartBot blueprint beside SPARTA, the LBS
# paper's Table 2 extended by a row (benchmarks/lbs_paper.py on the first
# 100 decks of seed 0, LBS-1/4/16/full and LBS-1 with both players
# searching), at SPARTA's reference settings (10,000 rollouts a decision,
# deviating for a gain above 0.1: at 1,000 rollouts SPARTA's own gain on
# SmartBot is not told from zero), with the shipped SmartBot belief model
# (run it after runs/belief_campaign/ has ended). SPARTA's cell is the run
# `runs/hanabi_smartbot_search.sh reference` plays at the same settings,
# copied in rather than played again: this waits until that run has ended.
# Every cell resumes per game.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
output=runs/lbs_paper_smartbot
reference=runs/hanabi_smartbot_sparta/reference
sparta_cell=$output/full/smartbot/SPARTA
if [[ ! -f $sparta_cell/results.json ]]; then
  until [[ -f $reference/results.json ]]; do
    echo "$(date +%H:%M) waiting for SPARTA's reference run ($reference)"
    sleep 600
  done
  mkdir -p "$sparta_cell"
  cp "$reference/run.json" "$reference/games.jsonl" "$reference/results.json" \
    "$sparta_cell/"
fi
"$PYTHON" benchmarks/lbs_paper.py --preset=full --blueprints=smartbot \
  --games=100 --rollouts=10000 --threshold=0.1 --tables=blueprints \
  --workers=1 --output_dir="$output"
