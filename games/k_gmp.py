"""The generalized matching pennies families of the XDO analysis.

In every game here chance first picks one of `k` subgames uniformly (both
players observe it), then both players play a matching-pennies matrix game
simultaneously (player 1 does not see player 0's action). Player 0 is the
matcher: a match pays it `n - 1` and a mismatch −1, where `n` is the number of
(classes of) actions, so uniform play is an equilibrium of value 0.

- `k_gmp(k, actions)`: k identical subgames.
- `perturbed_k_gmp(k, actions, seed)`: every matching payoff gets a fixed
  perturbation drawn uniformly from (−1, 1) with `seed`, so each subgame has a
  distinct equilibrium.
- `clone_gmp(k, clones, classes)`: (k, m)-clone GMP: `clones * classes` actions
  in `classes` equal classes (class of action `a` = `a % classes`, clone index
  `a // classes`); actions match when their classes match.
"""

from typing import Any, Optional

import numpy as np

from open_spiel_ext.games import registry
from open_spiel_ext.games import subgame_matrix
from open_spiel_ext.games import validation

_K_GMP = subgame_matrix.game_type(
    "k_gmp", "k Generalized Matching Pennies", {"k": 9, "actions": 3},
    chance_picks=True)
_PERTURBED_K_GMP = subgame_matrix.game_type(
    "perturbed_k_gmp", "Perturbed k Generalized Matching Pennies",
    {"k": 9, "actions": 3, "seed": 0}, chance_picks=True)
_CLONE_GMP = subgame_matrix.game_type(
    "clone_gmp", "(k, m)-Clone Generalized Matching Pennies",
    {"k": 9, "clones": 2, "classes": 3}, chance_picks=True)


def matching_payoffs(k: int, action_classes: np.ndarray) -> np.ndarray:
  """[k, n, n] payoffs: `classes - 1` when the classes match, else −1."""
  num_classes = int(action_classes.max()) + 1
  matches = action_classes[:, None] == action_classes[None, :]
  matrix = np.where(matches, num_classes - 1.0, -1.0)
  return np.broadcast_to(matrix, (k,) + matrix.shape).copy()


def perturbations(k: int, actions: int, seed: int) -> np.ndarray:
  """The [k, actions] perturbations of the matching payoffs, from `seed`."""
  return np.random.RandomState(seed).uniform(-1.0, 1.0, size=(k, actions))


def _validate_k(short_name: str, params: dict[str, Any]) -> None:
  validation.require_at_least(short_name, "k", params["k"], 1)


class KGmpGame(subgame_matrix.SubgameMatrixGame):
  """k identical generalized matching pennies subgames."""

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(_K_GMP, params)
    _validate_k("k_gmp", params)
    validation.require_at_least("k_gmp", "actions", params["actions"], 2)
    actions = params["actions"]
    subgame_matrix.check_size("k_gmp", params, params["k"], actions,
                              ("k", "actions"))
    super().__init__(_K_GMP, params,
                     matching_payoffs(params["k"], np.arange(actions)),
                     [f"a{a}" for a in range(actions)])


class PerturbedKGmpGame(subgame_matrix.SubgameMatrixGame):
  """k generalized matching pennies subgames with perturbed matching payoffs."""

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(_PERTURBED_K_GMP, params)
    _validate_k("perturbed_k_gmp", params)
    validation.require_at_least("perturbed_k_gmp", "actions",
                                params["actions"], 2)
    validation.require_in_range("perturbed_k_gmp", "seed", params["seed"], 0,
                                2**32 - 1)
    k, actions = params["k"], params["actions"]
    subgame_matrix.check_size("perturbed_k_gmp", params, k, actions,
                              ("k", "actions"))
    payoffs = matching_payoffs(k, np.arange(actions))
    diagonal = np.arange(actions)
    payoffs[:, diagonal, diagonal] += perturbations(k, actions,
                                                    params["seed"])
    super().__init__(_PERTURBED_K_GMP, params, payoffs,
                     [f"a{a}" for a in range(actions)])


class CloneGmpGame(subgame_matrix.SubgameMatrixGame):
  """k GMP subgames whose actions come in `classes` classes of `clones`."""

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(_CLONE_GMP, params)
    _validate_k("clone_gmp", params)
    validation.require_at_least("clone_gmp", "clones", params["clones"], 1)
    validation.require_at_least("clone_gmp", "classes", params["classes"], 2)
    classes = params["classes"]
    subgame_matrix.check_size("clone_gmp", params, params["k"],
                              params["clones"] * classes,
                              ("k", "clones", "classes"))
    action_ids = np.arange(params["clones"] * classes)
    super().__init__(
        _CLONE_GMP, params,
        matching_payoffs(params["k"], action_ids % classes),
        [f"class{a % classes}#{a // classes}" for a in action_ids])


registry.register(_K_GMP, KGmpGame)
registry.register(_PERTURBED_K_GMP, PerturbedKGmpGame)
registry.register(_CLONE_GMP, CloneGmpGame)
