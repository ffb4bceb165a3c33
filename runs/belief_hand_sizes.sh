#!/usr/bin/env bash
# Issue 70, item 4: the rule bot's belief models of six- and seven-card
# Hanabi on one core, each to 480 training minutes in stages ending at 30,
# 90, 180, 360 and 480 (the five-card model's CPU campaign reached 1.92 nats
# a card in 360 and its trend reaches the 1.875 that pays around 500); each
# stage ships its model if it beats the shipped one on held-out
# cross-entropy. What resumes each run is mirrored in
# runs/belief_campaign_<preset>/: the same command goes on where it stopped.
# Arguments name the presets to train (default: both, six_cards first).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
[[ $# -gt 0 ]] || set -- six_cards seven_cards
for preset in "$@"; do
  case $preset in
    six_cards|seven_cards) ;;
    *) echo "unknown preset $preset: six_cards or seven_cards" >&2; exit 2 ;;
  esac
  "$PYTHON" benchmarks/lbs_belief_campaign.py --preset="$preset" \
    --blueprints=rules --minutes=480 --snapshots=30,90,180,360,480 --ship \
    --output_dir="run_state/belief_campaign_$preset" \
    --mirror_dir="runs/belief_campaign_$preset"
done
