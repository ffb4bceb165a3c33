"""Hanabi's settings per preset, as this repository's learned blueprints
were trained: the width of their Q network."""

from typing import Optional

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
