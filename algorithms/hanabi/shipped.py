"""The weights files the package ships in `algorithms/hanabi/weights/`:
learned blueprints of each preset by strength, and belief models of a
preset's blueprint; and blueprints by name."""

import os

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import learned_blueprint
from open_spiel_ext.games.hanabi import engine as engine_lib

WEIGHTS_DIR = os.path.join(os.path.dirname(__file__), "weights")
STRENGTHS = ("weak", "medium", "strong")


def blueprint_path(preset: str, strength: str = "strong") -> str:
  """Where the package keeps a preset's learned blueprint of a strength."""
  if strength not in STRENGTHS:
    raise ValueError(f"unknown blueprint strength {strength!r}; the "
                     f"strengths are {', '.join(STRENGTHS)}")
  return os.path.join(WEIGHTS_DIR, f"{preset}_{strength}.npz")


def belief_model_path(preset: str, blueprint_name: str) -> str:
  """Where the package keeps the belief model of a preset's blueprint."""
  return os.path.join(WEIGHTS_DIR, f"{preset}_{blueprint_name}_belief.npz")


def blueprint_from_name(engine: engine_lib.HanabiEngine, preset: str,
                        name: str) -> blueprints.Blueprint:
  """"rules" (the rule-based bot), a shipped strength of `preset` ("weak",
  "medium", "strong"), or the path of a weights file."""
  if name == "rules":
    return blueprints.RuleBlueprint(engine)
  path = blueprint_path(preset, name) if name in STRENGTHS else name
  if not os.path.exists(path):
    shipped = (sorted(f for f in os.listdir(WEIGHTS_DIR) if f.endswith(
        ".npz")) if os.path.isdir(WEIGHTS_DIR) else [])
    raise ValueError(f"no blueprint {name!r}: {path} does not exist (give "
                     f"'rules', a strength of {', '.join(STRENGTHS)}, or a "
                     f"weights file; shipped: {', '.join(shipped) or 'none'})")
  return learned_blueprint.load_blueprint(engine, path)
