"""P2SRO's settings (`Config`) and what each round leaves (`LogEntry`)."""

import dataclasses
from typing import Optional

import numpy as np

from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import normal_form_psro
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.utils import checkpoints

METHODS = normal_form_psro.METHODS


@dataclasses.dataclass(frozen=True)
class Config:
  """What the population method does around its learners."""
  method: str = "p2sro"
  learners: int = 3  # Active learners of p2sro, naive and dch.
  chunk_steps: int = 500  # Batched steps per learner per round.
  min_steps: int = 2_000  # Batched steps before a policy can be fixed.
  plateau_gain: float = 0.01  # Mean-return gain per round that is a plateau.
  num_envs: int = 16
  uniform_mix: float = 0.1
  meta_solver: str = "fictitious_play"  # A name of meta_solvers.META_SOLVERS.
  fictitious_play_iterations: int = 20_000  # The P2SRO reference's.
  games_per_entry: int = 20_000  # Per sampled payoff entry (no tree), most.
  # A sampled entry stops once its standard error is at most this (0: it
  # plays games_per_entry games), its games played `entry_batch` at once.
  entry_standard_error: float = 0.0
  entry_batch: int = 1024
  entry_games_per_slot: int = 1  # Games an entry's call deals per slot.
  # Members a learner's round trains against, drawn from its mixture (with
  # replacement, so that each game's opponent is still distributed as the
  # mixture over rounds); 0: the whole mixture, a member drawn per game,
  # every member's network then running on the whole batch each step.
  task_opponents: int = 0
  warm_start: bool = False  # New learners start from the newest one's state.
  seed: int = 0
  # Fixed opponents heading the population (rows 0..k−1 of its table, never
  # trained), named for the Pipeline's `make_anchor`: a variant seeding the
  # population with, say, a game's scripted bots. p2sro, psro and naive.
  anchors: tuple[str, ...] = ()

  def __post_init__(self):
    if self.method not in METHODS:
      raise ValueError(f"method must be one of {METHODS}, got "
                       f"method={self.method!r}")
    if self.meta_solver not in meta_solvers.META_SOLVERS:
      raise ValueError(f"meta_solver must be one of "
                       f"{sorted(meta_solvers.META_SOLVERS)}, got "
                       f"meta_solver={self.meta_solver!r}")
    learner_lib.check_positive(self, "learners", "chunk_steps", "num_envs",
                               "fictitious_play_iterations",
                               "games_per_entry", "entry_batch",
                               "entry_games_per_slot")
    learner_lib.check_non_negative(self, "min_steps", "plateau_gain",
                                   "entry_standard_error", "task_opponents")
    learner_lib.check_unit_interval(self, "uniform_mix")
    object.__setattr__(self, "anchors", tuple(self.anchors))
    if self.anchors and self.method not in ("p2sro", "psro", "naive"):
      raise ValueError(f"anchors are for p2sro, psro and naive, got "
                       f"anchors={self.anchors} with "
                       f"method={self.method!r}")
    if self.warm_start and self.method in ("dch", "rectified"):
      raise ValueError(f"warm_start is for methods that replace a fixed "
                       f"learner, got warm_start=True with "
                       f"method={self.method!r}")

  def solve(self, payoffs: np.ndarray) -> np.ndarray:
    """The meta-Nash weights of a symmetric payoff table."""
    if self.meta_solver == "fictitious_play":
      return meta_solvers.fictitious_play(
          payoffs, self.fictitious_play_iterations)[0]
    return meta_solvers.META_SOLVERS[self.meta_solver](payoffs)[0]


@checkpoints.reads_former_tuples("open_spiel_ext.algorithms.p2sro.LogEntry")
@dataclasses.dataclass(frozen=True)
class LogEntry:
  """What one round left."""
  round: int
  fixed: int  # Policies in the population (its anchors too).
  added: int  # Policies that joined it this round.
  env_steps: int  # Batched steps of every learner so far, times num_envs.
  episodes: int  # Games the learners finished so far.
  # Seconds of rounds so far (resumed runs included; measuring the
  # exploitability not included), and of those, waiting for the tasks.
  wall_time: float
  task_time: float
  mean_returns: tuple[float, ...]  # Of the learners trained this round.
  exploitability: Optional[float]  # Of the meta-Nash, by the evaluator.
  # Of wall_time, the seconds filling payoff entries (the levels' table each
  # round, new members' rows); and the seconds saving the driver's state
  # after the rounds before this one (not in wall_time).
  entry_time: float = 0.0
  checkpoint_time: float = 0.0
  entry_games: int = 0  # Games played for sampled entries so far.
  # Games each learner of mean_returns finished this round (their means'
  # precision: how far a round's gain can be noise).
  task_episodes: tuple[int, ...] = ()
