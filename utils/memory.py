"""How much memory a run takes and how much it has.

`tree_bytes` sizes a pytree of arrays, or of the `jax.ShapeDtypeStruct`s
that `jax.eval_shape` gives for a function's output without running it (so
without allocating anything): how the algorithms estimate, before any work,
what a run of the requested sizes allocates. `available_bytes` is what this
machine can give without swapping, `device_available_bytes` what JAX's
default device can (an accelerator's own memory). `cli.check_memory` refuses
a run whose estimate does not fit.
"""

import math
import os
from typing import Any

import jax


def tree_bytes(tree: Any) -> int:
  """The bytes of the arrays (or `jax.ShapeDtypeStruct`s) in `tree`."""
  return sum(math.prod(leaf.shape) * leaf.dtype.itemsize
             for leaf in jax.tree.leaves(tree))


def available_bytes() -> int:
  """Memory the machine can give without swapping (MemAvailable on Linux)."""
  try:
    with open("/proc/meminfo", encoding="ascii") as meminfo:
      for line in meminfo:
        if line.startswith("MemAvailable:"):
          return int(line.split()[1]) * 1024
  except OSError:
    pass
  return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def device_available_bytes() -> int:
  """Memory JAX's default device can still give: on an accelerator, its
  allocator's limit less what is in use; on the CPU, `available_bytes`."""
  stats = jax.devices()[0].memory_stats() or {}
  if "bytes_limit" not in stats:
    return available_bytes()
  return stats["bytes_limit"] - stats.get("bytes_in_use", 0)
