#!/usr/bin/env bash
# Continues a DeepCubeA model's training on the lent GPU machine (benchmarks/
# deepcubea_gpu.py, whose flags it passes on; the wheels it needs:
# benchmarks/gpu_setup.sh). The model, metrics, plot and verdict go to $OUT.
# A later call continues from a model brought back: carry it and pass
# --init_model=<its path>.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/gpu_setup.sh
exec "$python" benchmarks/deepcubea_gpu.py "$@"
