#!/usr/bin/env bash
# Issue 70: SPARTA on the SmartBot blueprint, player 1 searching, on the
# first 100 decks of hanabi_play's seed 0 (each deck also played by the
# blueprint alone, so the gain is paired), at the settings named (default:
# both): `ours` (1,000 rollouts a move, deviating for a gain of 0.05), then
# `reference`, SPARTA's own (10,000 rollouts, 0.1). Each game is recorded as
# it ends (games.jsonl): the same command resumes.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
sparta() {  # sparta NAME ROLLOUTS THRESHOLD
  "$PYTHON" -m open_spiel_ext.examples.hanabi_play --preset=full \
    --blueprint=smartbot --search=sparta --games=100 --seed=0 --workers=1 \
    --rollouts="$2" --threshold="$3" \
    --output_dir="runs/hanabi_smartbot_sparta/$1"
}
[[ $# -gt 0 ]] || set -- ours reference
for settings in "$@"; do
  case $settings in
    ours) sparta ours 1000 0.05 ;;
    reference) sparta reference 10000 0.1 ;;
    *) echo "unknown settings $settings: ours or reference" >&2; exit 2 ;;
  esac
done
