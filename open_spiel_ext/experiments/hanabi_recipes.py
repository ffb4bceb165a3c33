"""Hanabi's settings per preset, as this repository's learned blueprints
were trained (the width of their Q network), and the belief models'
training settings on a CPU core and on a GPU."""

import dataclasses
from typing import Optional

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import q_network

# The network width (public layer, LSTM, private layer) of each preset.
PRESET_WIDTHS = {"small": 128, "full": 256, "six_cards": 256,
                 "seven_cards": 256}


def blueprint_network(preset: str,
                      width: Optional[int] = None) -> q_network.NetworkConfig:
  """The learned blueprint's Q network on `preset`: its public layer, LSTM
  and private layer `width` wide (default: the preset's PRESET_WIDTHS).

  Raises:
    ValueError: `preset` is not one of PRESET_WIDTHS.
  """
  if preset not in PRESET_WIDTHS:
    raise ValueError(f"preset={preset!r} has no blueprint width; the presets "
                     f"are {', '.join(PRESET_WIDTHS)}")
  width = width or PRESET_WIDTHS[preset]
  return q_network.NetworkConfig((width,), width, (width,))


# The belief trainer's settings on each kind of device. On a CPU core, the
# 128-wide encoder with the decoder scoring a quarter of the player-steps
# learned fastest per minute of the variants `benchmarks/
# lbs_belief_training.py` compared (full Hanabi, rule bot: held-out 2.37
# nats a card after 12 minutes, against 2.62 for 256 wide scoring every
# step). The GPU's settings are not measured yet (no GPU has run them): on
# the expectation that a GPU update is bound by the encoder's sequential
# unroll rather than by the batch, it gets 32 times the rows an update and a
# collection, at the same replay ratio (each game replayed about once:
# num_envs rows collected for updates_per_collect × batch_size read), and
# the reference's width.
BELIEF_DEVICES = {
    "cpu": {"width": 128, "num_envs": 64, "batch_size": 16,
            "replay_capacity": 1_024, "learning_starts": 256,
            "decoded_share": 0.25},
    "gpu": {"width": 512, "num_envs": 2_048, "batch_size": 512,
            "replay_capacity": 32_768, "learning_starts": 8_192},
}


def belief_config(has_value: bool, device: str = "cpu",
                  **changes) -> belief_model.Config:
  """The belief trainer's settings on `device` ("cpu" or "gpu"), with a
  value network (two layers of 256) for a blueprint without one; `changes`
  replace any of `belief_model.Config`'s fields, or the encoder's `width`.

  Raises:
    ValueError: an unknown device.
  """
  if device not in BELIEF_DEVICES:
    raise ValueError(f"device={device!r}; the devices are "
                     f"{', '.join(BELIEF_DEVICES)}")
  settings = {**BELIEF_DEVICES[device], **changes}
  width = settings.pop("width")
  network = belief_model.NetworkConfig(
      (width,), width, value_hidden=() if has_value else (256, 256))
  return dataclasses.replace(belief_model.Config(network=network), **settings)
