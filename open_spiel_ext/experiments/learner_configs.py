"""The learner settings the runs use, by learner name: a best response of a
fixed budget, and the best-response oracle of a double-oracle method (PSRO,
P2SRO, NXDO).

The learners (`algorithms/rl`) take any `dqn.Config`, `ppo.Config` or
`sac.Config`; these are the ones the examples and benchmarks train with.
"""

from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.rl import sac

ALGORITHMS = ("ddqn", "ppo", "sac")
CONTINUOUS_PPO = "continuous_ppo"  # PPO's Gaussian, for the Loss Game.
ORACLES = ALGORITHMS + (CONTINUOUS_PPO,)


def best_response_config(algorithm: str,
                         steps: int) -> best_response.AnyConfig:
  """The settings the examples and benchmarks train `algorithm` (one of
  ALGORITHMS) with for a run of `steps` batched steps (DDQN's learning rate
  decays over the run).

  Raises:
    ValueError: an unknown algorithm.
  """
  if algorithm == "ddqn":
    return dqn.Config(learning_rate_end=1e-5,
                      learning_rate_decay_updates=steps)
  if algorithm == "ppo":
    return ppo.Config()
  if algorithm == "sac":
    return sac.Config()
  raise ValueError(f"algorithm must be one of {ALGORITHMS}, got "
                   f"algorithm={algorithm!r}")


def oracle_config(oracle: str) -> best_response.AnyConfig:
  """The learner settings of `oracle` (one of ORACLES) as a best-response
  oracle of PSRO, P2SRO or NXDO: short-lived best responses, so exploration
  ends and the target network turns over within a policy's first few
  thousand steps; CONTINUOUS_PPO is PPO's Gaussian for the Loss Game.

  Raises:
    ValueError: an unknown oracle.
  """
  if oracle == "ddqn":
    return dqn.Config(buffer_capacity=50_000, learning_starts=1_000,
                      epsilon_decay_steps=1_000, target_update_every=250)
  if oracle == "sac":
    return sac.Config(buffer_capacity=50_000, learning_starts=1_000)
  if oracle == CONTINUOUS_PPO:
    return ppo.Config(continuous=True, hidden_sizes=(64, 64),
                      rollout_length=20, minibatches=4, entropy_coef=0.0,
                      log_std_init=-0.5)
  return best_response_config(oracle, steps=0)
