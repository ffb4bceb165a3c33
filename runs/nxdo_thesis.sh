#!/usr/bin/env bash
# Issue 46's reruns of benchmarks/nxdo_thesis.py, one after the other on the
# core it is given: NXDO and NXDO-VA on 20-Clone Leduc with the exact
# stopping signal (3 seeds; PSRO's and NFSP's logs, which no signal changes,
# read back from docs/nxdo_runs), the two swaps (one seed each), and the
# Loss Games' missing seeds (2-D seed 2, 16-D seed 1). Each run checkpoints
# under run_state/nxdo_thesis and resumes with the same command; each
# finished run's log is kept in runs/nxdo_thesis/ (commit it), from which a
# new machine takes it back, so that at most the run in progress is lost.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python}
out=run_state/nxdo_thesis
kept=runs/nxdo_thesis
leduc=xdo_clone_leduc_clones_20

restore() {  # restore GAME_SLUG: the logs a run would otherwise redo.
  local slug=$1 log name
  mkdir -p "$out/runs/$slug"
  for log in "docs/nxdo_runs/$slug"/*.jsonl "$kept/$slug"/*.jsonl; do
    [ -e "$log" ] || continue
    name=$(basename "$log")
    # Issue 19's poker NXDO runs stopped each solve on NFSP's own estimate.
    if [[ "$log" == docs/* && "$slug" != loss_game* ]]; then
      case "$name" in
        nxdo_seed*|nxdo_va_seed*) name=${name/_seed/_nfsp_estimate_seed} ;;
      esac
    fi
    [ -e "$out/runs/$slug/$name" ] || cp "$log" "$out/runs/$slug/$name"
  done
}

# keep GAME_SLUG: the logs of runs this script made. One named as a log in
# docs/nxdo_runs is another run (NXDO's with the new signal) unless the same.
keep() {
  local slug=$1 log
  mkdir -p "$kept/$slug"
  for log in "$out/runs/$slug"/*.jsonl; do
    case "$(basename "$log")" in *_nfsp_estimate_*) continue ;; esac
    cmp -s "$log" "docs/nxdo_runs/$slug/$(basename "$log")" \
      || cp "$log" "$kept/$slug/"
  done
}

thesis() {  # thesis GAME_SLUG FLAGS...
  local slug=$1
  shift
  restore "$slug"
  "$python" benchmarks/nxdo_thesis.py --output_dir="$out" "$@"
  keep "$slug"
}

each() {  # each GAME_SLUG SEEDS METHODS FLAGS...: a run a call, kept as it
  local slug=$1 seeds=$2 methods=$3 seed method  # ends; then the tables.
  shift 3
  for seed in $(seq 1 "$seeds"); do
    for method in ${methods//,/ }; do
      thesis "$slug" --methods="$method" --seeds="$seed" "$@"
    done
  done
  thesis "$slug" --methods="$methods" --seeds="$seeds" "$@"
}

each "$leduc" 3 nxdo,nxdo_va,psro,nfsp --minutes=30
each "$leduc" 1 nxdo_exact_responses,nxdo_exact_solve --minutes=30
each loss_game_alpha_2_7_bins_10_dims_2_max_move_0_1_moves_10 3 \
  nxdo,psro,nfsp --games=loss_game --minutes=20
each loss_game_alpha_2_7_bins_2_dims_16_max_move_0_1_moves_10 2 nxdo,psro \
  --games="loss_game(dims=16,bins=2)" --minutes=20
