"""The weights files the package ships in `algorithms/hanabi/weights/`:
learned blueprints of each preset by strength, and belief models of a
preset's blueprint; blueprints by name; and the comparison that decides
whether a newly trained belief model replaces the shipped one."""

import os
from typing import Any

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import learned_blueprint
from open_spiel_ext.algorithms.hanabi import smartbot
from open_spiel_ext.games.hanabi import engine as engine_lib

WEIGHTS_DIR = os.path.join(os.path.dirname(__file__), "weights")
STRENGTHS = ("weak", "medium", "strong")
# What a --blueprint flag takes (`blueprint_from_name`).
BLUEPRINT_NAMES = ("'rules' (the rule-based bot), 'smartbot' (SmartBot's "
                   "conventions), a shipped learned strength (" +
                   ", ".join(STRENGTHS) + ") or a weights file of "
                   "hanabi_train")


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
  """"rules" (the rule-based bot), "smartbot" (SmartBot's conventions), a
  shipped strength of `preset` ("weak", "medium", "strong"), or the path of
  a weights file."""
  if name == "rules":
    return blueprints.RuleBlueprint(engine)
  if name == "smartbot":
    return smartbot.SmartBlueprint(engine)
  path = blueprint_path(preset, name) if name in STRENGTHS else name
  if not os.path.exists(path):
    shipped = (sorted(f for f in os.listdir(WEIGHTS_DIR) if f.endswith(
        ".npz")) if os.path.isdir(WEIGHTS_DIR) else [])
    raise ValueError(f"no blueprint {name!r}: {path} does not exist (give "
                     f"'rules', 'smartbot', a strength of "
                     f"{', '.join(STRENGTHS)}, or a "
                     f"weights file; shipped: {', '.join(shipped) or 'none'})")
  return learned_blueprint.load_blueprint(engine, path)


def compare_belief_models(candidate: str, blueprint: blueprints.Blueprint,
                          preset: str, blueprint_name: str,
                          games: int = 256) -> dict[str, Any]:
  """The held-out cross-entropy per card of the belief model at `candidate`
  and of the shipped one of `preset`'s `blueprint_name`, on the same games;
  `better` if the candidate's is lower (or none is shipped)."""
  shipped = belief_model_path(preset, blueprint_name)
  verdict = {"candidate": candidate, "shipped": shipped, "eval_games": games,
             "candidate_cross_entropy": belief_model.held_out_cross_entropy(
                 belief_model.load(candidate), blueprint, games)}
  if os.path.exists(shipped):
    verdict["shipped_cross_entropy"] = belief_model.held_out_cross_entropy(
        belief_model.load(shipped), blueprint, games)
  verdict["better"] = verdict["candidate_cross_entropy"] < verdict.get(
      "shipped_cross_entropy", float("inf"))
  return verdict
