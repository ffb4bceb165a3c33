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

A search stops at a goal, when the open list is empty, after `max_nodes`
children, or when the process has grown by `memory_limit` bytes since the
search began (by default 80% of the memory the machine had available then),
so that a search that cannot finish says so instead of exhausting the
machine. `AStarResult.stop_reason` says which. A progress callback receives
the search's figures every `progress_seconds`.
"""

import dataclasses
import heapq
import itertools
import os
import resource
import time
from typing import Callable, Optional

import numpy as np

from open_spiel_ext.games.puzzles import single_player
from open_spiel_ext.utils import memory

BatchHeuristic = Callable[[np.ndarray], np.ndarray]


SOLVED = "solved"
EXHAUSTED = "open list empty"
NODE_BUDGET = "node budget reached"
MEMORY_BUDGET = "memory budget reached"
TIME_BUDGET = "time budget reached"
AVAILABLE_MEMORY_FRACTION = 0.8  # Of what is free when a search starts.
MEMORY_CHECK_SECONDS = 0.05  # Between readings of the process's memory.


@dataclasses.dataclass
class AStarResult:
  """A solution (or none) and what it cost.

  Attributes:
    actions: the moves from the start to the goal, None if none was found.
    nodes_generated: children whose heuristic was evaluated.
    expansions: nodes expanded.
    steps: batches expanded.
    seconds: wall-clock time.
    stop_reason: SOLVED, EXHAUSTED, NODE_BUDGET, MEMORY_BUDGET or
      TIME_BUDGET.
  """
  actions: Optional[list[int]]
  nodes_generated: int
  expansions: int
  steps: int
  seconds: float
  stop_reason: str = SOLVED

  @property
  def nodes_per_second(self) -> float:
    return self.nodes_generated / max(self.seconds, 1e-9)


@dataclasses.dataclass
class SearchProgress:
  """Where a running search stands.

  Attributes:
    nodes_generated: children whose heuristic was evaluated.
    open_size: entries in the open list (some superseded by cheaper paths).
    best_f: the lowest f in the open list.
    best_h: the lowest heuristic value of any node generated so far.
    seconds: wall-clock time so far.
    memory_used: bytes the process has grown by since the search began.
    memory_limit: the bytes of growth at which the search stops.
  """
  nodes_generated: int
  open_size: int
  best_f: float
  best_h: float
  seconds: float
  memory_used: int
  memory_limit: int

  @property
  def nodes_per_second(self) -> float:
    return self.nodes_generated / max(self.seconds, 1e-9)


def resident_bytes() -> int:
  """The process's resident memory now (its peak where /proc is missing)."""
  try:
    with open("/proc/self/statm", encoding="ascii") as statm:
      return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
  except OSError:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def default_memory_limit() -> int:
  """The growth a search may take: a fraction of the memory available now."""
  return int(AVAILABLE_MEMORY_FRACTION * memory.available_bytes())


def engine_expander(
    engine: single_player.BatchedPuzzle
) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
  """(children, legality) of a batch from an engine's jitted functions."""
  def expand(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (np.asarray(engine.next_states(states)),
            np.asarray(engine.legal_mask(states)))

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


def batch_weighted_astar(
    start: np.ndarray,
    expand: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    heuristic: BatchHeuristic,
    is_goal: Callable[[np.ndarray], np.ndarray],
    weight: float = 1.0,
    batch_size: int = 1,
    max_nodes: int = 10_000_000,
    memory_limit: Optional[int] = None,
    progress: Optional[Callable[[SearchProgress], None]] = None,
    progress_seconds: float = 5.0,
    max_seconds: float = float("inf")) -> AStarResult:
  """Searches from `start` until a goal is popped or a budget runs out.

  Args:
    start: one state.
    expand: children [N, A, ...] and legality [N, A] of N states
      (`engine_expander(engine)`).
    heuristic: [M, ...] states -> [M] estimates of the moves left.
    is_goal: [M] bools for a batch of states.
    weight: λ in f = λ·g + h.
    batch_size: nodes popped and expanded per step (N).
    max_nodes: give up (actions None) after generating this many children.
    memory_limit: give up once the process has grown by this many bytes;
      None for `default_memory_limit()`.
    progress: called with a `SearchProgress` every `progress_seconds`.
    progress_seconds: seconds between progress calls.
    max_seconds: give up after searching this long.
  """
  if not max_seconds > 0:
    raise ValueError(f"max_seconds must be > 0, got max_seconds={max_seconds}")
  if not 0 <= weight <= 1:
    raise ValueError(f"weight must be in [0, 1], got weight={weight}")
  if batch_size < 1:
    raise ValueError(f"batch_size must be >= 1, got batch_size={batch_size}")
  if memory_limit is not None and memory_limit <= 0:
    raise ValueError(f"memory_limit must be > 0 bytes, got {memory_limit}")
  began = time.perf_counter()
  base_memory = resident_bytes()
  memory_limit = memory_limit or default_memory_limit()
  start = np.asarray(start)
  nodes = _Nodes(start)
  tie = itertools.count()
  open_heap = [(0.0, 0.0, next(tie), 0, 0)]  # f, h, tie, node, cost pushed
  generated = expansions = steps = 0
  best_h = float("inf")
  next_report = began + progress_seconds
  memory_used, next_memory_check = 0, began

  def result(actions, reason):
    return AStarResult(actions, generated, expansions, steps,
                       time.perf_counter() - began, reason)

  while open_heap:
    if generated >= max_nodes:
      return result(None, NODE_BUDGET)
    now = time.perf_counter()
    if now - began >= max_seconds:
      return result(None, TIME_BUDGET)
    if now >= next_memory_check:
      memory_used = resident_bytes() - base_memory
      next_memory_check = now + MEMORY_CHECK_SECONDS
      if memory_used >= memory_limit:
        return result(None, MEMORY_BUDGET)
    if progress is not None and now >= next_report:
      next_report = now + progress_seconds
      progress(SearchProgress(generated, len(open_heap), open_heap[0][0],
                              best_h, time.perf_counter() - began,
                              memory_used, memory_limit))
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
      return result(nodes.path(best), SOLVED)
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
    best_h = min(best_h, float(np.min(estimates)))
    for node, estimate in zip(fresh, estimates):
      cost = nodes.cost[node]
      heapq.heappush(open_heap, (weight * cost + float(estimate),
                                 float(estimate), next(tie), node, cost))
  return result(None, EXHAUSTED)


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
