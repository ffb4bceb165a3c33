#!/usr/bin/env bash
# Issue 70, item 4: once the six- and seven-card belief models' campaigns
# have ended (runs/belief_hand_sizes.sh; this waits for both), the LBS
# paper's Table 1 replayed with them (benchmarks/lbs_paper.py
# --tables=hand_sizes: SPARTA and LBS-16 on the rule bot with 5, 6 and 7
# cards, 30 decks a cell, 1,000 rollouts; SPARTA refuses at 7), then LBS-16's
# gain against each campaign snapshot's held-out cross-entropy, and the
# campaign's cross-entropy against training minutes
# (benchmarks/lbs_belief_value.py, SPARTA's six-card cell copied in from the
# table). Every cell resumes per game.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
table=runs/lbs_paper_hand_sizes
for preset in six_cards seven_cards; do
  until [[ -f runs/belief_campaign_$preset/rules/snapshots/belief_480min.npz ]]; do
    echo "$(date +%H:%M) waiting for the $preset belief campaign's last stage"
    sleep 600
  done
done
"$PYTHON" benchmarks/lbs_paper.py --preset=full --tables=hand_sizes \
  --rollouts=1000 --hand_size_games=30 --workers=1 --output_dir="$table"
for preset in six_cards seven_cards; do
  value=runs/belief_value_$preset
  if [[ -f $table/$preset/rules/SPARTA/results.json && \
        ! -f $value/SPARTA/results.json ]]; then
    mkdir -p "$value/SPARTA"
    cp "$table/$preset/rules/SPARTA/"{run.json,games.jsonl,results.json} \
      "$value/SPARTA/"
  fi
  "$PYTHON" benchmarks/lbs_belief_value.py --preset="$preset" \
    --blueprint=rules --games=30 --rollouts=1000 \
    --campaign_dir="runs/belief_campaign_$preset" --workers=1 \
    --output_dir="$value"
done
