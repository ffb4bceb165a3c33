"""How far a cost-to-go estimate is from the exact one, by true distance.

Given states, their exact distances to the goal (from a puzzle's exact
solver: `puzzle_references.instances.exact_distances`) and a cost-to-go J,
`by_distance` gives for each true distance d: the mean J, its mean error
J − d and root-mean-square error, the mean of DAVI's target with J as its
own target network, 1 + min over legal moves of J(child) (below J where
training on it would pull the estimate down, above where up), and the
share of states whose
lowest-valued child (argmin over legal moves of J(child), as a greedy step
and BWAS's ordering read it) is truly nearer the goal. A network that
saturates shows as mean J flattening while d grows; one that no longer
ranks children as well as a random move shows as a descent share falling
towards that of a random move (also given).
"""

from typing import Callable, NamedTuple, Optional

import numpy as np

from open_spiel_ext.algorithms.nn import masking

# [B, D] states -> [B] values.
Values = Callable[[np.ndarray], np.ndarray]
CHUNK = 32_768  # States valued at once (a network's activations fit).


class DistanceRow(NamedTuple):
  """The estimate at one true distance."""
  distance: int
  states: int
  mean_estimate: float
  mean_error: float  # J − d.
  rmse: float
  descent: float  # Share whose lowest-valued child is nearer the goal.
  random_descent: float  # The same for a uniformly random legal move.
  mean_target: float = float("nan")  # 1 + min over legal children of J.


def by_distance(cost_to_go: Values, engine, states: np.ndarray,
                exact: Values) -> list[DistanceRow]:
  """A row per true distance among `states` (goals left out).

  Args:
    cost_to_go: the estimate, J(states).
    engine: the puzzle's batched engine (`next_states`, `legal_mask`).
    states: [B, D] states.
    exact: their exact distances, a function of states (used on the states
      and on their children).
  """
  states = np.asarray(states)
  distances = np.asarray(exact(states))
  keep = distances > 0
  states, distances = states[keep], distances[keep]
  children, child_values, legal = _children(cost_to_go, engine, states)
  batch, actions = child_values.shape
  child_distances = np.asarray(exact(children)).reshape(batch, actions)
  best = np.asarray(masking.masked_argmax(-child_values, legal))
  targets = 1 + child_values[np.arange(batch), best]
  descends = child_distances[np.arange(batch), best] < distances
  nearer = ((child_distances < distances[:, None]) & legal).sum(axis=1)
  random_descent = nearer / legal.sum(axis=1)
  estimates = _in_chunks(cost_to_go, states)
  rows = []
  for distance in np.unique(distances):
    at = distances == distance
    error = estimates[at] - distance
    rows.append(DistanceRow(
        int(distance), int(at.sum()), float(estimates[at].mean()),
        float(error.mean()), float(np.sqrt((error**2).mean())),
        float(descends[at].mean()), float(random_descent[at].mean()),
        float(targets[at].mean())))
  return rows


def bellman_targets(cost_to_go: Values, engine,
                    states: np.ndarray) -> np.ndarray:
  """[B] DAVI's targets with J as its own target network: 1 + the least J
  among each state's legal children (no exact distances needed)."""
  _, child_values, legal = _children(cost_to_go, engine, np.asarray(states))
  return 1 + np.where(legal, child_values, np.inf).min(axis=1)


def _children(cost_to_go: Values, engine, states: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """The states' children [B·A, D], their values [B, A] and which moves are
  legal [B, A]."""
  children = np.asarray(engine.next_states(states))
  batch, actions = children.shape[:2]
  flat = children.reshape((batch * actions,) + children.shape[2:])
  values = _in_chunks(cost_to_go, flat).reshape(batch, actions)
  return flat, values, np.asarray(engine.legal_mask(states))


def _in_chunks(values: Values, states: np.ndarray) -> np.ndarray:
  return np.concatenate([np.asarray(values(states[i:i + CHUNK]))
                         for i in range(0, len(states), CHUNK)])


def saturation(rows: list[DistanceRow],
               tolerance: float = 1.0) -> Optional[int]:
  """The first true distance whose mean estimate falls short of it by more
  than `tolerance` (None if none does): how far the estimate reaches."""
  short = [row.distance for row in rows if row.mean_error < -tolerance]
  return min(short) if short else None


def ranking_score(rows: list[DistanceRow], random_below: float = 0.9,
                  min_states: int = 20) -> float:
  """How well the estimate orders children, one number: over the distances
  held by at least `min_states` states where a random move descends less
  than `random_below` of the time (elsewhere any move does), the mean of
  (descent − random descent) / (1 − random descent); 1 for a perfect
  ordering, 0 for one no better than chance. NaN if no distance counts."""
  kept = [row for row in rows
          if row.states >= min_states and row.random_descent < random_below]
  if not kept:
    return float("nan")
  return float(np.mean([(row.descent - row.random_descent) /
                        (1 - row.random_descent) for row in kept]))
