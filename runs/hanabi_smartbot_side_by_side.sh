#!/usr/bin/env bash
# Issue 70, item 3: the seconds of SPARTA and LBS-16 on the SmartBot
# blueprint measured side by side, one after the other on the same core and
# the same 10 decks (seed 0; LBS-16 first), at SPARTA's reference settings (10,000
# rollouts, deviating above 0.1; LBS with the shipped SmartBot belief
# model): the ratio the LBS table's cells, played hours apart under other
# loads, can only approximate. Each run resumes per game.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
output=runs/lbs_smartbot_side_by_side
for search in lbs sparta; do
  "$PYTHON" -m open_spiel_ext.examples.hanabi_play --preset=full \
    --blueprint=smartbot --search="$search" --rollout_depth=16 \
    --rollouts=10000 --threshold=0.1 --games=10 --workers=1 --seed=0 \
    --output_dir="$output/$search"
done
