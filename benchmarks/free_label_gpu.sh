#!/usr/bin/env bash
# Trains the free-label puzzle models on the lent GPU machine: the CPU
# campaign (benchmarks/free_label_campaign.py, whose flags it passes on; the
# same recipes, so the same models, many times faster), its mirror in
# $OUT/free_label_gpu (checkpoints, float16 snapshots, campaign.jsonl), which
# the device tool brings back. Commit that folder as runs/free_label_gpu: the
# next call starts from it, so the same command continues the campaign.
# The wheels it needs: benchmarks/gpu_setup.sh.
#   bash benchmarks/free_label_gpu.sh --runs=rubiks_cube:3:distance \
#       --minutes=60 --snapshots=10,30,60
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/gpu_setup.sh
mirror="${OUT:-run_state}/free_label_gpu"
if [ -d runs/free_label_gpu ] && [ ! -e "$mirror" ]; then
  mkdir -p "$(dirname "$mirror")"
  cp -r runs/free_label_gpu "$mirror"
fi
exec "$python" benchmarks/free_label_campaign.py \
  --output_dir="${RUN_DIR:-/tmp/free_label_gpu}" --mirror_dir="$mirror" "$@"
