#!/usr/bin/env bash
# Trains a Hanabi belief model on the lent GPU machine (benchmarks/
# lbs_belief_gpu.py, whose flags it passes on; the wheels it needs:
# benchmarks/gpu_setup.sh). The files to bring back go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/gpu_setup.sh
exec "$python" benchmarks/lbs_belief_gpu.py "$@"
