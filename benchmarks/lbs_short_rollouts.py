"""Why LBS's shortest rollouts lose points: the partner's answer to a move
the blueprint would not make.

LBS-d values a candidate move by playing it and d − 1 blueprint moves, then
adding the value of where the game stands. At d = 1 that value is all the
search sees of the partner's reply, and a value learned from the
blueprint's own games reads the position as if the blueprint had moved: a
hint the blueprint would not give can make the partner play a card that is
not playable, which the value does not foresee. This plays LBS-d for each
of --depths on the same --games decks over the exact belief (SPARTA's, so
that the belief is not in question; --belief=learned for the shipped
model), and counts the lives lost per game by cause: on the partner's move
right after a searcher's move that left the blueprint's, on the searcher's
own moves, and on other moves. Prints a table and writes results.json and
short_rollouts.png.

  python benchmarks/lbs_short_rollouts.py --blueprint=strong --depths=1,4 \
      --games=4 --output_dir=benchmark_results/short_rollouts
"""

import json
import os
from typing import Any, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.hanabi import lbs
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

SEARCHER = 1
CAUSES = ("partner after a deviation", "searcher's own move", "other moves")

_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "strong",
                                 shipped.BLUEPRINT_NAMES + ".")
_BELIEF = flags.DEFINE_enum("belief", "exact", ["exact", "learned"],
                            "The searcher's belief.")
_DEPTHS = flags.DEFINE_list("depths", ["1", "4"], "LBS's rollout depths.")
_GAMES = flags.DEFINE_integer("games", 4, "Decks.", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the decks (as lbs_paper's).")
_ROLLOUTS = flags.DEFINE_integer("rollouts", 1_000, "Rollouts per decision.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where results.json and the PNG go.")


class _LivesLost:
  """Follows a game's moves (`sparta.MoveWatcher`) and counts the lives
  lost by cause."""

  def __init__(self):
    self.lost = dict.fromkeys(CAUSES, 0)
    self.deviated = False  # The searcher's last move left the blueprint's.
    self.lives_left = None

  def __call__(self, player: int, decision: Optional[sparta.Decision],
               before: Any, after: Any) -> None:
    lost = int(before.lives) - int(after.lives)
    self.lives_left = int(after.lives)
    if player == SEARCHER:
      self.lost["searcher's own move"] += lost
      self.deviated = decision.action != decision.blueprint_action
      return
    cause = "partner after a deviation" if self.deviated else "other moves"
    self.lost[cause] += lost
    self.deviated = False


def play(blueprint: Any, model: Any, depth: int, game: int) -> dict[str, Any]:
  """One deck: LBS-`depth` for SEARCHER, and the blueprint alone."""
  config = lbs.Config(sparta.Config(rollouts=_ROLLOUTS.value), depth=depth)

  def start(state):
    belief = (sparta.ExactBelief(blueprint, SEARCHER, state)
              if _BELIEF.value == "exact" else None)
    return {SEARCHER: lbs.LbsSearcher(blueprint, SEARCHER, state, model,
                                      config, belief=belief)}

  deck = sparta.game_deck(blueprint.engine.rules, _SEED.value, game)
  watcher = _LivesLost()
  result = sparta.play_game(blueprint, deck, start, seed=game, watch=watcher)
  return {"game": game, "score": result.score,
          "blueprint_score": sparta.play_game(blueprint, deck).score,
          "searcher_moves": result.searcher_moves,
          "deviations": result.deviations, "lives_lost": watcher.lost,
          "lives_left": watcher.lives_left}


def summary(games: list[dict[str, Any]]) -> dict[str, Any]:
  """A depth's games: mean score, paired gain, deviations, lives by cause."""
  gains = [g["score"] - g["blueprint_score"] for g in games]
  return {"score": float(np.mean([g["score"] for g in games])),
          "paired_gain": float(np.mean(gains)),
          "paired_gain_standard_error": reporting.standard_error(gains),
          "deviations_per_game": float(np.mean([g["deviations"]
                                                for g in games])),
          "lives_lost_per_game": {
              cause: float(np.mean([g["lives_lost"][cause] for g in games]))
              for cause in CAUSES}}


def plot(results: dict[str, Any], path: str) -> None:
  """Lives lost per game by cause, a stacked bar per depth."""
  fig, axis = reporting.plt.subplots(figsize=(7, 4))
  depths = list(results)
  bottom = np.zeros(len(depths))
  for cause in CAUSES:
    heights = np.array([results[d]["summary"]["lives_lost_per_game"][cause]
                        for d in depths])
    axis.bar([f"LBS-{d}" for d in depths], heights, bottom=bottom,
             label=cause)
    bottom += heights
  axis.set_ylabel("lives lost per game")
  axis.set_title(f"Lives lost by cause ({_BLUEPRINT.value} blueprint, "
                 f"{_BELIEF.value} belief, {_GAMES.value} decks)")
  axis.legend()
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("depths"):
    depths = [int(d) for d in _DEPTHS.value]
    if min(depths) < 1:
      raise ValueError(f"depths must be >= 1, got {_DEPTHS.value}")
  with cli.user_input("blueprint"):
    blueprint = selfplay.blueprint(_PRESET.value, _BLUEPRINT.value)
    model = selfplay.load_belief_model(shipped.belief_model_path(
        _PRESET.value, _BLUEPRINT.value))
  results, rows = {}, []
  for depth in depths:
    games = []
    for game in range(_GAMES.value):
      games.append(play(blueprint, model, depth, game))
      print(f"LBS-{depth} game {game}: {games[-1]}", flush=True)
    cell = summary(games)
    results[str(depth)] = {"games": games, "summary": cell}
    rows.append([f"LBS-{depth}", f"{cell['score']:.2f}",
                 f"{cell['paired_gain']:+.2f} ± "
                 f"{cell['paired_gain_standard_error']:.2f}",
                 f"{cell['deviations_per_game']:.1f}"] +
                [f"{cell['lives_lost_per_game'][c]:.2f}" for c in CAUSES])
  print(f"Hanabi {_PRESET.value}, {_BLUEPRINT.value} blueprint, "
        f"{_BELIEF.value} belief, {_GAMES.value} decks; lives lost per "
        "game by cause:\n" + reporting.markdown_table(
            ["search", "score", "paired gain", "deviations / game",
             *CAUSES], rows))
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with open(os.path.join(_OUTPUT_DIR.value, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
  plot(results, os.path.join(_OUTPUT_DIR.value, "short_rollouts.png"))


if __name__ == "__main__":
  cli.run(main)
