"""A two-player zero-sum game walked once into flat arrays.

Every history (node) of the game gets a row: who acts, its information state,
its parent, the action that led to it, the chance probability of that action,
and, at terminals, player 0's utility. Nodes are numbered level by level (a
node's level is its depth). Sweeps (`sweeps.py`) then go over levels top-down
for reach probabilities and bottom-up for values, one vectorised step per
level, which needs every information set to lie on one level: games whose
information sets mix depths are refused with a ValueError.

Games wrapped around an OpenSpiel C++ game (`open_spiel_ext.games.wrapped`) are
not walked through their Python states: the inner C++ game is walked once, and
its tree is expanded level by level through the wrapper's action map (2-Clone
Leduc's 468,517 histories come from Leduc's 9,457).
"""

import dataclasses
import functools
from typing import Optional

import numpy as np

from open_spiel_ext.games import wrapped
import pyspiel

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


@dataclasses.dataclass(frozen=True)
class GameTree:
  """The arrays of a game tree; nodes in level order, the root first.

  Attributes:
    game: the game that was walked.
    num_actions: the game's number of distinct actions.
    player: [nodes] 0 or 1 at decisions, CHANCE, or TERMINAL.
    infoset: [nodes] information-state index at decisions, else -1.
    parent: [nodes] parent node, -1 at the root.
    action: [nodes] action leading from the parent, -1 at the root.
    chance_prob: [nodes] probability of that action if the parent is a chance
      node, else 1.
    utility: [nodes] player 0's utility at terminals, else 0.
    level_starts: [levels + 1] nodes of level L are
      level_starts[L]:level_starts[L+1].
    infoset_player: [infosets] the player acting there.
    legal: [infosets, num_actions] legal-action mask.
    infoset_keys: [infosets] information-state strings.
    infoset_node: [infosets] one node of each information set.
  """
  game: pyspiel.Game
  num_actions: int
  player: np.ndarray
  infoset: np.ndarray
  parent: np.ndarray
  action: np.ndarray
  chance_prob: np.ndarray
  utility: np.ndarray
  level_starts: np.ndarray
  infoset_player: np.ndarray
  legal: np.ndarray
  infoset_keys: tuple[str, ...]
  infoset_node: np.ndarray

  @property
  def num_nodes(self) -> int:
    return len(self.player)

  @property
  def num_infosets(self) -> int:
    return len(self.infoset_player)

  @property
  def num_levels(self) -> int:
    return len(self.level_starts) - 1

  def level_width(self, keep: np.ndarray | None = None) -> int:
    """The most nodes (of `keep`, default all) on one level."""
    levels = np.repeat(np.arange(self.num_levels), np.diff(self.level_starts))
    if keep is not None:
      levels = levels[keep]
    return int(np.bincount(levels).max())

  def reachable(self, mask: np.ndarray) -> np.ndarray:
    """[nodes] which histories are reached playing only `mask`'s actions."""
    parent_infoset = self.infoset[self.parent[1:]]
    decision = np.flatnonzero(parent_infoset >= 0) + 1  # Chance edges stay.
    allowed = np.ones(self.num_nodes, bool)
    allowed[decision] = mask[parent_infoset[decision - 1],
                             self.action[decision]]
    for start, end in zip(self.level_starts[1:-1], self.level_starts[2:]):
      allowed[start:end] &= allowed[self.parent[start:end]]
    return allowed

  @functools.cached_property
  def children(self) -> np.ndarray:
    """[nodes, action ids] the child reached by each action, or -1."""
    width = int(self.action.max()) + 1
    table = np.full((self.num_nodes, width), -1, np.int64)
    table[self.parent[1:], self.action[1:]] = np.arange(1, self.num_nodes)
    return table

  def history(self, node: int) -> list[int]:
    """The actions from the root to `node`."""
    actions = []
    while self.parent[node] >= 0:
      actions.append(int(self.action[node]))
      node = self.parent[node]
    return actions[::-1]

  def state(self, node: int) -> pyspiel.State:
    """The game state of `node`, rebuilt from its history."""
    state = self.game.new_initial_state()
    for action in self.history(node):
      state.apply_action(action)
    return state


def check_game(game: pyspiel.Game) -> None:
  """Raises ValueError unless the tree engine can walk `game`: 2 players,
  sequential, zero-sum, explicit chance, information-state strings."""
  game_type = game.get_type()
  if game.num_players() != 2:
    raise ValueError(f"The tree engine needs a 2-player game; {game} has "
                     f"num_players={game.num_players()}")
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise ValueError(f"The tree engine needs a sequential game; {game} has "
                     f"dynamics={game_type.dynamics}: load it through "
                     "turn_based_simultaneous_game")
  if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
    raise ValueError(f"The tree engine needs a zero-sum game; {game} has "
                     f"utility={game_type.utility}")
  if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
    raise ValueError(f"The tree engine needs explicit chance; {game} has "
                     "chance_mode=SAMPLED_STOCHASTIC")
  if not game_type.provides_information_state_string:
    raise ValueError(f"The tree engine needs information-state strings, "
                     f"which {game} does not provide")


def _walk(root: pyspiel.State, max_nodes: Optional[int]):
  """Walks the whole tree depth first; returns per-node lists and infosets.

  Raises:
    ValueError: the tree has more than `max_nodes` nodes.
  """
  players, infosets, parents, actions, probs, utilities, depths = ([], [], [],
                                                                   [], [], [],
                                                                   [])
  infoset_ids = {}
  infoset_actions = []
  stack = [(root, -1, -1, 1.0, 0)]
  while stack:
    state, parent, action, prob, depth = stack.pop()
    node = len(players)
    if max_nodes is not None and node >= max_nodes:
      raise ValueError(f"{root.get_game()} has more than max_nodes="
                       f"{max_nodes} nodes")
    depths.append(depth)
    parents.append(parent)
    actions.append(action)
    probs.append(prob)
    if state.is_terminal():
      players.append(TERMINAL)
      infosets.append(-1)
      utilities.append(state.returns()[0])
      continue
    utilities.append(0.0)
    player = state.current_player()
    players.append(player)
    if player == CHANCE:
      infosets.append(-1)
      stack.extend((state.child(a), node, a, p, depth + 1)
                   for a, p in reversed(state.chance_outcomes()))
      continue
    key = (player, state.information_state_string(player))
    legal = state.legal_actions()
    infoset = infoset_ids.setdefault(key, len(infoset_ids))
    if infoset == len(infoset_actions):
      infoset_actions.append((legal, node))
    infosets.append(infoset)
    stack.extend((state.child(a), node, a, 1.0, depth + 1)
                 for a in reversed(legal))
  return (players, infosets, parents, actions, probs, utilities, depths,
          infoset_ids, infoset_actions)


def _check_one_depth_per_infoset(game: pyspiel.Game, depth: np.ndarray,
                                 infoset: np.ndarray,
                                 num_infosets: int) -> None:
  decisions = infoset >= 0
  shallowest = np.full(num_infosets, np.iinfo(np.int64).max)
  deepest = np.zeros(num_infosets, np.int64)
  np.minimum.at(shallowest, infoset[decisions], depth[decisions])
  np.maximum.at(deepest, infoset[decisions], depth[decisions])
  if np.any(shallowest != deepest):
    raise ValueError(f"The tree engine needs each information set at one "
                     f"depth; {game} has information sets spanning depths")


def build_tree(game: pyspiel.Game,
               max_nodes: Optional[int] = None) -> GameTree:
  """Walks `game` once into a GameTree.

  Raises:
    TypeError: `game` is not a pyspiel game.
    ValueError: the tree engine cannot walk `game`, or (with `max_nodes`) its
      tree has more nodes than that.
  """
  if not isinstance(game, pyspiel.Game):
    raise TypeError("build_tree takes a pyspiel game "
                    f"(pyspiel.load_game(...)), not {type(game).__name__} "
                    f"{game!r}")
  check_game(game)
  if isinstance(game, wrapped.WrappedGame):
    return _expand_wrapped(game, build_tree(game.inner_game, max_nodes))
  (players, infosets, parents, actions, probs, utilities, depths, infoset_ids,
   infoset_actions) = _walk(game.new_initial_state(), max_nodes)
  parent = np.asarray(parents, np.int64)
  infoset = np.asarray(infosets, np.int64)
  level = np.asarray(depths, np.int64)
  _check_one_depth_per_infoset(game, level, infoset, len(infoset_ids))
  order = np.argsort(level, kind="stable")  # Keeps depth-first order within.
  new_index = np.empty_like(order)
  new_index[order] = np.arange(len(order))
  parent_sorted = parent[order]
  parent_sorted[parent_sorted >= 0] = new_index[parent_sorted[
      parent_sorted >= 0]]

  num_actions = game.num_distinct_actions()
  legal = np.zeros((len(infoset_ids), num_actions), bool)
  infoset_node = np.zeros(len(infoset_ids), np.int64)
  for index, (legal_actions, node) in enumerate(infoset_actions):
    legal[index, legal_actions] = True
    infoset_node[index] = new_index[node]
  keys = sorted(infoset_ids, key=infoset_ids.get)
  return GameTree(
      game=game,
      num_actions=num_actions,
      player=np.asarray(players, np.int8)[order],
      infoset=infoset[order].astype(np.int32),
      parent=parent_sorted.astype(np.int32),
      action=np.asarray(actions, np.int32)[order],
      chance_prob=np.asarray(probs, np.float64)[order],
      utility=np.asarray(utilities, np.float64)[order],
      level_starts=np.searchsorted(level[order],
                                   np.arange(level.max() + 2)),
      infoset_player=np.asarray([player for player, _ in keys], np.int8),
      legal=legal,
      infoset_keys=tuple(key for _, key in keys),
      infoset_node=infoset_node)


def _outer_children(inner: GameTree, action_map: wrapped.ActionMap):
  """Per inner node, its children in the wrapped game: CSR arrays.

  Returns:
    (start of each inner node's run, outer action ids, inner children).
  """
  counts = np.zeros(inner.num_nodes, np.int64)
  outer_actions, inner_children = [], []
  for node in np.flatnonzero(inner.player != TERMINAL):
    player = int(inner.player[node])
    children = inner.children[node]
    legal = np.flatnonzero(children >= 0).tolist()
    if player >= 0:
      legal = action_map.outer_actions(player, legal)
    for action in legal:
      outer_actions.append(action)
      inner_children.append(children[action_map.inner_action(player, action)])
    counts[node] = len(legal)
  starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
  return (starts, counts, np.asarray(outer_actions, np.int64),
          np.asarray(inner_children, np.int64))


def _expand_wrapped(game: wrapped.WrappedGame, inner: GameTree) -> GameTree:
  """The wrapped game's tree from its inner game's, level by level."""
  starts, counts, outer_actions, inner_children = _outer_children(
      inner, game.action_map)
  inner_of = [np.zeros(1, np.int64)]  # Inner node of each outer node.
  parents, actions = [np.full(1, -1)], [np.full(1, -1)]
  offset = 0
  while True:
    level = inner_of[-1]
    fan_out = counts[level]
    if not fan_out.sum():
      break
    parent = np.repeat(np.arange(len(level)) + offset, fan_out)
    first = np.repeat(starts[level] - np.cumsum(fan_out) + fan_out, fan_out)
    flat = first + np.arange(fan_out.sum())
    offset += len(level)
    inner_of.append(inner_children[flat])
    parents.append(parent)
    actions.append(outer_actions[flat])
  inner_of = np.concatenate(inner_of)
  depth = np.repeat(np.arange(len(parents)), [len(p) for p in parents])
  legal = np.zeros((inner.num_infosets, game.num_distinct_actions()), bool)
  for infoset, inner_legal in enumerate(inner.legal):
    player = int(inner.infoset_player[infoset])
    legal[infoset, game.action_map.outer_actions(
        player, np.flatnonzero(inner_legal).tolist())] = True
  first_outer = np.zeros(inner.num_nodes, np.int64)
  first_outer[inner_of[::-1]] = np.arange(len(inner_of))[::-1]
  return GameTree(
      game=game,
      num_actions=game.num_distinct_actions(),
      player=inner.player[inner_of],
      infoset=inner.infoset[inner_of],
      parent=np.concatenate(parents).astype(np.int32),
      action=np.concatenate(actions).astype(np.int32),
      chance_prob=inner.chance_prob[inner_of],
      utility=inner.utility[inner_of],
      level_starts=np.searchsorted(depth, np.arange(depth.max() + 2)),
      infoset_player=inner.infoset_player,
      legal=legal,
      infoset_keys=inner.infoset_keys,
      infoset_node=first_outer[inner.infoset_node])


def sample_utilities(tree: GameTree, policy: np.ndarray, num_samples: int,
                     rng: np.random.RandomState) -> np.ndarray:
  """Player 0's utilities in `num_samples` games played by `policy`."""
  children = tree.children
  nodes = np.zeros(num_samples, np.int64)
  for _ in range(tree.num_levels):
    active = tree.player[nodes] != TERMINAL
    if not active.any():
      break
    at = nodes[active]
    child_rows = children[at]
    probs = np.where(child_rows >= 0, tree.chance_prob[child_rows], 0.0)
    decision = tree.player[at] >= 0
    row_policy = np.zeros_like(probs)
    row_policy[:, :tree.num_actions] = policy[np.maximum(tree.infoset[at], 0)]
    probs = np.where(decision[:, None], row_policy, probs)
    cumulative = np.cumsum(probs, axis=1)
    draws = rng.uniform(size=(len(at), 1)) * cumulative[:, -1:]
    actions = np.minimum((cumulative <= draws).sum(axis=1),
                         probs.shape[1] - 1)
    nodes[active] = child_rows[np.arange(len(at)), actions]
  return tree.utility[nodes]


def tree_sizes(tree: GameTree) -> dict[str, int]:
  """Counts of histories by kind and of information states."""
  return {
      "histories": tree.num_nodes,
      "decision": int(np.sum(tree.player >= 0)),
      "terminal": int(np.sum(tree.player == TERMINAL)),
      "chance": int(np.sum(tree.player == CHANCE)),
      "information_states": tree.num_infosets,
  }

