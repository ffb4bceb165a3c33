#!/usr/bin/env bash
# Issue 69's baselines for the cube at equal training minutes (60 CPU
# minutes of one core each), beside the free-label distance model's
# 60-minute snapshot (runs/free_label_campaign/snapshots/):
#   - CayleyPy's own recipe (benchmarks/cayleypy_baseline.py), 60 minutes;
#   - warm-started DAVI: the distance model's 30-minute snapshot, then 30
#     minutes of DAVI (same network: 1024, 256, one residual block);
#   - DAVI from a fresh network of the same size, 60 minutes.
# Each resumes where it stopped when run again; what they write is kept in
# runs/free_label_baselines/.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
out=runs/free_label_baselines
"$PYTHON" benchmarks/cayleypy_baseline.py --minutes=60 \
  --output_dir="$out/cayleypy" --scramble_moves=100 --count=2
davi() {  # davi NAME MINUTES [FLAGS...]: DAVI on the cube with CPU settings.
  local name=$1 minutes=$2
  shift 2
  "$PYTHON" -m open_spiel_ext.examples.deepcubea_train --puzzle=rubiks_cube \
    --size=3 --hidden_sizes=1024,256 --num_blocks=1 --max_scramble=30 \
    --batch_size=1000 --check_every=100 --iterations=100000000 \
    --minutes="$minutes" --eval_every=2000 --checkpoint_seconds=300 \
    --output_dir="run_state/$name" --mirror_dir="$out/$name" "$@"
}
davi warm_davi 30 \
  --init_model=runs/free_label_campaign/snapshots/rubiks_cube_3_distance_30min.npz
davi davi_cpu60 60
