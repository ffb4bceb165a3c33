"""Jitted level-by-level sweeps over a GameTree: reach, values, best responses.

Policies are [infosets, actions] arrays of action probabilities. A `mask` of
the same shape restricts the game: best responses choose only masked actions.
All arithmetic is float64 (the functions enable JAX's x64 mode for their own
calls only).

Edges (node -> child) are grouped by the level of their parent. A top-down
sweep visits parent levels from the root, a bottom-up sweep from the deepest;
each step is one vectorised gather/scatter over the edges of one level, with
the level's bounds static so that one tree compiles once.
"""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib

CHANCE_OWNER = 2  # Edge owners: 0, 1 (players) or 2 (chance).


@dataclasses.dataclass(frozen=True)
class Structure:
  """The static shape of a tree: what jit specialises on."""
  num_nodes: int
  num_infosets: int
  num_actions: int
  node_slices: tuple[tuple[int, int], ...]  # Nodes of each level.
  edge_slices: tuple[tuple[int, int], ...]  # Edges whose parent is on it.


def structure_and_arrays(tree: game_tree_lib.GameTree):
  """The static Structure and the device arrays of `tree`."""
  children = np.arange(1, tree.num_nodes)
  parents = tree.parent[children]
  level_of = np.repeat(np.arange(tree.num_levels), np.diff(tree.level_starts))
  order = np.argsort(level_of[parents], kind="stable")
  edge_child, edge_parent = children[order], parents[order]
  parent_player = tree.player[edge_parent]
  edge_owner = np.where(parent_player >= 0, parent_player, CHANCE_OWNER)
  edge_counts = np.bincount(level_of[edge_parent], minlength=tree.num_levels)
  edge_starts = np.concatenate([[0], np.cumsum(edge_counts)])
  infoset_level = level_of[tree.infoset_node]
  structure = Structure(
      num_nodes=tree.num_nodes,
      num_infosets=tree.num_infosets,
      num_actions=tree.num_actions,
      node_slices=tuple(zip(tree.level_starts[:-1].tolist(),
                            tree.level_starts[1:].tolist())),
      edge_slices=tuple(zip(edge_starts[:-1].tolist(),
                            edge_starts[1:].tolist())))
  with jax.enable_x64(True):
    arrays = {
        "edge_parent": jnp.asarray(edge_parent, jnp.int32),
        "edge_child": jnp.asarray(edge_child, jnp.int32),
        "edge_owner": jnp.asarray(edge_owner, jnp.int32),
        "edge_action": jnp.asarray(tree.action[edge_child], jnp.int32),
        "edge_infoset": jnp.asarray(np.maximum(tree.infoset[edge_parent], 0),
                                    jnp.int32),
        "edge_chance_prob": jnp.asarray(tree.chance_prob[edge_child]),
        "node_player": jnp.asarray(tree.player, jnp.int32),
        "node_infoset": jnp.asarray(np.maximum(tree.infoset, 0), jnp.int32),
        "node_utility": jnp.asarray(tree.utility),
        "infoset_player": jnp.asarray(tree.infoset_player, jnp.int32),
        "infoset_level": jnp.asarray(infoset_level, jnp.int32),
    }
  return structure, arrays


def edge_weights(arrays, policy):
  """Probability of each edge: the chance probability or the policy's."""
  return jnp.where(arrays["edge_owner"] == CHANCE_OWNER,
                   arrays["edge_chance_prob"],
                   policy[arrays["edge_infoset"], arrays["edge_action"]])


def reach_probabilities(structure: Structure, arrays, weights):
  """[3, nodes] reach probabilities: player 0's, player 1's, chance's."""
  owners = jnp.arange(3)[:, None] == arrays["edge_owner"][None, :]
  factors = jnp.where(owners, weights[None, :], 1.0)
  reach = jnp.ones((3, structure.num_nodes))
  for start, end in structure.edge_slices:
    child = arrays["edge_child"][start:end]
    parent = arrays["edge_parent"][start:end]
    reach = reach.at[:, child].set(reach[:, parent] * factors[:, start:end])
  return reach


def node_values(structure: Structure, arrays, weights):
  """[nodes] expected utility of player 0 below each node."""
  values = arrays["node_utility"]
  for level in reversed(range(len(structure.edge_slices))):
    start, end = structure.edge_slices[level]
    node_start, node_end = structure.node_slices[level]
    contributions = weights[start:end] * values[arrays["edge_child"][start:end]]
    sums = jax.ops.segment_sum(contributions,
                               arrays["edge_parent"][start:end] - node_start,
                               num_segments=node_end - node_start)
    values = values.at[node_start:node_end].add(sums)
  return values


def _player_sign(player):
  return 1.0 - 2.0 * player


@functools.partial(jax.jit, static_argnums=(0,))
def _best_response(structure: Structure, arrays, policy, mask, player):
  """Value of `player`'s best response, and its action per infoset."""
  weights = edge_weights(arrays, policy)
  reach = reach_probabilities(structure, arrays, weights)
  owners = jnp.arange(3)
  counterfactual = jnp.prod(
      jnp.where((owners != player)[:, None], reach, 1.0), axis=0)
  values = arrays["node_utility"] * _player_sign(player)
  best_actions = jnp.zeros(structure.num_infosets, jnp.int32)
  for level in reversed(range(len(structure.edge_slices))):
    start, end = structure.edge_slices[level]
    node_start, node_end = structure.node_slices[level]
    num_level_nodes = node_end - node_start
    local_parent = arrays["edge_parent"][start:end] - node_start
    child_values = values[arrays["edge_child"][start:end]]
    mine = arrays["edge_owner"][start:end] == player
    others = jax.ops.segment_sum(
        jnp.where(mine, 0.0, weights[start:end] * child_values), local_parent,
        num_segments=num_level_nodes)
    action_values = jnp.zeros(
        (num_level_nodes, structure.num_actions)).at[
            local_parent, arrays["edge_action"][start:end]].add(
                jnp.where(mine, child_values, 0.0))
    level_infosets = arrays["node_infoset"][node_start:node_end]
    infoset_values = jax.ops.segment_sum(
        counterfactual[node_start:node_end, None] * action_values,
        level_infosets, num_segments=structure.num_infosets)
    best = jnp.argmax(jnp.where(mask, infoset_values, -jnp.inf),
                      axis=1).astype(jnp.int32)
    best_value = action_values[jnp.arange(num_level_nodes),
                               best[level_infosets]]
    is_mine = arrays["node_player"][node_start:node_end] == player
    values = values.at[node_start:node_end].add(
        others + jnp.where(is_mine, best_value, 0.0))
    best_actions = jnp.where(arrays["infoset_level"] == level, best,
                             best_actions)
  return values[0], best_actions


@functools.partial(jax.jit, static_argnums=(0,))
def _expected_value(structure: Structure, arrays, policy):
  return node_values(structure, arrays, edge_weights(arrays, policy))[0]


class TreeSweeps:
  """A GameTree on the device, with its jitted sweeps."""

  def __init__(self, tree: game_tree_lib.GameTree):
    self.tree = tree
    self.structure, self.arrays = structure_and_arrays(tree)

  def _as_device(self, array: np.ndarray) -> jax.Array:
    return jnp.asarray(array)

  def expected_value(self, policy: np.ndarray) -> float:
    """Player 0's expected utility when both play `policy`."""
    with jax.enable_x64(True):
      return float(
          _expected_value(self.structure, self.arrays,
                          self._as_device(policy)))

  def best_response(self, policy: np.ndarray, player: int,
                    mask: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """`player`'s best response to `policy`, among `mask`'s actions.

    Returns:
      (its value to `player`, the action it plays at each information state;
      only `player`'s entries are meaningful).
    """
    mask = self.tree.legal if mask is None else mask
    with jax.enable_x64(True):
      value, actions = _best_response(self.structure, self.arrays,
                                      self._as_device(policy),
                                      self._as_device(mask), player)
      return float(value), np.asarray(actions)

  def best_response_values(self, policy: np.ndarray,
                           mask: np.ndarray | None = None) -> list[float]:
    """Each player's best-response value against `policy`."""
    return [self.best_response(policy, player, mask)[0] for player in (0, 1)]

  def exploitability(self, policy: np.ndarray,
                     mask: np.ndarray | None = None) -> float:
    """OpenSpiel's exploitability (NashConv / 2) of `policy` within `mask`."""
    return sum(self.best_response_values(policy, mask)) / 2
