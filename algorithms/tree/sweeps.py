"""Jitted level-by-level sweeps over a GameTree: reach, values, best responses.

Policies are [infosets, actions] arrays of action probabilities. A `mask` of
the same shape restricts the game: best responses choose only masked actions.
All arithmetic is float64 (JAX's x64 mode is enabled for these calls only).

On the device a tree is laid out as [levels, width] arrays: level l holds its
nodes in order, padded to the common width with inert nodes (terminal, utility
0, reached with probability 0). Each node's row also describes the edge from its
parent on the level above. Sweeps are `lax.scan`s over levels: top-down for
reach probabilities, bottom-up for values and best responses. Compiled code
depends only on (levels, width, infosets, actions), so sub-trees of a game
(restricted games, see `TreeSweeps(keep=...)`) padded to a power-of-two width
reuse one compilation.
"""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import policies as policies_lib
from open_spiel_ext.utils import padding

CHANCE_OWNER = 2  # Edge owners: 0, 1 (players) or 2 (chance and padding).


@dataclasses.dataclass(frozen=True)
class Layout:
  """The static shape of a laid-out tree: what jit specialises on."""
  levels: int
  width: int
  num_infosets: int
  num_actions: int


def lay_out(tree: game_tree_lib.GameTree, keep: np.ndarray | None = None,
            min_width: int = 1, power_of_two: bool = False):
  """The Layout, node positions and device arrays of `tree`'s `keep` nodes.

  Args:
    tree: the game tree.
    keep: [nodes] which nodes to lay out (default all); parents of kept nodes
      must be kept.
    min_width: the width is at least this.
    power_of_two: round the width up to a power of two.

  Returns:
    (layout, the kept nodes, arrays).
  """
  kept = np.arange(tree.num_nodes) if keep is None else np.flatnonzero(keep)
  level_of = np.repeat(np.arange(tree.num_levels), np.diff(tree.level_starts))
  levels = level_of[kept]
  counts = np.bincount(levels, minlength=tree.num_levels)
  width = max(int(counts.max()), min_width)
  if power_of_two:
    width = padding.next_power_of_two(width)
  positions = np.arange(len(kept)) - np.concatenate([[0], np.cumsum(counts)
                                                     ])[levels]
  position_of = np.zeros(tree.num_nodes, np.int64)
  position_of[kept] = positions

  def grid(fill, dtype):
    return np.full((tree.num_levels, width), fill, dtype)

  player, infoset, utility = grid(game_tree_lib.TERMINAL, np.int32), grid(
      0, np.int32), grid(0.0, np.float64)
  parent, action, owner = grid(0, np.int32), grid(0, np.int32), grid(
      CHANCE_OWNER, np.int32)
  chance_prob, parent_infoset = grid(0.0, np.float64), grid(0, np.int32)
  player[levels, positions] = tree.player[kept]
  infoset[levels, positions] = np.maximum(tree.infoset[kept], 0)
  utility[levels, positions] = tree.utility[kept]
  chance_prob[0, 0] = 1.0  # The root is reached.
  children = kept[tree.parent[kept] >= 0]
  at = (level_of[children], position_of[children])
  parents = tree.parent[children]
  parent[at] = position_of[parents]
  action[at] = tree.action[children]
  owner[at] = np.where(tree.player[parents] >= 0, tree.player[parents],
                       CHANCE_OWNER)
  chance_prob[at] = tree.chance_prob[children]
  parent_infoset[at] = np.maximum(tree.infoset[parents], 0)
  layout = Layout(tree.num_levels, width, tree.num_infosets, tree.num_actions)
  with jax.enable_x64(True):
    arrays = {
        "player": jnp.asarray(player),
        "infoset": jnp.asarray(infoset),
        "utility": jnp.asarray(utility),
        "parent": jnp.asarray(parent),
        "action": jnp.asarray(action),
        "owner": jnp.asarray(owner),
        "chance_prob": jnp.asarray(chance_prob),
        "parent_infoset": jnp.asarray(parent_infoset),
        "infoset_player": jnp.asarray(tree.infoset_player, jnp.int32),
        "infoset_level": jnp.asarray(level_of[tree.infoset_node], jnp.int32),
    }
  return layout, kept, arrays


def edge_weights(arrays, policy):
  """[levels, width] probability of the edge into each node."""
  return jnp.where(arrays["owner"] == CHANCE_OWNER, arrays["chance_prob"],
                   policy[arrays["parent_infoset"], arrays["action"]])


def reach_probabilities(arrays, weights):
  """[levels, 3, width] reach probabilities: player 0's, 1's and chance's."""
  owners = jnp.arange(3)[None, :, None] == arrays["owner"][:, None, :]
  factors = jnp.where(owners, weights[:, None, :], 1.0)

  def step(parent_reach, level):
    parent, factor = level
    reach = parent_reach[:, parent] * factor
    return reach, reach

  root = factors[0]
  _, below = jax.lax.scan(step, root, (arrays["parent"][1:], factors[1:]))
  return jnp.concatenate([root[None], below])


def node_values(layout: Layout, arrays, weights):
  """[levels, width] expected utility of player 0 below each node."""

  def step(child_values, level):
    parent, weight, utility = level
    values = utility + jax.ops.segment_sum(
        weight * child_values, parent, num_segments=layout.width)
    return values, values

  deepest = arrays["utility"][-1]
  _, above = jax.lax.scan(
      step, deepest,
      (arrays["parent"][1:], weights[1:], arrays["utility"][:-1]),
      reverse=True)
  return jnp.concatenate([above, deepest[None]])


def counterfactual_reach(reach, player):
  """[levels, width] reach of everyone but `player` (opponent and chance)."""
  return reach[:, 1 - player] * reach[:, CHANCE_OWNER]


@functools.partial(jax.jit, static_argnums=(0,))
def _best_response(layout: Layout, arrays, policy, mask, player):
  """Value of `player`'s best response, and its action per infoset."""
  weights = edge_weights(arrays, policy)
  counterfactual = counterfactual_reach(
      reach_probabilities(arrays, weights), player)
  sign = 1.0 - 2.0 * player

  def step(child_values, level):
    parent, weight, owner, action, utility, node_player, infoset, reach = level
    mine = owner == player
    others = jax.ops.segment_sum(
        jnp.where(mine, 0.0, weight * child_values), parent,
        num_segments=layout.width)
    action_values = jnp.zeros((layout.width, layout.num_actions)).at[
        parent, action].add(jnp.where(mine, child_values, 0.0))
    infoset_values = jax.ops.segment_sum(
        reach[:, None] * action_values, infoset,
        num_segments=layout.num_infosets)
    best = masking.masked_argmax(infoset_values, mask).astype(jnp.int32)
    best_value = action_values[jnp.arange(layout.width), best[infoset]]
    values = utility + others + jnp.where(node_player == player, best_value,
                                          0.0)
    return values, best

  deepest = arrays["utility"][-1] * sign
  values, best_by_level = jax.lax.scan(
      step, deepest,
      (arrays["parent"][1:], weights[1:], arrays["owner"][1:],
       arrays["action"][1:], arrays["utility"][:-1] * sign,
       arrays["player"][:-1], arrays["infoset"][:-1], counterfactual[:-1]),
      reverse=True)
  best_actions = best_by_level[
      jnp.minimum(arrays["infoset_level"], layout.levels - 2),
      jnp.arange(layout.num_infosets)]
  return values[0], best_actions


@functools.partial(jax.jit, static_argnums=(0,))
def _expected_value(layout: Layout, arrays, policy):
  return node_values(layout, arrays, edge_weights(arrays, policy))[0, 0]


@functools.partial(jax.jit, static_argnums=(0,))
def _expected_values(layout: Layout, arrays, policies):
  return jax.vmap(lambda policy: _expected_value(layout, arrays, policy))(
      policies)


@functools.partial(jax.jit, static_argnums=(0,))
def _own_reach(layout: Layout, arrays, policy, player):
  """[infosets] `player`'s own reach probability of each information state."""
  reach = reach_probabilities(arrays, edge_weights(arrays, policy))[:, player]
  return jax.ops.segment_max(
      jnp.where(arrays["player"] == player, reach, 0.0).ravel(),
      arrays["infoset"].ravel(), num_segments=layout.num_infosets)


class TreeSweeps:
  """A GameTree (or the sub-tree of its `keep` nodes) on the device."""

  def __init__(self, tree: game_tree_lib.GameTree,
               keep: np.ndarray | None = None, min_width: int = 1,
               power_of_two: bool = False):
    self.tree = tree
    self.layout, self.nodes, self.arrays = lay_out(tree, keep, min_width,
                                                   power_of_two)

  @property
  def num_histories(self) -> int:
    return len(self.nodes)

  def _as_device(self, array: np.ndarray) -> jax.Array:
    return jnp.asarray(array)

  def expected_value(self, policy: np.ndarray) -> float:
    """Player 0's expected utility when both play `policy`."""
    with jax.enable_x64(True):
      return float(
          _expected_value(self.layout, self.arrays, self._as_device(policy)))

  def expected_values(self, policies: np.ndarray,
                      batch: int = 16) -> np.ndarray:
    """Player 0's expected utility under each of [K, infosets, actions]."""
    values = []
    with jax.enable_x64(True):
      for start in range(0, len(policies), batch):
        chunk = self._as_device(policies[start:start + batch])
        values.append(np.asarray(
            _expected_values(self.layout, self.arrays, chunk)))
    return np.concatenate(values) if values else np.zeros(0)

  def own_reach(self, policy: np.ndarray, player: int) -> np.ndarray:
    """[infosets] `player`'s own probability of reaching each information
    state under `policy` (its own actions only; meaningful on its states)."""
    with jax.enable_x64(True):
      return np.asarray(_own_reach(self.layout, self.arrays,
                                   self._as_device(policy), player))

  def best_response(self, policy: np.ndarray, player: int,
                    mask: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """`player`'s best response to `policy`, among `mask`'s actions.

    Returns:
      (its value to `player`, the action it plays at each information state;
      only `player`'s entries are meaningful).
    """
    mask = self.tree.legal if mask is None else mask
    with jax.enable_x64(True):
      value, actions = _best_response(self.layout, self.arrays,
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

  def mixture_policy(self, members: np.ndarray,
                     weights: np.ndarray) -> np.ndarray:
    """The behaviour policy that plays like the mixture of `members`
    ([M, infosets, actions], member m drawn with `weights[m]` once per game):
    at each information state, the members' policies weighted by `weights`
    times each member's own reach probability of it (Kuhn's theorem).
    Information states no member reaches are uniform."""
    tree = self.tree
    mixed = np.zeros(tree.legal.shape)
    for member, weight in zip(members, weights):
      if weight <= 0:
        continue
      for player in (0, 1):
        reach = self.own_reach(member, player)
        mixed += ((tree.infoset_player == player) * weight *
                  reach)[:, None] * member
    return policies_lib.normalized(mixed, tree.legal)

