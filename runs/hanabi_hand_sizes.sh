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
#       from the first table where it has them. Then, for each of six and
#       seven cards, the value run below.
#   hanabi_hand_sizes.sh value PRESET
#       once PRESET's campaign has ended: LBS-16's gain against each
#       campaign snapshot's held-out cross-entropy, and the campaign's
#       cross-entropy against training minutes
#       (benchmarks/lbs_belief_value.py, SPARTA's cell copied in from either
#       table), so that the core whose campaign ends first plays it.
#
# Every cell resumes per game; two value runs of one preset take turns.
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
wait_for_campaign() {  # wait_for_campaign PRESET
  until [[ -f runs/belief_campaign_$1/rules/snapshots/belief_480min.npz ]]; do
    echo "$(date +%H:%M) waiting for the $1 belief campaign's last stage"
    sleep 600
  done
}

value() {  # value PRESET
  local preset=$1 value=runs/belief_value_$1 table sparta
  wait_for_campaign "$preset"
  for table in runs/lbs_paper_hand_sizes runs/lbs_paper_hand_sizes_shipped; do
    sparta=$table/$preset/rules/SPARTA
    if [[ -f $sparta/results.json && ! -f $value/SPARTA/results.json ]]; then
      mkdir -p "$value/SPARTA"
      cp "$sparta/"{run.json,games.jsonl,results.json} "$value/SPARTA/"
    fi
  done
  mkdir -p run_state
  flock "run_state/belief_value_$preset.lock" \
    "$PYTHON" benchmarks/lbs_belief_value.py --preset="$preset" \
    --blueprint=rules --games=30 --rollouts=1000 \
    --campaign_dir="runs/belief_campaign_$preset" --workers=1 \
    --output_dir="$value"
}

if [[ ${1:-} == value ]]; then
  case ${2:-} in
    six_cards|seven_cards) value "$2"; exit ;;
    *) echo "usage: $0 value six_cards|seven_cards" >&2; exit 2 ;;
  esac
fi
[[ $# -eq 0 ]] || { echo "usage: $0 [shipped | value PRESET]" >&2; exit 2; }

for preset in six_cards seven_cards; do
  wait_for_campaign "$preset"
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
  value "$preset"
done
