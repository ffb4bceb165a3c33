#!/usr/bin/env bash
# Issue 69's side-by-side table (benchmarks/learned_puzzle_solvers.py) on
# 100 cubes and 100 7x7 Lights Out boards (seed 0): the shipped DAVI models
# (their deepcubea_eval runs taken, not searched again), the cube's
# baselines at 60 CPU minutes (warm-started DAVI, DAVI from scratch, with
# BWAS; CayleyPy with its beam search, runs/free_label_baselines/) and the
# shipped free-label models at beam widths 2^8 to 2^14. Every instance is
# recorded as it ends, so the same command resumes; the cube's free-label
# model joins the table once its campaign ships it (runs/resume.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
models=algorithms/deepcubea/models
baselines=runs/free_label_baselines
free_label_models=$models/lights_out_7_pressed.npz
if [[ -f $models/rubiks_cube_3_distance.npz ]]; then
  free_label_models=$free_label_models,$models/rubiks_cube_3_distance.npz
fi
"$PYTHON" benchmarks/learned_puzzle_solvers.py \
  --puzzles=lights_out:7,rubiks_cube:3 \
  --output_dir=runs/learned_puzzle_solvers \
  --davi_runs=runs/deepcubea_eval/rubiks_cube_3/deepcubea_eval_runs.jsonl,runs/deepcubea_eval/lights_out_7/deepcubea_eval_runs.jsonl \
  --davi_models=$models/lights_out_7.npz,$models/rubiks_cube_3.npz,$baselines/warm_davi/model.npz,$baselines/davi_cpu60/model.npz \
  --free_label_models="$free_label_models" \
  --cayleypy_models=$baselines/cayleypy/cayleypy_cube3_qtm_b39bc9cb5a.pt
