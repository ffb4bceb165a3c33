"""`utils/memory.py`: the bytes of a pytree of arrays or of the shapes
`jax.eval_shape` gives, and the memory free on the machine and the device."""

import os

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.utils import memory


def test_tree_bytes_counts_arrays_and_shapes():
  tree = {"shape": jax.ShapeDtypeStruct((3, 4), jnp.float32),
          "arrays": [np.zeros(5, np.int8), jnp.zeros(2, jnp.int32)],
          "empty": ()}
  assert memory.tree_bytes(tree) == 3 * 4 * 4 + 5 + 2 * 4


def test_tree_bytes_of_eval_shape_allocates_nothing():
  huge = jax.eval_shape(lambda: (jnp.zeros((10**6, 10**6)),
                                 jnp.ones(10**9, bool)))
  assert memory.tree_bytes(huge) == 4 * 10**12 + 10**9


def test_available_bytes_falls_back_to_sysconf(monkeypatch):
  assert memory.available_bytes() > 0

  def no_proc(*args, **kwargs):
    raise OSError("no /proc here")

  monkeypatch.setattr(memory, "open", no_proc, raising=False)
  assert memory.available_bytes() == (os.sysconf("SC_AVPHYS_PAGES") *
                                      os.sysconf("SC_PAGE_SIZE"))


class _Device:

  def __init__(self, stats):
    self.stats = stats

  def memory_stats(self):
    return self.stats


def test_device_available_bytes_is_the_allocators_or_the_machines(
    monkeypatch):
  monkeypatch.setattr(memory, "available_bytes", lambda: 123)
  monkeypatch.setattr(jax, "devices", lambda: [_Device(
      {"bytes_limit": 100, "bytes_in_use": 30})])
  assert memory.device_available_bytes() == 70  # An accelerator.
  monkeypatch.setattr(jax, "devices", lambda: [_Device(None)])
  assert memory.device_available_bytes() == 123  # The CPU.
