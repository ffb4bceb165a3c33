#!/usr/bin/env bash
# Issue 70, item 4: the LBS paper's Table 1 replayed (benchmarks/lbs_paper.py
# --tables=hand_sizes: SPARTA and LBS-16 on the rule bot with 5, 6 and 7
# cards, 30 decks a cell, 1,000 rollouts; SPARTA refuses at 7), twice:
#
#   hanabi_hand_sizes.sh shipped   with the belief models shipped before the
#       six- and seven-card campaigns (45 minutes of one core each), frozen
#       in runs/lbs_paper_hand_sizes_shipped/models/ so that a campaign
#       shipping a new model mid-table changes nothing;
#   hanabi_hand_sizes.sh           once both campaigns have ended
#       (runs/belief_hand_sizes.sh; this waits for them), with their
#       models; SPARTA's cells, which no belief model touches, are copied
#       from the first table where it has them. Then LBS-16's gain against
#       each campaign snapshot's held-out cross-entropy, and the campaign's
#       cross-entropy against training minutes
#       (benchmarks/lbs_belief_value.py, SPARTA's six-card cell copied in).
#
# Every cell resumes per game.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
presets=(full six_cards seven_cards)

table() {  # table OUTPUT_DIR BELIEF_DIR
  "$PYTHON" benchmarks/lbs_paper.py --preset=full --tables=hand_sizes \
    --rollouts=1000 --hand_size_games=30 --workers=1 --output_dir="$1" \
    --belief_dir="$2"
}

if [[ ${1:-} == shipped ]]; then
  first=runs/lbs_paper_hand_sizes_shipped
  mkdir -p "$first/models"
  for preset in "${presets[@]}"; do
    model=${preset}_rules_belief.npz
    [[ -f $first/models/$model ]] ||
      cp "algorithms/hanabi/weights/$model" "$first/models/"
  done
  table "$first" "$first/models"
  exit
fi
[[ $# -eq 0 ]] || { echo "usage: $0 [shipped]" >&2; exit 2; }

for preset in six_cards seven_cards; do
  until [[ -f runs/belief_campaign_$preset/rules/snapshots/belief_480min.npz ]]; do
    echo "$(date +%H:%M) waiting for the $preset belief campaign's last stage"
    sleep 600
  done
done
final=runs/lbs_paper_hand_sizes
for preset in "${presets[@]}"; do
  shipped_cell=runs/lbs_paper_hand_sizes_shipped/$preset/rules/SPARTA
  if [[ -f $shipped_cell/run.json && ! -d $final/$preset/rules/SPARTA ]]; then
    mkdir -p "$final/$preset/rules"
    cp -r "$shipped_cell" "$final/$preset/rules/"
  fi
done
table "$final" algorithms/hanabi/weights
for preset in six_cards seven_cards; do
  value=runs/belief_value_$preset
  if [[ -f $final/$preset/rules/SPARTA/results.json && \
        ! -f $value/SPARTA/results.json ]]; then
    mkdir -p "$value/SPARTA"
    cp "$final/$preset/rules/SPARTA/"{run.json,games.jsonl,results.json} \
      "$value/SPARTA/"
  fi
  "$PYTHON" benchmarks/lbs_belief_value.py --preset="$preset" \
    --blueprint=rules --games=30 --rollouts=1000 \
    --campaign_dir="runs/belief_campaign_$preset" --workers=1 \
    --output_dir="$value"
done
