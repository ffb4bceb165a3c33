"""CAPI's settings per game: the CAPI paper's, and those this repository's
runs use where the paper gives none."""

from open_spiel_ext.algorithms.capi import config as capi_config


def tiny_bridge_config(**overrides) -> capi_config.Config:
  """The paper's Abstracted Tiny Bridge settings (`overrides` replace any):
  a tabular policy per public stage, the 10,000 most likely prescriptions
  with one random row made uniform (structured exploration), one
  exploratory prescription played per episode, values squashed into the
  payoff range, 100,000 episodes. Where the paper is silent (the tabular
  step, Adam steps per episode) the README says what was chosen and why."""
  settings = dict(episodes=100_000, num_prescriptions=10_000,
                  acquisition="most_likely", policy="tabular",
                  exploration="one_per_episode", structured_exploration=True,
                  squash_values=True, updates_per_episode=4,
                  tabular_policy_rate=0.03, eval_every=500)
  settings.update(overrides)
  return capi_config.Config(**settings)


def tiny_hanabi_config(**overrides) -> capi_config.Config:
  """Settings that solve the Tiny Hanabi Suite's games in a few hundred
  episodes (`overrides` replace any): K = 100 sampled prescriptions, Adam
  at 1e-3 with 5 steps per episode, 600 episodes, evaluated every 100."""
  settings = dict(episodes=600, num_prescriptions=100, learning_rate=1e-3,
                  updates_per_episode=5, eval_every=100)
  settings.update(overrides)
  return capi_config.Config(**settings)
