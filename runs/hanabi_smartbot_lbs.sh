#!/usr/bin/env bash
# Issue 70, item 3: LBS on the SmartBot blueprint beside SPARTA, the LBS
# paper's Table 2 extended by a row (benchmarks/lbs_paper.py on the first
# 100 decks of seed 0, 1,000 rollouts a decision, LBS-1/4/16/full and LBS-1
# with both players searching), with the shipped SmartBot belief model (run
# it after runs/belief_campaign/ has shipped one). SPARTA's cell is the run
# runs/hanabi_smartbot_search.sh played at the same settings, copied in
# rather than played again. Every cell resumes per game.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
output=runs/lbs_paper_smartbot
sparta_cell=$output/full/smartbot/SPARTA
if [[ ! -f $sparta_cell/games.jsonl ]]; then
  mkdir -p "$sparta_cell"
  cp runs/hanabi_smartbot_sparta/ours/run.json \
    runs/hanabi_smartbot_sparta/ours/games.jsonl "$sparta_cell/"
fi
"$PYTHON" benchmarks/lbs_paper.py --preset=full --blueprints=smartbot \
  --games=100 --rollouts=1000 --tables=blueprints --workers=1 \
  --output_dir="$output"
