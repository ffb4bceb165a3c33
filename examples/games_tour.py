"""Loads each plugin game, prints its GameType and GameInfo, and plays it.

Each game plays one seeded game, uniformly at random, chance included, and the
moves and returns are printed.

  python -m open_spiel_ext.examples.games_tour
  python -m open_spiel_ext.examples.games_tour --games="xdo_clone_leduc(clones=3)" --seed=7
"""

from typing import Sequence

from absl import app
from absl import flags
import numpy as np

import open_spiel_ext
from open_spiel_ext.games import random_play
import pyspiel

_GAMES = flags.DEFINE_multi_string(
    "games", None,
    "Game strings to show, e.g. 'k_gmp(k=3)'. Default: every plugin game with "
    "its default parameters.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the random play.")


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
  game_strings = _GAMES.value or open_spiel_ext.registered_games()
  rng = np.random.RandomState(_SEED.value)
  for game_string in game_strings:
    game = pyspiel.load_game(game_string)
    print(f"=== {game}")
    for line in describe(game):
      print(f"  {line}")
    moves, returns = play_randomly(game, rng)
    one_line_moves = [move.replace("\n", " ") for move in moves]
    print(f"  Random play (seed {_SEED.value}): {' | '.join(one_line_moves)}")
    print(f"  Returns: {returns}")


if __name__ == "__main__":
  app.run(main)
