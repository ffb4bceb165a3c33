"""NXDO's settings per game, as the reference ran it (the rivals measured
beside it, PSRO and NFSP, learn with the same oracle): the recipe examples
and benchmarks build their oracle, solver and evaluator from."""

import dataclasses
from typing import Any

from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import solvers
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.experiments import evaluators
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.games import engines
import pyspiel


@dataclasses.dataclass(frozen=True)
class Recipe:
  """NXDO's settings on one game, as the reference ran it (and the rivals
  measured beside it learn with the same oracle)."""
  env: Any  # The learners' JAX engine (auto-reset).
  oracle_config: best_response.AnyConfig
  check_steps: int  # Between a best response's plateau checks.
  max_steps: int  # A best response's most batched steps.
  schedule: solvers.Schedule  # NFSP's on the restricted games.
  # best_response.EXACT, or a function of the meta-NE (an Opponent).
  evaluator: Any

  def oracle(self, num_envs: int = 64,
             seed: int = 0) -> oracles.LearnedOracle:
    return oracles.LearnedOracle(self.env, self.oracle_config,
                                 self.check_steps, self.max_steps,
                                 num_envs=num_envs, seed=seed)

  def solver(self, num_envs: int = 64, seed: int = 0) -> solvers.NFSPSolver:
    return solvers.NFSPSolver(nfsp.Config(), self.schedule, num_envs, seed)


def recipe(game: pyspiel.Game, num_envs: int = 64,
           signal: str = "exact") -> Recipe:
  """The reference's settings for `game`.

  Poker (Kuhn, Leduc, m-Clone Leduc): DDQN best responses checked every 625
  batched steps of 64 games and stopped by 3,125 (about the reference's
  20,000 and 100,000 episodes), NFSP on the 20-Clone Leduc schedule (7
  warm-start iterations, the threshold from 1.0 down to 0.05, at least 3,500
  steps, about 50,000 episodes), exact exploitability. The schedule's
  threshold is compared with `signal`: by default the restricted game's
  exact exploitability from the tree engine, not the reference's NFSP
  estimate ("nfsp_estimate"), which on poker is noise next to the
  thresholds (`benchmarks/nxdo_restricted_solve.py`: -0.14 to +0.17 on a
  20-Clone Leduc restricted game whose exact value fell from 0.67 to 0.43),
  so that every solve stopped at its minimum budget. The Loss Game:
  continuous PPO best responses (every 3,125 steps, at most 15,625: a game
  is 10 decisions a seat), NFSP for 15,625 steps (the reference's 1e6)
  growing by 1.5 after 5 warm-start iterations (no signal read), and the
  approximate exploitability from a PPO best response of the same budget
  (`evaluators.evaluator`).

  Raises:
    ValueError: no JAX engine plays `game`.
  """
  if evaluators.is_exact(game):
    return Recipe(engines.make(game, auto_reset=True),
                  learner_configs.oracle_config("ddqn"), 625, 3_125,
                  solvers.Schedule(min_steps=3_500, signal=signal),
                  best_response.EXACT)
  env = engines.make(game, auto_reset=True, continuous=True)
  config = learner_configs.oracle_config(learner_configs.CONTINUOUS_PPO)
  return Recipe(env, config, 3_125, 15_625,
                solvers.Schedule(kind="growing", warm_start_iterations=5,
                                 start_steps=15_625, growth=1.5),
                evaluators.evaluator(game, num_envs, env))
