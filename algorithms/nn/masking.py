"""The one convention for illegal actions: masked entries become the lowest
finite value of the array's dtype, then max, argmax, softmax and sampling
run as usual.

A finite fill (not −inf) keeps a row whose every entry is masked (padding)
finite: its softmax is uniform and its loss and gradients stay numbers.
Every function takes numpy arrays (and returns numpy, for the tabular
learners) or JAX arrays (jittable); `mask` is True where an action is legal.
To minimise, negate: `-masked_max(-costs, mask)`.
"""

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

Array = Any  # np.ndarray or jax.Array.


def _xp(*arrays: Array):
  """numpy if every argument is a numpy array, else jax.numpy."""
  return np if all(isinstance(a, (np.ndarray, np.generic)) for a in arrays
                  ) else jnp


def masked_logits(logits: Array, mask: Array) -> Array:
  """`logits` with the entries where `mask` is False at the dtype's minimum."""
  xp = _xp(logits, mask)
  logits = xp.asarray(logits)
  if not xp.issubdtype(logits.dtype, xp.floating):
    logits = logits.astype(xp.float32)
  return xp.where(mask, logits, xp.finfo(logits.dtype).min)


def masked_max(values: Array, mask: Array, axis: int = -1) -> Array:
  """The largest legal value along `axis`."""
  return masked_logits(values, mask).max(axis=axis)


def masked_argmax(values: Array, mask: Array, axis: int = -1) -> Array:
  """The index of the largest legal value along `axis` (the first on ties)."""
  return _xp(values, mask).argmax(masked_logits(values, mask), axis=axis)


def masked_log_softmax(logits: Array, mask: Array, axis: int = -1) -> Array:
  """log softmax over the legal entries (illegal ones get a huge negative)."""
  logits = masked_logits(logits, mask)
  if _xp(logits) is np:
    shifted = logits - logits.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
  return jax.nn.log_softmax(logits, axis=axis)


def masked_softmax(logits: Array, mask: Array, axis: int = -1) -> Array:
  """softmax over the legal entries; illegal ones get probability 0."""
  logits = masked_logits(logits, mask)
  if _xp(logits) is np:
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)
  return jax.nn.softmax(logits, axis=axis)


def masked_sample(key: jax.Array, logits: jax.Array,
                  mask: jax.Array) -> jax.Array:
  """A legal action per row, drawn from softmax(logits) over the legal ones."""
  return jax.random.categorical(key, masked_logits(logits, mask), axis=-1)
