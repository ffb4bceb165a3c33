"""A restricted game's policy (the meta-NE) as a policy of the original game.

The probability of action a at an information state s is
Σ_k σ(k | s) π_k(a | s) for NXDO, σ(a | s) over the valid actions for
NXDO-VA. Its `members_table` is that policy on the tree engine's arrays, so
exact exploitability applies where the game's tree fits; so does the
meta-NE's exploitability within the restricted game.
"""

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nxdo import restricted_game as restricted_lib
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.rl import opponents as opponents_lib
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib


def meta_policy(restricted: restricted_lib.RestrictedGame,
                meta_apply: learner_lib.LogitsFn,
                meta_params: Any) -> opponents_lib.Opponent:
  """The restricted game's policy `meta_apply(meta_params, ·)` as a policy
  of the original game (see the module docstring)."""
  members = restricted.members
  params = (meta_params, restricted.population, jnp.int32(restricted.size))
  return opponents_lib.Opponent(
      _meta_act(members, meta_apply), params, jnp.ones(1),
      _meta_table(members, meta_apply, params))


_META_ACTS: dict[Any, opponents_lib.ActFn] = {}


def _meta_act(members: restricted_lib.Members,
              meta_apply: learner_lib.LogitsFn) -> opponents_lib.ActFn:
  """One act function per kind, so that jitted learners compile once."""

  def act(params, observation, mask, member, key):
    del member  # One policy, no mixture.
    meta_params, population, size = params
    meta_key, act_key = jax.random.split(key)
    meta_actions = masking.masked_sample(
        meta_key, meta_apply(meta_params, observation),
        members.meta_mask(population, size, observation, mask))
    return members.original_actions(population, observation, mask,
                                     meta_actions, act_key)

  return _META_ACTS.setdefault(
      (members.apply, members.variant, members.va_threshold,
       members.continuous, meta_apply), act)


def _meta_table(members: restricted_lib.Members,
                meta_apply: learner_lib.LogitsFn,
                params: Any) -> Callable[[Any, int], np.ndarray]:
  """(tree, clones) -> [1, infosets, actions] the composed policy."""

  def members_table(tree, clones):
    if members.continuous:
      return opponents_lib.no_tree_table(tree, clones)
    meta_params, population, size = params
    tensors, legal = tree_inputs(tree, clones)
    meta_mask = members.meta_mask(population, size, tensors, legal)
    meta = masking.masked_softmax(meta_apply(meta_params, tensors), meta_mask)
    if members.variant == "nxdo":
      composed = jnp.einsum("ik,kia->ia", meta,
                            members.probabilities(population, tensors, legal))
    else:
      composed = meta
    composed = np.asarray(composed, np.float64)
    composed /= composed.sum(axis=1, keepdims=True)
    return _collapsed(composed, clones)[None]

  return members_table


def tree_inputs(tree: game_tree_lib.GameTree,
                clones: int) -> tuple[jax.Array, jax.Array]:
  """The networks' inputs at the tree's information states, and the legal
  actions of the game they play (m-Clone Leduc's for `clones` > 1)."""
  return (jnp.asarray(network_policies.infoset_tensors(tree)),
          jnp.asarray(np.tile(tree.legal, clones)))


def _collapsed(table: np.ndarray, clones: int) -> np.ndarray:
  return (network_policies.collapse_clones(table, clones) if clones > 1
          else table)


def members_on_tree(restricted: restricted_lib.RestrictedGame,
                    tree: game_tree_lib.GameTree,
                    clones: int) -> np.ndarray:
  """[members, infosets, actions] each member's action probabilities at the
  tree's information states (the base game's actions for `clones` > 1).

  Raises:
    ValueError: continuous members (they have no tree).
  """
  members = restricted.members
  if members.continuous:
    raise ValueError("continuous members have no tree to restrict")
  tensors, legal = tree_inputs(tree, clones)
  return _collapsed(np.asarray(members.probabilities(
      restricted.population, tensors, legal)[:restricted.size]), clones)


def restricted_exploitability(
    restricted: restricted_lib.RestrictedGame, meta_ne: opponents_lib.Opponent,
    exact: evaluation.OpponentExploitability) -> float:
  """How far the meta-NE is from solving the restricted game, exactly: its
  exploitability by best responses that play only actions some member plays
  (with probability at least `va_threshold`; for deterministic members, as
  learned best responses and exact oracles are, that is the restricted
  game's best response).

  Raises:
    ValueError: continuous members (they have no tree).
  """
  tree = exact.sweeps.tree
  played = (members_on_tree(restricted, tree, exact.clones) >=
            restricted.members.va_threshold).any(axis=0) & tree.legal
  return exact.sweeps.exploitability(
      evaluation.opponent_policy(exact.sweeps, exact.clones, meta_ne), played)
