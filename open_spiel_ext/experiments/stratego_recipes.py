"""Barrage Stratego's P2SRO run as this repository trains it: how the
learners see the game, their PPO settings and P2SRO's, on a CPU core or a
GPU, for `examples/stratego_p2sro.py`, the round profile benchmark and the
GPU script.

The learners' engine options (`ENGINE_OPTIONS`, for `games/engines.py`'s
`make` and P2SRO's `Pipeline(engine_options=...)`): they act in their own
frame (`relative_actions`: one network plays either seat, as the bots, the
arena and the populations of this package do) and are paid material shaping
whose sum over a game is 0 (`games/stratego/env.py`), so that their returns
are still the games' results. Both are choices of how to learn, not rules of
the game, so they live here rather than with the engine.
"""

import dataclasses
import types
from typing import Any, Sequence

from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import ppo

GAME = "barrage_stratego"
HIDDEN_SIZES = (32, 32, 32)
LEARNING_RATE = 3e-4
MATERIAL_SHAPING = 1.0
ENGINE_OPTIONS = types.MappingProxyType({
    "relative_actions": True, "material_shaping": MATERIAL_SHAPING})

# P2SRO's settings on each kind of device. On the CPU: two learners (one
# per core), rounds of 256 batched steps of 128 games, a learner fixed once
# its mean return gains less than 0.02 in a round after 4,096 steps, new
# learners warm-started from the newest one (a policy started from scratch
# would get only its own 20-30 minutes of this CPU to relearn the basics),
# payoff entries of at most 300 games; and the round's costs cut as
# docs/stratego.md measures them: a task trains against 4 members drawn from
# its mixture, an entry stops once its standard error is 0.05, its games
# dealt 3 a slot to 17 slots (calls of 51 games). On a GPU, batches 16
# times larger at the same number of games per round (the steps a round 16
# times fewer), several learner processes sharing the GPU.
P2SRO_DEVICES = {
    "cpu": {"learners": 2, "chunk_steps": 256, "min_steps": 4_096,
            "plateau_gain": 0.02, "num_envs": 128, "games_per_entry": 300,
            "task_opponents": 4, "entry_standard_error": 0.05,
            "entry_batch": 17, "entry_games_per_slot": 3,
            "warm_start": True},
    "gpu": {"learners": 2, "chunk_steps": 16, "min_steps": 256,
            "plateau_gain": 0.02, "num_envs": 2_048, "games_per_entry": 300,
            "entry_batch": 300, "warm_start": True},
}


def ppo_config(hidden_sizes: Sequence[int] = HIDDEN_SIZES,
               learning_rate: float = LEARNING_RATE) -> ppo.Config:
  """PPO with the Stratego network ("stratego_conv"), policy and value heads
  on one trunk, as measured on this CPU against the random bot: two epochs
  a rollout (a gradient costs about 7 forward passes) in 16 minibatches
  (more updates per game played: 16 rose steadily where 4 stalled, and a
  learning rate of 1e-3 rose then fell); λ 0.8, γ 0.99 rather than Monte
  Carlo returns (8 minutes on one core won 69.4% [64.7, 73.7] of 400 games,
  λ 0.95, γ 1 59.2% [54.4, 64.0]); one trunk rather than two networks
  (85.0% [81.2, 88.2] after 2,752 steps, two networks 76.2% [71.8, 80.2]
  after 2,240)."""
  return ppo.Config(network="stratego_conv", shared_trunk=True,
                    hidden_sizes=tuple(int(w) for w in hidden_sizes),
                    learning_rate=learning_rate, rollout_length=32,
                    epochs=2, minibatches=16, discount=0.99, gae_lambda=0.8)


def p2sro_config(device: str = "cpu", **changes: Any) -> p2sro.Config:
  """P2SRO's settings on `device` ("cpu" or "gpu"); `changes` replace any
  of `p2sro.Config`'s fields.

  Raises:
    ValueError: an unknown device, or settings P2SRO refuses.
  """
  if device not in P2SRO_DEVICES:
    raise ValueError(f"device={device!r}; the devices are "
                     f"{', '.join(P2SRO_DEVICES)}")
  return dataclasses.replace(p2sro.Config(**P2SRO_DEVICES[device]),
                             **changes)
