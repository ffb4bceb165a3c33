"""Every Stratego opponent by name: the scripted bots and learned populations.

A population file (`save_population`) holds the policy networks of a
P2SRO population, stacked, with the meta-Nash mixture over them and what
the networks are (`algorithms/nn/weights.py`'s format); `load_population`
turns it into an `rl.opponents.Opponent` that draws one member per game
from the mixture and samples its softmax policy, in the mover's frame as
`games/stratego/env.py` shows it with `relative_actions=True`. The package
ships the population `examples/stratego_p2sro.py` trained
(`shipped_path()`, opponent name "p2sro").
"""

import os
from typing import Any, Sequence

import jax
import numpy as np

from open_spiel_ext.algorithms.nn import weights as weights_lib
from open_spiel_ext.algorithms.rl import networks
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.stratego import bots

P2SRO = "p2sro"
NAMES = bots.BOTS + (P2SRO,)
WEIGHTS_DIR = os.path.join(os.path.dirname(__file__), "weights")
# Members the meta-Nash gives less than this are left out of a file.
MIN_WEIGHT = 1e-3
_KIND = "stratego population"


def shipped_path(army: str = "barrage") -> str:
  """Where the package keeps the P2SRO population of an army."""
  return os.path.join(WEIGHTS_DIR, f"{army}_{P2SRO}.npz")


def save_population(path: str, members: Sequence[Any], weights: np.ndarray,
                    network: str, hidden_sizes: Sequence[int],
                    num_actions: int, meta: dict[str, Any],
                    shared_trunk: bool = False) -> int:
  """Writes the members (policy parameters, of `networks.build_policy`) the
  mixture `weights` gives at least MIN_WEIGHT, stacked, with the
  renormalised weights; returns how many. `meta` (JSON) records the run."""
  weights = np.asarray(weights, np.float64)
  kept = np.flatnonzero(weights >= MIN_WEIGHT)
  stacked = jax.tree.map(lambda *x: np.stack(x),
                         *[jax.device_get(members[i]) for i in kept])
  weights_lib.save(path, stacked, {
      "network": network, "hidden_sizes": list(hidden_sizes),
      "num_actions": num_actions, "shared_trunk": shared_trunk,
      "weights": (weights[kept] / weights[kept].sum()).tolist(),
      "population_indices": kept.tolist(), **meta}, kind=_KIND)
  return len(kept)


def load_population(path: str) -> tuple[opponents.Opponent, dict[str, Any]]:
  """The mixture a population file holds, as an opponent, and its record.

  Raises:
    ValueError: `path` is not a population file.
  """
  params, meta = weights_lib.load(path, _KIND)
  policy = networks.build_policy(meta["network"], meta["hidden_sizes"],
                                 meta["num_actions"],
                                 meta.get("shared_trunk", False))
  return opponents.network(policy.apply, params, meta["weights"]), meta


def opponent(name: str, army: str = "barrage") -> opponents.Opponent:
  """A scripted bot (bots.BOTS), "p2sro" (the shipped population) or the
  path of a population file, as an opponent.

  Raises:
    ValueError: no such bot or file, or the file is not a population.
  """
  if name in bots.BOTS:
    return bots.bot(name, army)
  path = shipped_path(army) if name == P2SRO else name
  if not os.path.exists(path):
    raise ValueError(f"unknown Stratego opponent {name!r}: give one of "
                     f"{', '.join(NAMES)} or a population file ({path} does "
                     "not exist)")
  return load_population(path)[0]


def labels(names: Sequence[str]) -> dict[str, str]:
  """Each opponent name (as `opponent` takes it) shortened for a table or a
  plot: a population file by its name without folder and ".npz", unless two
  would then read the same."""
  short = {name: os.path.splitext(os.path.basename(name))[0]
           if name.endswith(".npz") else name for name in names}
  if len(set(short.values())) < len(short):
    return {name: name for name in names}
  return short
