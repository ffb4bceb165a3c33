#!/usr/bin/env bash
# Barrage Stratego's P2SRO run on the lent GPU machine: examples/
# stratego_p2sro.py with the GPU's settings (--device=gpu, experiments/
# stratego_recipes.py; its flags pass on) for $MINUTES minutes of wall time
# (default 8, compiling included), then interrupted as a session's end
# would. It resumes the run kept in $RESUME_DIR (default
# run_state/stratego_p2sro_gpu, which the device call carries) and, after
# every round, copies what resumes the run and what it measured into $OUT
# (population/state.pkl, population/learners/*.pkl, metrics.jsonl,
# bots.jsonl, population.npz: at most 8 files, as the device tool brings
# back; the learners' carries portable, megabytes where the whole carry of
# 2,048 games is over a gigabyte, so a resumed run's learners start on
# fresh games). Several JAX processes (the driver, a worker per learner) share the
# GPU. The wheels it needs: benchmarks/gpu_setup.sh. Afterwards, here:
#   rm -rf run_state/stratego_p2sro_gpu && cp -r <files_at> run_state/stratego_p2sro_gpu
# keeps the run for the next device call.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/gpu_setup.sh
export XLA_PYTHON_CLIENT_PREALLOCATE=false
out=${OUT:-/tmp/stratego_p2sro_gpu_out}
run=${RUN_DIR:-/tmp/stratego_p2sro_gpu}
resume=${RESUME_DIR:-run_state/stratego_p2sro_gpu}
mkdir -p "$out" "$run"
if [ -f "$resume/population/state.pkl" ] && [ ! -f "$run/population/state.pkl" ]; then
  cp -r "$resume/." "$run/"
  echo "resuming the run kept in $resume"
fi
status=0
timeout --signal=INT --kill-after=60 "${MINUTES:-8}m" \
  "$python" -m open_spiel_ext.examples.stratego_p2sro --device=gpu \
  --max_minutes=1e9 --output_dir="$run" --mirror_dir="$out" "$@" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 124 ]; then
  echo "the run failed (exit status $status)" >&2
  exit "$status"
fi
echo "stopped after ${MINUTES:-8} minutes; the run's state is in $out"
