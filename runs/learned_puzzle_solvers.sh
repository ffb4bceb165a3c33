#!/usr/bin/env bash
# Issue 69's side-by-side table (benchmarks/learned_puzzle_solvers.py) on
# 100 cubes and 100 7x7 Lights Out boards (seed 0): the shipped DAVI models
# (their deepcubea_eval runs taken, not searched again), the cube's
# baselines at 60 CPU minutes (warm-started DAVI, DAVI from scratch, with
# BWAS; CayleyPy with its beam search, runs/free_label_baselines/) and the
# shipped free-label models at beam widths 2^8 to 2^14, with the cube's
# 60-minute snapshot beside the baselines at equal minutes. BWAS expands 1,000
# states a step (N), as issue 45's runs of the shipped models did: within
# 10^6 children, the cube's N = 10,000 leaves it 10 steps. Every instance is
# recorded as it ends, so the same command resumes.
#
# The table is two parts, one a core, then one command that joins them:
#   learned_puzzle_solvers.sh cube_free_label  # the cube's free-label model
#   learned_puzzle_solvers.sh rest             # every other solver
#   learned_puzzle_solvers.sh                  # all: joins the parts,
#       searches what neither has, writes the table and PNG
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
part=${1:-all}
models=algorithms/deepcubea/models
baselines=runs/free_label_baselines
output=runs/learned_puzzle_solvers
cube_part=$output/cube_free_label
cube_model=$models/rubiks_cube_3_distance.npz
cube_60=runs/free_label_campaign/snapshots/rubiks_cube_3_distance_60min.npz
davi_models=$models/lights_out_7.npz,$models/rubiks_cube_3.npz
davi_models=$davi_models,$baselines/warm_davi/model.npz
davi_models=$davi_models,$baselines/davi_cpu60/model.npz
cayleypy_models=$baselines/cayleypy/cayleypy_cube3_qtm_b39bc9cb5a.pt

solve() {  # solve OUTPUT_DIR FLAGS...: the benchmark on both test sets.
  local output_dir=$1
  shift
  "$PYTHON" benchmarks/learned_puzzle_solvers.py \
    --puzzles=rubiks_cube:3,lights_out:7 --output_dir="$output_dir" \
    --davi_runs=runs/deepcubea_eval/rubiks_cube_3/deepcubea_eval_runs.jsonl,runs/deepcubea_eval/lights_out_7/deepcubea_eval_runs.jsonl \
    --bwas_batch=1000 "$@"
}

case $part in
  cube_free_label)
    if [[ ! -f $cube_model ]]; then
      echo "$cube_model is not shipped yet (runs/free_label_campaign)" >&2
      exit 1
    fi
    solve "$cube_part" --davi_models= --cayleypy_models= \
      --free_label_models="$cube_model,$cube_60" ;;
  rest)
    solve "$output" --davi_models="$davi_models" \
      --cayleypy_models="$cayleypy_models" \
      --free_label_models=$models/lights_out_7_pressed.npz ;;
  all)
    free_label_models=$models/lights_out_7_pressed.npz
    merge=()
    if [[ -f $cube_model ]]; then
      free_label_models=$free_label_models,$cube_model,$cube_60
    fi
    if [[ -f $cube_part/run.json ]]; then
      merge=(--merge_runs_from="$cube_part")
    fi
    solve "$output" --davi_models="$davi_models" \
      --cayleypy_models="$cayleypy_models" \
      --free_label_models="$free_label_models" "${merge[@]}" ;;
  *)
    echo "unknown part '$part': cube_free_label, rest or all" >&2
    exit 2 ;;
esac
