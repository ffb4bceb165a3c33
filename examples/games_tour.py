"""Loads each plugin game, prints its GameType and GameInfo, and plays it.

Each game plays one seeded game, uniformly at random, chance included; the
number of moves, the first --show_moves of them (wrapped to 100 columns) and
the returns are printed. It writes no files.

  python -m open_spiel_ext.examples.games_tour
  python -m open_spiel_ext.examples.games_tour --games="xdo_clone_leduc(clones=3)" --seed=7
"""

import textwrap
from typing import Sequence

from absl import app
from absl import flags
import numpy as np

import open_spiel_ext
from open_spiel_ext.games import random_play
from open_spiel_ext.utils import cli
import pyspiel

_GAMES = flags.DEFINE_multi_string(
    "games", None,
    "Game strings to show, e.g. 'k_gmp(k=3)'. Default: every plugin game with "
    "its default parameters.")
# numpy's RandomState takes seeds below 2**32.
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the random play.",
                             lower_bound=0, upper_bound=2**32 - 1)
_SHOW_MOVES = flags.DEFINE_integer("show_moves", 20,
                                   "Moves of each game to print.",
                                   lower_bound=0)
_WIDTH = 100


def describe(game: pyspiel.Game) -> list[str]:
  """The GameType and GameInfo of a game, one fact a line."""
  game_type = game.get_type()
  lines = [
      f"GameType: {game_type.long_name}; {game_type.dynamics.name}, "
      f"{game_type.chance_mode.name}, {game_type.information.name}, "
      f"{game_type.utility.name}, {game_type.reward_model.name}",
      f"Parameters: {game.get_parameters()}",
      f"GameInfo: {game.num_players()} players, "
      f"{game.num_distinct_actions()} distinct actions, "
      f"{game.max_chance_outcomes()} chance outcomes at most, utility in "
      f"[{game.min_utility():g}, {game.max_utility():g}], sum "
      f"{game.utility_sum()}, max game length {game.max_game_length()}",
  ]
  if game_type.provides_information_state_tensor:
    lines.append("Information-state tensor shape: "
                 f"{game.information_state_tensor_shape()}")
  if game_type.provides_observation_tensor:
    lines.append(f"Observation tensor shape: {game.observation_tensor_shape()}")
  return lines


def play_randomly(game: pyspiel.Game,
                  rng: np.random.RandomState) -> tuple[list[str], list[float]]:
  """Plays one game uniformly at random; returns the moves and the returns."""
  state = game.new_initial_state()
  moves = []
  while not state.is_terminal():
    action = random_play.sample_action(state, rng)
    moves.append(state.action_to_string(state.current_player(), action))
    state.apply_action(action)
  return moves, state.returns()


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  games = [cli.parse_flag("games", game_string, open_spiel_ext.load_game)
           for game_string in _GAMES.value or open_spiel_ext.registered_games()]
  rng = np.random.RandomState(_SEED.value)
  for game in games:
    header = f"=== {game}"  # Its parameters follow if the string is long.
    print(header if len(header) <= _WIDTH else
          f"=== {game.get_type().short_name}")
    for line in describe(game):
      print(textwrap.fill(line, _WIDTH, initial_indent="  ",
                          subsequent_indent="    "))
    moves, returns = play_randomly(game, rng)
    shown = " | ".join(" ".join(move.split())
                       for move in moves[:_SHOW_MOVES.value])
    more = (f" | ... ({len(moves) - _SHOW_MOVES.value} more)"
            if len(moves) > _SHOW_MOVES.value else "")
    print(textwrap.fill(
        f"Random play (seed {_SEED.value}), {len(moves)} moves: {shown}{more}",
        _WIDTH, initial_indent="  ", subsequent_indent="    "))
    print(f"  Returns: {returns}")


if __name__ == "__main__":
  cli.run(main)
