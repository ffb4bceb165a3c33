"""Batch beam search and greedy search with a free-label network.

Beam search keeps the `beam_width` best states of each depth. A step
expands every state of the beam with one engine call, ranks all children
with one network call (`free_labels.Scorer`): a distance network keeps the
children of lowest estimated distance (CayleyPy), a policy network the
paths of highest log-probability (EfficientCube), and drops duplicates: a
child whose hash is that of a better child of the same depth, or of a state
of the last `history` depths. The step is one jitted function of fixed
shapes. The search stops at the first depth holding a goal, after
`max_depth` depths, or once `max_nodes` states have been expanded.

Greedy search takes the cheapest move each time (`free_labels.greedy_walk`;
on Lights Out never pressing a button twice).

Every solution found is replayed in the pyspiel game before it is returned:
a search cannot report a solution that does not solve the puzzle.
"""

import dataclasses
import functools
import time
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel

from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.games.puzzles import single_player

SOLVED = "solved"
DEPTH_LIMIT = "depth limit reached"
NODE_BUDGET = "node budget reached"
TIME_BUDGET = "time budget reached"
STUCK = "no move left"
_HASH_SEED = 20240501
_EMPTY = np.uint32(2**32 - 1)  # The hash of no state (a free slot).


@dataclasses.dataclass
class SearchResult:
  """A solution (or none) and what it cost.

  Attributes:
    actions: the moves from the start to the goal, None if none was found.
    nodes_expanded: states whose children were generated.
    children: children generated (and ranked).
    network_states: states the network was evaluated on (the children for
      a distance network, the expanded states for a policy network).
    depth: depths searched (beam expansions).
    seconds: wall-clock time (compilations included).
    stop_reason: SOLVED, DEPTH_LIMIT, NODE_BUDGET, TIME_BUDGET or STUCK.
  """
  actions: Optional[list[int]]
  nodes_expanded: int
  children: int
  network_states: int
  depth: int
  seconds: float
  stop_reason: str


def state_hashes(states: jax.Array, salt: int) -> jax.Array:
  """[..., D] int8 states -> [...] uint32 hashes: Σ (s_i + 1)·w_i mod 2^32
  with random odd weights w (two salts give two independent hashes)."""
  weights = jax.random.randint(jax.random.PRNGKey(_HASH_SEED + salt),
                               (states.shape[-1],), 0, 2**31 - 1,
                               dtype=jnp.int32).astype(jnp.uint32) * 2 + 1
  return jnp.sum((states.astype(jnp.uint32) + 1) * weights, axis=-1,
                 dtype=jnp.uint32)


class BeamSearch:
  """Beam search of one width over one model (its jitted step compiled once
  for all searches)."""

  def __init__(self, model: free_labels.Model, beam_width: int,
               history: int = 4):
    if beam_width < 1:
      raise ValueError(f"beam_width must be >= 1, got {beam_width}")
    if history < 1:
      raise ValueError(f"history must be >= 1, got {history}")
    self.model = model
    self.engine = model.engine
    self.beam_width = beam_width
    self.history = history
    self._step = jax.jit(self._beam_step)

  def _beam_step(self, params: Any, net_state: Any, beam: jax.Array,
                 costs: jax.Array, seen: jax.Array) -> tuple[jax.Array, ...]:
    """One depth: the next beam, its costs, parents and moves, which
    children are goals, and the hashes seen (sorted, oldest depth dropped).

    `costs` is +inf on empty slots; `seen` [history·W] holds the hashes of
    the last depths' beams (padded with the largest uint32)."""
    engine, width = self.engine, self.beam_width
    scorer = self.model.scorer(params, net_state)
    children = engine.next_states(beam)
    actions = children.shape[1]
    legal = (engine.legal_mask(beam) & jnp.isfinite(costs)[:, None] &
             jnp.any(children != beam[:, None], axis=-1))
    step_costs = scorer.children_costs(beam, children)
    if scorer.uses_children:  # Rank by the children's estimates alone.
      child_costs = step_costs
    else:  # Rank by the path's negative log-probability.
      child_costs = costs[:, None] + step_costs
    goals = legal & engine.is_goal(children.reshape(
        (width * actions,) + children.shape[2:])).reshape(width, actions)
    flat = children.reshape((width * actions,) + children.shape[2:])
    first, second = state_hashes(flat, 0), state_hashes(flat, 1)
    child_costs = jnp.where(legal, child_costs, jnp.inf).ravel()
    position = jnp.clip(jnp.searchsorted(seen, first), 0, seen.shape[0] - 1)
    child_costs = jnp.where(seen[position] == first, jnp.inf, child_costs)
    order = jnp.lexsort((child_costs, second, first))
    repeated = jnp.concatenate([
        jnp.zeros(1, bool),
        (first[order][1:] == first[order][:-1]) &
        (second[order][1:] == second[order][:-1])])
    child_costs = child_costs.at[order].set(
        jnp.where(repeated, jnp.inf, child_costs[order]))
    negated, kept = jax.lax.top_k(-child_costs, width)
    next_costs = -negated
    fresh = jnp.where(jnp.isfinite(next_costs), first[kept],
                      _EMPTY)
    seen = jnp.sort(jnp.concatenate([seen[width:], fresh]))
    return (flat[kept], next_costs, kept // actions, kept % actions, goals,
            seen)

  def search(self, start: np.ndarray, max_depth: int = 100,
             max_nodes: Optional[int] = None,
             max_seconds: float = float("inf")) -> SearchResult:
    """Searches from `start` (a state of the model's puzzle), giving up
    after `max_depth` depths, `max_nodes` states expanded or `max_seconds`
    (checked between depths)."""
    if not max_seconds > 0:
      raise ValueError(f"max_seconds must be > 0, got {max_seconds}")
    if max_depth < 1:
      raise ValueError(f"max_depth must be >= 1, got {max_depth}")
    if max_nodes is not None and max_nodes < 1:
      raise ValueError(f"max_nodes must be >= 1, got {max_nodes}")
    began = time.perf_counter()
    start = _checked_start(self.model, start)
    width = self.beam_width
    beam = jnp.broadcast_to(jnp.asarray(start), (width,) + start.shape)
    costs = jnp.full(width, jnp.inf).at[0].set(0.0)
    seen = jnp.sort(jnp.full(self.history * width, _EMPTY,
                             jnp.uint32).at[0].set(state_hashes(start, 0)))
    parents, moves = [], []
    expanded = children = network_states = depth = 0
    per_child = not self.model.is_policy

    def result(actions, reason):
      return SearchResult(actions, expanded, children, network_states,
                          depth, time.perf_counter() - began, reason)

    if np.asarray(self.engine.is_goal(start[None]))[0]:
      return result([], SOLVED)
    for _ in range(max_depth):
      if max_nodes is not None and expanded >= max_nodes:
        return result(None, NODE_BUDGET)
      if time.perf_counter() - began >= max_seconds:
        return result(None, TIME_BUDGET)
      live = int(np.isfinite(np.asarray(costs)).sum())
      if not live:
        return result(None, STUCK)
      (next_beam, next_costs, parent, move, goals,
       seen) = self._step(self.model.params, self.model.net_state, beam,
                          costs, seen)
      goals = np.asarray(goals)
      depth += 1
      expanded += live
      generated = live * self.engine.num_actions
      children += generated
      network_states += generated if per_child else width
      if goals.any():
        row, action = np.argwhere(goals)[0]
        return result(_replayed(self.model, start, _path(
            parents, moves, int(row)) + [int(action)]), SOLVED)
      parents.append(np.asarray(parent))
      moves.append(np.asarray(move))
      beam, costs = next_beam, next_costs
    return result(None, DEPTH_LIMIT)


@functools.lru_cache(maxsize=8)
def _searcher(model: free_labels.Model, beam_width: int) -> BeamSearch:
  return BeamSearch(model, beam_width)


def beam_search(model: free_labels.Model, start: np.ndarray,
                beam_width: int, max_depth: int = 100,
                max_nodes: Optional[int] = None,
                max_seconds: float = float("inf")) -> SearchResult:
  """`BeamSearch(model, beam_width).search(start, ...)`, the searcher kept
  for the next call of the same model and width."""
  return _searcher(model, beam_width).search(start, max_depth, max_nodes,
                                             max_seconds)


def greedy(model: free_labels.Model, start: np.ndarray,
           max_moves: Optional[int] = None) -> SearchResult:
  """The greedy search from `start`: with a "pressed" model it never presses
  a button twice (at most one press each); at most `max_moves` moves
  (default: the number of moves for "pressed", else 200)."""
  began = time.perf_counter()
  start = _checked_start(model, start)
  no_repeats = model.config.target == free_labels.PRESSED
  if max_moves is None:
    max_moves = model.engine.num_actions if no_repeats else 200
  if max_moves < 1:
    raise ValueError(f"max_moves must be >= 1, got {max_moves}")
  final, moves = _greedy_walk(model, max_moves, no_repeats)(
      model.params, model.net_state, jnp.asarray(start)[None])
  moves = [int(m) for m in np.asarray(moves)[:, 0] if m >= 0]
  solved = bool(np.asarray(model.engine.is_goal(final))[0])
  per_child = model.engine.num_actions if not model.is_policy else 1
  return SearchResult(
      _replayed(model, start, moves) if solved else None,
      len(moves), len(moves) * model.engine.num_actions,
      len(moves) * per_child, len(moves), time.perf_counter() - began,
      SOLVED if solved else (STUCK if len(moves) < max_moves
                             else DEPTH_LIMIT))


@functools.lru_cache(maxsize=8)
def _greedy_walk(model: free_labels.Model, max_moves: int, no_repeats: bool):
  return jax.jit(lambda params, net_state, starts: free_labels.greedy_walk(
      model.engine, model.scorer(params, net_state), starts, max_moves,
      no_repeats))


def _checked_start(model: free_labels.Model, start: np.ndarray) -> np.ndarray:
  """`start` as an int8 state; ValueError unless the puzzle can be in it."""
  engine = model.engine
  if np.shape(start) != tuple(engine.goal.shape):
    raise ValueError(
        f"start has shape {np.shape(start)}, but "
        f"{puzzles.model_name(model.config.puzzle, model.config.size)} "
        f"states have shape {tuple(engine.goal.shape)}")
  start = np.asarray(start, np.int8)
  engine.check_states(start[None])
  return start


def _path(parents: list[np.ndarray], moves: list[np.ndarray],
          row: int) -> list[int]:
  """The moves from the start to beam slot `row` of the last depth."""
  actions = []
  for parent, move in zip(reversed(parents), reversed(moves)):
    actions.append(int(move[row]))
    row = int(parent[row])
  return actions[::-1]


def _replayed(model: free_labels.Model, start: np.ndarray,
              actions: list[int]) -> list[int]:
  """`actions`, after checking in the pyspiel game that they take `start`
  to the goal (RuntimeError if not: a bug, never a result)."""
  puzzle = single_player.rules(model.config.puzzle, model.config.size)
  state = pyspiel.load_game(model.config.puzzle, {
      "size": model.config.size, "state": puzzle.to_string(start),
      "max_length": max(len(actions), 1)}).new_initial_state()
  for action in actions:
    state.apply_action(action)
  if not state.is_solved():
    raise RuntimeError(f"the search's moves {actions} do not solve "
                       f"{puzzle.to_string(start)}")
  return actions
