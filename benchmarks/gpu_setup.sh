# Sourced by the scripts that run on the lent GPU machine (benchmarks/
# *_gpu.sh), from the repository root. That machine has JAX with CUDA,
# optax, chex and PyYAML but not open_spiel, dm-haiku, jmp or ml_collections
# (which open_spiel.python imports): their wheels travel in
# .whl/ (the device tool's carry ".whl"), made here once with
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#     -d .whl open_spiel==2.0.2 dm-haiku==0.0.17 jmp==0.0.4 ml_collections==1.1.0
# Sets $python (default python3, or $PYTHON) to a Python that imports the
# plugin from this checkout, installing the wheels where they are missing.
python=${PYTHON:-python3}
if ! "$python" -c "import pyspiel, haiku" 2>/dev/null; then
  "$python" -m pip install -q --no-index --no-deps --no-compile \
    --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null \
  || echo "no GPU: JAX runs on the CPU"
