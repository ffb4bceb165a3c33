"""Replay buffers as pure pytrees: a ring (uniform replay) and a reservoir.

A `Buffer` holds `capacity` items of a fixed structure (any pytree, each
leaf with a leading capacity axis) and is updated by pure functions, so it
lives inside jitted training loops and checkpoints like any other state.
`add` writes a batch of items, of which only the `valid` ones count (a
batched rollout produces transitions for some games and not others).

- `add`: a ring; once full, the oldest items go first.
- `reservoir_add`: reservoir sampling (NFSP's average-policy memory): the
  n-th item ever offered is kept with probability capacity / n, so the
  buffer stays a uniform sample of everything offered. Items of one batch
  that draw the same slot overwrite each other (the last wins), which keeps
  the sample uniform up to those rare collisions.
- `sample`: a uniform batch of the stored items.
"""

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp


class Buffer(NamedTuple):
  data: Any  # Pytree, leaves [capacity, ...].
  size: jax.Array  # Items stored (at most capacity).
  position: jax.Array  # Where the ring writes next.
  seen: jax.Array  # Valid items ever offered.


def init(example: Any, capacity: int) -> Buffer:
  """An empty buffer for items shaped like `example` (one item, no batch)."""
  if capacity < 1:
    raise ValueError(f"capacity must be >= 1, got capacity={capacity}")
  data = jax.tree.map(
      lambda x: jnp.zeros((capacity,) + jnp.shape(x), jnp.asarray(x).dtype),
      example)
  return Buffer(data, jnp.int32(0), jnp.int32(0), jnp.int32(0))


def capacity_of(buffer: Buffer) -> int:
  return jax.tree.leaves(buffer.data)[0].shape[0]


def _write(buffer: Buffer, items: Any, slots: jax.Array) -> Any:
  """Items into `slots` (slot == capacity: dropped)."""
  return jax.tree.map(lambda d, x: d.at[slots].set(x, mode="drop"),
                      buffer.data, items)


def add(buffer: Buffer, items: Any, valid: jax.Array) -> Buffer:
  """Appends the valid items of a batch [B, ...] to the ring (B <= capacity)."""
  capacity = capacity_of(buffer)
  rank = jnp.cumsum(valid) - 1
  slots = jnp.where(valid, (buffer.position + rank) % capacity, capacity)
  count = valid.sum(dtype=jnp.int32)
  return Buffer(_write(buffer, items, slots),
                jnp.minimum(buffer.size + count, capacity),
                (buffer.position + count) % capacity, buffer.seen + count)


def reservoir_add(buffer: Buffer, items: Any, valid: jax.Array,
                  key: jax.Array) -> Buffer:
  """Offers the valid items of a batch to the reservoir (module docstring)."""
  capacity = capacity_of(buffer)
  index = buffer.seen + jnp.cumsum(valid) - 1  # Each item's number, from 0.
  draw = jax.random.randint(key, valid.shape, 0, jnp.maximum(index + 1, 1))
  slot = jnp.where(index < capacity, index, draw)
  slots = jnp.where(valid & (slot < capacity), slot, capacity)
  count = valid.sum(dtype=jnp.int32)
  return Buffer(_write(buffer, items, slots),
                jnp.minimum(buffer.size + count, capacity), buffer.position,
                buffer.seen + count)


def sample(buffer: Buffer, key: jax.Array, batch: int) -> Any:
  """`batch` stored items drawn uniformly (with replacement)."""
  rows = jax.random.randint(key, (batch,), 0, jnp.maximum(buffer.size, 1))
  return jax.tree.map(lambda d: d[rows], buffer.data)
