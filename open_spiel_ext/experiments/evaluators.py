"""How a population method measures its meta-Nash on a game, as the
references did: exactly where the tree engine walks the game's tree
(poker), else the approximate exploitability of a fresh PPO best response
(the Loss Game, whose learners act continuously). P2SRO's and NXDO's runs
take their evaluator from here."""

import functools
from typing import Any, Optional

from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.games import engines
import pyspiel

# The approximate exploitability's PPO best response: plateau checks every
# 3,125 batched steps, at most 15,625 (a Loss Game is 10 decisions a seat),
# its value measured over 500 steps.
APPROXIMATE_CHECK_STEPS = 3_125
APPROXIMATE_MAX_STEPS = 15_625
APPROXIMATE_EVAL_STEPS = 500


def is_exact(game: pyspiel.Game) -> bool:
  """Whether runs on `game` measure exactly (tree engine) rather than with
  a learned best response."""
  return game.get_type().short_name != "loss_game"


def evaluator(game: pyspiel.Game, num_envs: int = 64,
              env: Optional[Any] = None) -> Any:
  """`best_response.EXACT`, or the function of a meta-Nash opponent that
  measures its approximate exploitability on `game` (on `env`, its
  continuous JAX engine, made here if not given).

  Raises:
    ValueError: no JAX engine plays `game` where one is needed.
  """
  if is_exact(game):
    return best_response.EXACT
  if env is None:
    env = engines.make(game, auto_reset=True, continuous=True)
  return functools.partial(
      best_response.approximate_exploitability, env,
      config=learner_configs.oracle_config(learner_configs.CONTINUOUS_PPO),
      check_steps=APPROXIMATE_CHECK_STEPS, max_steps=APPROXIMATE_MAX_STEPS,
      num_envs=num_envs, eval_steps=APPROXIMATE_EVAL_STEPS)
