"""Padding to a few sizes, so that jitted functions compile a few times only.

A jitted function compiles once per input shape; inputs whose size varies
(a restricted game's width, an episode's decisions) are padded up to the
next power of two (or a few sizes per doubling, `next_bucket`), which
bounds the compilations by the logarithm of the largest size.
"""

import numpy as np


def next_power_of_two(n: int) -> int:
  """The smallest power of two >= n (1 for n <= 1)."""
  return 1 << max(0, int(n) - 1).bit_length()


def next_bucket(n: int, steps_per_octave: int = 4) -> int:
  """The smallest size >= n of the form 2**e * (1 + j / steps_per_octave):
  at most steps_per_octave compilations per doubling, for inputs large
  enough that padding to a power of two would waste much compute."""
  power = next_power_of_two(n)
  if power <= 2 * steps_per_octave:
    return power
  step = power // (2 * steps_per_octave)
  return -(-int(n) // step) * step


def pad_rows(array: np.ndarray, size: int) -> np.ndarray:
  """`array` with zero rows appended up to `size` rows."""
  if len(array) > size:
    raise ValueError(f"cannot pad {len(array)} rows to {size}")
  padding = [(0, size - len(array))] + [(0, 0)] * (array.ndim - 1)
  return np.pad(array, padding)
