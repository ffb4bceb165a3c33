"""Batch weighted A* over a batched puzzle engine, with a pluggable batch heuristic.

Each step pops the `batch_size` open nodes of lowest f = weight·g + h,
expands them with one call of the engine (`next_states`, `legal_mask`), and
evaluates the heuristic on all their new children with one call; that call
can be a jitted network, which is how DeepCubeA's batch weighted A* (BWAS)
uses it. Ties in f go to the lower h. weight = 1 and batch_size = 1 is A*: optimal with an admissible
heuristic (nodes are reopened when reached by a shorter path). A smaller
weight, or a larger batch, trades solution length for fewer steps.

Calls are padded to few shapes so that jitted functions compile a few times
only: batch_size states per expansion, and heuristic calls rounded up to a
multiple of an eighth of batch_size·actions children.
"""

import dataclasses
import heapq
import itertools
import time
from typing import Any, Callable, Optional

import numpy as np

BatchHeuristic = Callable[[np.ndarray], np.ndarray]


@dataclasses.dataclass
class AStarResult:
  """A solution (or none) and what it cost.

  Attributes:
    actions: the moves from the start to the goal, None if none was found.
    nodes_generated: children whose heuristic was evaluated.
    expansions: nodes expanded.
    steps: batches expanded.
    seconds: wall-clock time.
  """
  actions: Optional[list[int]]
  nodes_generated: int
  expansions: int
  steps: int
  seconds: float


def engine_expander(engine: Any) -> Callable[[np.ndarray], tuple[np.ndarray,
                                                                 np.ndarray]]:
  """(children, legality) of a batch from an engine's jitted functions."""
  legal_mask = getattr(engine, "legal_mask", None)

  def expand(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    children = np.asarray(engine.next_states(states))
    if legal_mask is None:
      return children, np.ones(children.shape[:2], bool)
    return children, np.asarray(legal_mask(states))

  return expand


def _padded(rows: np.ndarray, size: int) -> np.ndarray:
  return np.concatenate([rows, np.repeat(rows[:1], size - len(rows), axis=0)])


class _Nodes:
  """Growing arrays of states, path costs, parents and the moves to them."""

  def __init__(self, start: np.ndarray):
    self.states = [start]
    self.cost = [0]
    self.parent = [-1]
    self.action = [-1]
    self.index = {start.tobytes(): 0}

  def add_or_improve(self, state: np.ndarray, cost: int, parent: int,
                     action: int) -> Optional[int]:
    """The node's id if it is new or now cheaper, else None."""
    key = state.tobytes()
    node = self.index.get(key)
    if node is None:
      node = len(self.states)
      self.index[key] = node
      self.states.append(state)
      self.cost.append(cost)
      self.parent.append(parent)
      self.action.append(action)
      return node
    if cost < self.cost[node]:
      self.cost[node], self.parent[node], self.action[node] = (cost, parent,
                                                               action)
      return node
    return None

  def path(self, node: int) -> list[int]:
    actions = []
    while self.parent[node] >= 0:
      actions.append(self.action[node])
      node = self.parent[node]
    return actions[::-1]


def batch_weighted_astar(start: np.ndarray,
                         expand: Callable[[np.ndarray], tuple[np.ndarray,
                                                              np.ndarray]],
                         heuristic: BatchHeuristic,
                         is_goal: Callable[[np.ndarray], np.ndarray],
                         weight: float = 1.0,
                         batch_size: int = 1,
                         max_nodes: int = 10_000_000) -> AStarResult:
  """Searches from `start` until a goal is popped or `max_nodes` generated.

  Args:
    start: one state.
    expand: children [N, A, ...] and legality [N, A] of N states
      (`engine_expander(engine)`).
    heuristic: [M, ...] states -> [M] estimates of the moves left.
    is_goal: [M] bools for a batch of states.
    weight: λ in f = λ·g + h.
    batch_size: nodes popped and expanded per step (N).
    max_nodes: give up (actions None) after generating this many children.
  """
  if not 0 <= weight <= 1:
    raise ValueError(f"weight must be in [0, 1], got weight={weight}")
  if batch_size < 1:
    raise ValueError(f"batch_size must be >= 1, got batch_size={batch_size}")
  began = time.perf_counter()
  start = np.asarray(start)
  nodes = _Nodes(start)
  tie = itertools.count()
  open_heap = [(0.0, 0.0, next(tie), 0, 0)]  # f, h, tie, node, cost pushed
  generated = expansions = steps = 0
  while open_heap and generated < max_nodes:
    popped = []
    while open_heap and len(popped) < batch_size:
      _, _, _, node, cost = heapq.heappop(open_heap)
      if cost == nodes.cost[node]:  # Not superseded by a cheaper path.
        popped.append(node)
    if not popped:
      break
    states = np.stack([nodes.states[n] for n in popped])
    goals = np.flatnonzero(np.asarray(is_goal(states)))
    if goals.size:
      best = min((popped[i] for i in goals), key=lambda n: nodes.cost[n])
      return AStarResult(nodes.path(best), generated, expansions, steps,
                         time.perf_counter() - began)
    children, legal = expand(_padded(states, batch_size))
    steps += 1
    expansions += len(popped)
    fresh = []
    for row, action in zip(*np.nonzero(legal[:len(popped)])):
      node = popped[row]
      child = nodes.add_or_improve(children[row, action],
                                   nodes.cost[node] + 1, node, int(action))
      if child is not None:
        fresh.append(child)
    if not fresh:
      continue
    generated += len(fresh)
    estimates = _estimate(heuristic, [nodes.states[n] for n in fresh],
                          batch_size * children.shape[1])
    for node, estimate in zip(fresh, estimates):
      cost = nodes.cost[node]
      heapq.heappush(open_heap, (weight * cost + float(estimate),
                                 float(estimate), next(tie), node, cost))
  return AStarResult(None, generated, expansions, steps,
                     time.perf_counter() - began)


def _estimate(heuristic: BatchHeuristic, states: list[np.ndarray],
              width: int) -> np.ndarray:
  """The heuristic over `states`, in calls of at most `width` states.

  Each call is padded up to a multiple of width/8 (at least 64 states), so
  a jitted heuristic sees at most eight shapes and wastes little of a call.
  """
  states = np.stack(states)
  granule = max(64, -(-width // 8))
  estimates = []
  for low in range(0, len(states), width):
    chunk = states[low:low + width]
    padded_size = min(width, -(-len(chunk) // granule) * granule)
    estimates.append(
        np.asarray(heuristic(_padded(chunk, padded_size)))[:len(chunk)])
  return np.concatenate(estimates)
