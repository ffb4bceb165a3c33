"""What a P2SRO run tells afterwards: the settings it was started with, each
learner's history, each new policy's payoff against the population it was
trained against, and the table of its populations measured against fixed
opponents (such as a game's scripted bots)."""

import dataclasses
import os
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from open_spiel_ext.algorithms.p2sro import persistence
from open_spiel_ext.algorithms.p2sro import settings
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import reporting



# A saved run's "learner" (the module of its learners' config, as the driver
# records it) -> that config's class.
_LEARNER_CONFIGS = {config.__module__: config
                    for config in best_response.LEARNERS}


class SavedRun(NamedTuple):
  """What a run saved in a directory was started with."""
  game: str
  learner_config: best_response.AnyConfig
  config: settings.Config
  engine_options: dict[str, Any]


def saved_run(directory: str) -> SavedRun:
  """The game, learners' and method's settings and engine options of the
  run saved in `directory` (so that another run can fork from it).

  Raises:
    ValueError: the run's learners are none of `best_response.LEARNERS`.
  """
  record = checkpoints.saved_config(
      os.path.join(directory, persistence.STATE_FILE))
  if record["learner"] not in _LEARNER_CONFIGS:
    raise ValueError(
        f"the run saved in {directory} has learners of {record['learner']}, "
        f"not of a known learner module ({', '.join(_LEARNER_CONFIGS)})")
  learner_class = _LEARNER_CONFIGS[record["learner"]]
  learner_fields = {f.name for f in dataclasses.fields(learner_class)}
  return SavedRun(
      record["game"],
      learner_class(**{k: v for k, v in record.items()
                       if k in learner_fields}),
      settings.Config(**{k[len("run_"):]: v for k, v in record.items()
                if k.startswith("run_")}),
      {k[len("engine_"):]: v for k, v in record.items()
       if k.startswith("engine_")})


class LearnerHistory(NamedTuple):
  """One learner's rounds in a run's log, in order."""
  rounds: list[int]
  levels: list[int]  # Its level in each (0: the lowest, the next fixed).
  mean_returns: list[float]
  # Its games of each round (None where an older log did not keep them).
  episodes: list[Optional[int]]
  fixed_at: Optional[int]  # The round it joined the population, if any.


def learner_histories(log: list[settings.LogEntry],
                      config: settings.Config) -> list[LearnerHistory]:
  """Every learner of a p2sro or psro run's `log`, in the order they
  started: a round's returns are its levels' from the lowest up, and the
  lowest `added` learners joined the population at its end.

  Raises:
    ValueError: another method, whose levels the log cannot tell apart.
  """
  if config.method not in ("p2sro", "psro"):
    raise ValueError(f"learner histories need method p2sro or psro, got "
                     f"method={config.method!r}")
  histories: list[LearnerHistory] = []
  active: list[int] = []  # Indices into histories, lowest level first.
  for entry in log:
    while len(active) < len(entry.mean_returns):
      active.append(len(histories))
      histories.append(LearnerHistory([], [], [], [], None))
    for level, (index, mean_return) in enumerate(
        zip(active, entry.mean_returns)):
      history = histories[index]
      history.rounds.append(entry.round)
      history.levels.append(level)
      history.mean_returns.append(mean_return)
      history.episodes.append(entry.task_episodes[level]
                              if entry.task_episodes else None)
    for index in active[:entry.added]:
      histories[index] = histories[index]._replace(fixed_at=entry.round)
    active = active[entry.added:]
  return histories


def best_response_payoffs(payoffs: np.ndarray,
                          config: settings.Config) -> list[float]:
  """Member k's payoff against the meta-Nash of members 0..k−1, for each
  trained member k ≥ 1 (after the anchors): how much each new policy beat
  the population it was trained against."""
  return [float(payoffs[k, :k] @ config.solve(payoffs[:k, :k]))
          for k in range(first_trained(config), len(payoffs))]


def first_trained(config: settings.Config) -> int:
  """The first row of the payoff table a best response fills."""
  return max(1, len(config.anchors) + 1)


def networks_part(weights: np.ndarray, anchors: int) -> np.ndarray:
  """The networks' part of a meta-Nash over anchors then networks,
  renormalised (the newest network alone if it plays only anchors)."""
  networks = np.asarray(weights[anchors:], np.float64)
  if networks.sum() <= 0:
    return np.eye(len(networks))[-1]
  return networks / networks.sum()


def fixings_table(evaluations: Sequence[dict[str, Any]], payoffs: np.ndarray,
                  config: settings.Config,
                  opponent_names: Sequence[str]) -> str:
  """A markdown row per population measured (`evaluations`, records with
  its size, hours of rounds, episodes, meta-Nash and a score rate against
  each of `opponent_names`): its newest policy's payoff against the
  meta-Nash that policy trained against, the meta-Nash's score rates and
  the members it plays."""
  gains = best_response_payoffs(payoffs, config)
  first = first_trained(config)
  rows = [[record["population"], f"{record['hours']:.2f}",
           f"{record['episodes']:,d}",
           f"{gains[record['population'] - 1 - first]:+.2f}",
           *(f"{record[name]['rate']:.3f}" for name in opponent_names),
           _support(record["meta_nash"], config.anchors)]
          for record in evaluations]
  return reporting.markdown_table(
      ["population", "hours", "episodes", "new policy's payoff",
       *opponent_names, "meta-Nash"], rows)


def _support(weights: Sequence[float], anchors: Sequence[str]) -> str:
  """The members a meta-Nash plays (weight 0.01 or more), anchors by name,
  policies by their row of the payoff table."""
  kept = [(anchors[k] if k < len(anchors) else k, w)
          for k, w in enumerate(weights) if w >= 0.01]
  if len(kept) == 1:
    member = kept[0][0]
    return member if isinstance(member, str) else f"policy {member}"
  return ", ".join(f"{w:.2f} on {k}" for k, w in kept)
