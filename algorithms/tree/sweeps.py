"""Jitted level-by-level sweeps over a GameTree: reach, values, best responses.

Policies are [infosets, actions] arrays of action probabilities. A `mask` of
the same shape restricts the game: best responses choose only masked actions.
All arithmetic is float64 (JAX's x64 mode is enabled for these calls only).

On the device a tree, or the sub-tree of its `keep` nodes (a restricted game,
see `TreeSweeps(keep=...)`), is a flat list of nodes in level order, each row
also describing the edge from its parent. Every layout of one tree has the
same array sizes (the whole tree's node count, plus a chunk), so one
compilation of each sweep serves the tree and all its sub-trees: XDO's
restricted games grow without compiling anything again. A sweep walks the
levels (top-down for reach probabilities, bottom-up for values and best
responses) and, within a level, the nodes the layout holds in chunks of
`Layout.chunk`, in `fori_loop`s whose trip counts are data: its time follows
the nodes laid out, not the array sizes. Results move between levels through
node-indexed buffers updated by one scatter each per step (XLA updates those
in place in a loop; a second scatter or a dynamic-update-slice into the same
step makes it copy the whole buffer every step), and every buffer a sweep
accumulates into is left zero for the next.
"""

import dataclasses
import functools
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import policies as policies_lib
from open_spiel_ext.games import registry
import pyspiel

CHANCE_OWNER = 2  # Edge owners: 0, 1 (players) or 2 (chance and padding).
CHUNK = 512  # Nodes a sweep step handles at once.


@dataclasses.dataclass(frozen=True)
class Layout:
  """The static shape of a tree's layouts: what jit specialises on."""
  capacity: int  # Node slots: the whole tree's nodes and one chunk more.
  chunk: int
  levels: int
  num_infosets: int
  num_actions: int


def lay_out(tree: game_tree_lib.GameTree, keep: np.ndarray | None = None):
  """The Layout, kept nodes and device arrays of `tree`'s `keep` nodes.

  Args:
    tree: the game tree.
    keep: [nodes] which nodes to lay out (default all); parents of kept nodes
      must be kept.

  Returns:
    (layout, the kept nodes, arrays).
  """
  kept = np.arange(tree.num_nodes) if keep is None else np.flatnonzero(keep)
  layout = Layout(tree.num_nodes + CHUNK, CHUNK, tree.num_levels,
                  tree.num_infosets, tree.num_actions)
  level_of = np.repeat(np.arange(tree.num_levels), np.diff(tree.level_starts))
  position_of = np.zeros(tree.num_nodes, np.int64)
  position_of[kept] = np.arange(len(kept))
  parents = np.maximum(tree.parent[kept], 0)  # The root's row: its own.
  has_parent = tree.parent[kept] >= 0

  def column(values, fill, dtype):
    padded = np.full(layout.capacity, fill, dtype)
    padded[:len(kept)] = values
    return padded

  columns = {
      "player": column(tree.player[kept], game_tree_lib.TERMINAL, np.int32),
      "infoset": column(np.maximum(tree.infoset[kept], 0), 0, np.int32),
      "utility": column(tree.utility[kept], 0.0, np.float64),
      "parent": column(position_of[parents], 0, np.int32),
      "action": column(np.maximum(tree.action[kept], 0), 0, np.int32),
      "owner": column(np.where(has_parent & (tree.player[parents] >= 0),
                               tree.player[parents], CHANCE_OWNER),
                      CHANCE_OWNER, np.int32),
      "chance_prob": column(np.where(has_parent, tree.chance_prob[kept], 1.0),
                            0.0, np.float64),
      "parent_infoset": column(np.maximum(tree.infoset[parents], 0), 0,
                               np.int32),
  }
  # Level l is level_starts[l]:level_starts[l + 1]; a last, empty level.
  level_starts = np.searchsorted(level_of[kept], np.arange(tree.num_levels + 2))
  with jax.enable_x64(True):
    arrays = {name: jnp.asarray(value) for name, value in columns.items()}
    arrays["level_starts"] = jnp.asarray(level_starts, jnp.int32)
    arrays["infoset_player"] = jnp.asarray(tree.infoset_player, jnp.int32)
  return layout, kept, arrays


# Walking the nodes of a layout.


class Chunk(NamedTuple):
  """A chunk of consecutive node positions."""
  first: jax.Array  # [] the first position.
  index: jax.Array  # [chunk] the positions.
  valid: jax.Array  # [chunk] which lie in the walked range.

  def of(self, array: jax.Array) -> jax.Array:
    """The chunk's rows of a layout array: a slice, not a gather. (Buffers
    a step scatters into are read by gathers at `index`: XLA copies a
    buffer both sliced and scattered in a loop step.)"""
    return jax.lax.dynamic_slice_in_dim(array, self.first, len(self.index))

  def targets(self, layout: Layout) -> jax.Array:
    """Scatter targets: the positions, out of range (dropped) where not
    valid."""
    return jnp.where(self.valid, self.index, layout.capacity)


def _over_range(layout: Layout, start, end, body, carry):
  """Runs `body(chunk, carry) -> carry` over the node positions
  start .. end − 1, a Chunk at a time."""
  chunks = (end - start + layout.chunk - 1) // layout.chunk

  def step(number, carry):
    first = start + number * layout.chunk
    index = first + jnp.arange(layout.chunk)
    return body(Chunk(first, index, index < end), carry)

  return jax.lax.fori_loop(0, chunks, step, carry)


def _over_level(layout: Layout, arrays, level, body, carry):
  starts = arrays["level_starts"]
  return _over_range(layout, starts[level], starts[level + 1], body, carry)


def over_nodes(layout: Layout, arrays, body, carry):
  """Runs `body(chunk, carry) -> carry` over every node laid out."""
  return _over_range(layout, 0, arrays["level_starts"][-1], body, carry)


def _add(buffer, targets, values):
  return buffer.at[targets].add(values, mode="drop")


def _clear_and_add(buffer, chunk: Chunk, layout: Layout, targets, values):
  """`buffer` with the chunk's entries back to zero and `values` added at
  `targets`, in one scatter-add."""
  return _add(buffer, jnp.concatenate([chunk.targets(layout), targets]),
              jnp.concatenate([-buffer[chunk.index], values]))


def edge_weights(arrays, policy, chunk: Chunk):
  """[chunk] probability of the edge into each node of the chunk."""
  return jnp.where(chunk.of(arrays["owner"]) == CHANCE_OWNER,
                   chunk.of(arrays["chance_prob"]),
                   policy[chunk.of(arrays["parent_infoset"]),
                          chunk.of(arrays["action"])])


class Scratch(NamedTuple):
  """Node-indexed buffers the sweeps write into. The accumulators are zero
  between sweeps (each sweep clears what it added); `reach` and `values`
  hold the last sweep's."""
  reach: jax.Array  # [capacity, 3] player 0's, 1's and chance's.
  values: jax.Array  # [capacity]
  below: jax.Array  # [capacity] sums from the level below.
  chosen: jax.Array  # [capacity] best responses' chosen children.


@functools.partial(jax.jit, static_argnums=(0,))
def new_scratch(layout: Layout) -> Scratch:
  """Zeroed buffers (distinct ones: a jitted sweep donates them)."""
  return Scratch(jnp.zeros((layout.capacity, 3)),
                 *(jnp.zeros(layout.capacity) for _ in range(3)))


def reach_probabilities(layout: Layout, arrays, policy,
                        scratch: Scratch) -> Scratch:
  """scratch.reach := every node's reach probabilities (player 0's, 1's and
  chance's)."""
  owners = jnp.arange(3)

  def fill(level, reach):
    def body(chunk, reach):
      factor = jnp.where(chunk.of(arrays["owner"])[:, None] == owners,
                         edge_weights(arrays, policy, chunk)[:, None], 1.0)
      return reach.at[chunk.targets(layout)].set(
          reach[chunk.of(arrays["parent"])] * factor, mode="drop")
    return _over_level(layout, arrays, level, body, reach)

  reach = jax.lax.fori_loop(1, layout.levels, fill,
                            scratch.reach.at[0].set(1.0))
  return scratch._replace(reach=reach)


def node_values(layout: Layout, arrays, policy, scratch: Scratch,
                sign=1.0, visit=None, visited=None):
  """scratch.values := `sign` × player 0's expected utility below every node
  laid out. With `visit`, also folds `visited = visit(chunk, values,
  visited)` over the chunks as their values are known (children first), and
  returns (scratch, visited)."""

  def level_values(step, carry):
    level = layout.levels - 1 - step

    def body(chunk, carry):
      values, below, visited = carry
      at = chunk.targets(layout)
      value = sign * chunk.of(arrays["utility"]) + below[chunk.index]
      up = jnp.where(chunk.valid & (level > 0), chunk.of(arrays["parent"]),
                     layout.capacity)
      below = _clear_and_add(below, chunk, layout, up,
                             edge_weights(arrays, policy, chunk) * value)
      if visit is not None:
        visited = visit(chunk, value, visited)
      return values.at[at].set(value, mode="drop"), below, visited

    return _over_level(layout, arrays, level, body, carry)

  values, below, visited = jax.lax.fori_loop(
      0, layout.levels, level_values, (scratch.values, scratch.below,
                                       visited))
  scratch = scratch._replace(values=values, below=below)
  return scratch if visit is None else (scratch, visited)


def counterfactual_reach(reach, nodes, player):
  """Reach of everyone but `player` (opponent and chance) of `nodes`."""
  return reach[nodes, 1 - player] * reach[nodes, CHANCE_OWNER]


def _jit(function):
  """Jitted with the Layout static and the scratch (argument 2) donated, so
  that its buffers are reused in place from call to call."""
  return jax.jit(function, static_argnums=(0,), donate_argnums=(2,))


@_jit
def _best_response(layout: Layout, arrays, scratch: Scratch, policy, mask,
                   player):
  """Value of `player`'s best response, its action per infoset, scratch.

  Bottom-up, level by level: the children of a level's nodes add their
  counterfactual-reach-weighted values to their information state's action
  values (edges of `player`) or their weighted values to their parent's
  (other edges); the level's best actions are then the masked argmax of
  those sums, and a node of `player` is worth its best action's child.
  """
  scratch = reach_probabilities(layout, arrays, policy, scratch)
  sign = 1.0 - 2.0 * player

  def chosen_children(level, best, scratch: Scratch) -> Scratch:
    """Adds to each node of `level` its child along its information
    state's best action (edges of `player` only; none below the last
    level, which is empty)."""

    def body(chunk, scratch):
      picked = (chunk.valid & (chunk.of(arrays["owner"]) == player) &
                (chunk.of(arrays["action"]) ==
                 best[chunk.of(arrays["parent_infoset"])]))
      return scratch._replace(chosen=_add(
          scratch.chosen, jnp.where(picked, chunk.of(arrays["parent"]),
                                    layout.capacity),
          scratch.values[chunk.index]))

    return _over_level(layout, arrays, level + 1, body, scratch)

  def level_step(step, carry):
    scratch, action_values = carry
    level = layout.levels - 1 - step
    best = masking.masked_argmax(action_values, mask).astype(jnp.int32)
    scratch = chosen_children(level, best, scratch)

    def body(chunk, carry):
      scratch, action_values = carry
      at = chunk.targets(layout)
      value = (sign * chunk.of(arrays["utility"]) + scratch.below[chunk.index] +
               scratch.chosen[chunk.index])
      edge = chunk.valid & (level > 0)
      mine = edge & (chunk.of(arrays["owner"]) == player)
      parent = chunk.of(arrays["parent"])
      action_values = action_values.at[
          jnp.where(mine, chunk.of(arrays["parent_infoset"]),
                    layout.num_infosets), chunk.of(arrays["action"])].add(
                        counterfactual_reach(scratch.reach, parent, player) *
                        value, mode="drop")
      return scratch._replace(
          values=scratch.values.at[at].set(value, mode="drop"),
          below=_clear_and_add(
              scratch.below, chunk, layout,
              jnp.where(edge & ~mine, parent, layout.capacity),
              edge_weights(arrays, policy, chunk) * value),
          chosen=_add(scratch.chosen, at, -scratch.chosen[chunk.index])
      ), action_values

    return _over_level(layout, arrays, level, body, (scratch, action_values))

  scratch, action_values = jax.lax.fori_loop(
      0, layout.levels, level_step,
      (scratch, jnp.zeros((layout.num_infosets, layout.num_actions))))
  return scratch.values[0], masking.masked_argmax(
      action_values, mask).astype(jnp.int32), scratch


@_jit
def _expected_values(layout: Layout, arrays, scratch: Scratch, policies):
  """[K] player 0's expected utility under each of `policies`, scratch."""

  def one(scratch, policy):
    scratch = node_values(layout, arrays, policy, scratch)
    return scratch, scratch.values[0]

  scratch, values = jax.lax.scan(one, scratch, policies)
  return values, scratch


@_jit
def _own_reach(layout: Layout, arrays, scratch: Scratch, policy, player):
  """[infosets] `player`'s own reach probability of each information state,
  scratch."""
  scratch = reach_probabilities(layout, arrays, policy, scratch)

  def body(chunk, own):
    mine = chunk.valid & (chunk.of(arrays["player"]) == player)
    return own.at[jnp.where(mine, chunk.of(arrays["infoset"]),
                            layout.num_infosets)].max(
                                scratch.reach[chunk.index][:, player],
                                mode="drop")

  own = over_nodes(layout, arrays, body, jnp.zeros(layout.num_infosets))
  return own, scratch


def for_game(game: "str | pyspiel.Game",
             max_nodes: Optional[int] = None) -> "TreeSweeps":
  """The TreeSweeps of a game or game string: loaded (`registry.load_game`),
  walked once (`game_tree.build_tree`), laid out.

  Raises:
    ValueError: the string names no registered game, the tree engine cannot
      walk the game, or (with `max_nodes`) its tree has more nodes.
  """
  if isinstance(game, str):
    game = registry.load_game(game)
  return TreeSweeps(game_tree_lib.build_tree(game, max_nodes))


def check_is_sweeps(value: Any, taker: str) -> None:
  """Raises TypeError, naming `taker` and what it takes, unless `value` is a
  TreeSweeps (a game string or a pyspiel game is the usual mistake)."""
  if not isinstance(value, TreeSweeps):
    raise TypeError(
        f"{taker} takes a game's TreeSweeps, "
        "sweeps.for_game(game_string), "
        f"not {type(value).__name__} {value!r}")


# How far a policy's probabilities at an information state may sum from 1
# (float32 networks' softmax included).
POLICY_TOLERANCE = 1e-5


class TreeSweeps:
  """A GameTree (or the sub-tree of its `keep` nodes) on the device."""

  def __init__(self, tree: game_tree_lib.GameTree,
               keep: np.ndarray | None = None):
    self.tree = tree
    self.layout, self.nodes, self.arrays = lay_out(tree, keep)
    self._scratch = None  # Made at the first sweep, then reused.

  @property
  def num_histories(self) -> int:
    return len(self.nodes)

  def _sweep(self, function, *args) -> list[np.ndarray]:
    """`function(layout, arrays, scratch, *args)`'s results; it gives the
    scratch buffers back for the next sweep."""
    with jax.enable_x64(True):
      if self._scratch is None:
        self._scratch = new_scratch(self.layout)
      *results, self._scratch = function(
          self.layout, self.arrays, self._scratch,
          *(jnp.asarray(arg) if isinstance(arg, np.ndarray) else arg
            for arg in args))
      return [np.asarray(result) for result in results]

  def check_policy(self, policy: np.ndarray) -> np.ndarray:
    """`policy` as an array, if it is one of this tree: [infosets, actions],
    at each information state a distribution over its legal actions.

    Raises:
      ValueError: another shape, or a row with a negative, NaN or infinite
        probability, mass on an illegal action, or a sum other than 1
        (within POLICY_TOLERANCE), naming the information state.
    """
    policy = np.asarray(policy)
    legal = self.tree.legal
    if policy.shape != legal.shape:
      raise ValueError(
          f"a policy of shape {policy.shape} on a tree of shape "
          f"{legal.shape} ([information states, actions]) of "
          f"{self.tree.game}")
    problems = (
        (~np.isfinite(policy).all(axis=1), "a probability that is not a "
         "finite number"),
        ((policy < 0).any(axis=1), "a negative probability"),
        (((policy != 0) & ~legal).any(axis=1), "probability on an illegal "
         "action"),
        (np.abs(policy.sum(axis=1) - 1) > POLICY_TOLERANCE,
         "probabilities that do not sum to 1"))
    for bad, problem in problems:
      if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"the policy gives information state {row} "
            f"({self.tree.infoset_keys[row]!r}) {problem}: "
            f"{policy[row].tolist()} over legal actions "
            f"{np.flatnonzero(legal[row]).tolist()} ({int(bad.sum())} "
            "such states)")
    return policy

  def expected_value(self, policy: np.ndarray) -> float:
    """Player 0's expected utility when both play `policy`."""
    return float(self.expected_values(np.asarray(policy)[None])[0])

  def expected_values(self, policies: np.ndarray,
                      batch: int = 16) -> np.ndarray:
    """Player 0's expected utility under each of [K, infosets, actions]."""
    policies = np.stack([self.check_policy(p) for p in policies]) if len(
        policies) else np.zeros((0, *self.tree.legal.shape))
    values = [self._sweep(_expected_values, policies[start:start + batch])[0]
              for start in range(0, len(policies), batch)]
    return np.concatenate(values) if values else np.zeros(0)

  def own_reach(self, policy: np.ndarray, player: int) -> np.ndarray:
    """[infosets] `player`'s own probability of reaching each information
    state under `policy` (its own actions only; meaningful on its states)."""
    return self._sweep(_own_reach, self.check_policy(policy), player)[0]

  def best_response(self, policy: np.ndarray, player: int,
                    mask: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """`player`'s best response to `policy`, among `mask`'s actions.

    Returns:
      (its value to `player`, the action it plays at each information state;
      only `player`'s entries are meaningful).
    """
    mask = self.tree.legal if mask is None else mask
    value, actions = self._sweep(_best_response, self.check_policy(policy),
                                 mask, player)
    return float(value), actions

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
