"""Conformance checks holding every plugin game to OpenSpiel's own standards.

`conformance_test.py` applies each check to every configuration in
`CONFIGS`: OpenSpiel's `random_sim_test`, pickle and serialization round trips,
clone independence, tensor sizes against the declared shapes, GameInfo against
what play sees, information-set consistency on the whole tree of small games,
and a playthrough golden file replayed line by line. (Simultaneous games are
configured without the whole-tree walk, which needs one player to move.)

Run as a script, it regenerates the golden files in tests/playthroughs/ and
removes those of configurations no longer listed:

  python tests/conformance.py
"""

import dataclasses
import os
import pickle
import re
from typing import Iterator

from absl import app
from absl import flags
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel.python.algorithms import generate_playthrough
from open_spiel_ext.games import random_play
from open_spiel_ext.games.stratego import rules as stratego_rules
import pyspiel

PLAYTHROUGH_DIR = os.path.join(os.path.dirname(__file__), "playthroughs")
PLAYTHROUGH_SEED = 1234


@dataclasses.dataclass(frozen=True)
class Config:
  """A game with parameters, and which of the heavier checks it gets.

  `exhaustive`: whether its whole tree is walked. `playthrough`: whether it has
  a golden file (every game has at least one configuration that does; long
  games with large tensors are kept to configurations with short files).
  """
  game_string: str
  exhaustive: bool = True
  playthrough: bool = True

  def __str__(self) -> str:
    return self.game_string


_BARRAGE_SETUP = stratego_rules.EXAMPLE_SETUPS["barrage"]
_CLASSIC_SETUP = stratego_rules.EXAMPLE_SETUPS["classic"]
_mirrored = stratego_rules.mirrored_setup

CONFIGS = (
    Config("xdo_clone_leduc(clones=1)"),
    Config("xdo_clone_leduc(clones=2)", exhaustive=False),
    Config("xdo_clone_leduc(clones=3)", exhaustive=False),
    Config("k_gmp"),
    Config("k_gmp(actions=2,k=1)"),
    Config("k_gmp(actions=5,k=4)"),
    Config("perturbed_k_gmp"),
    Config("perturbed_k_gmp(actions=2,k=3,seed=7)"),
    Config("perturbed_k_gmp(actions=4,k=16,seed=123)"),
    Config("clone_gmp"),
    Config("clone_gmp(classes=2,clones=1,k=1)"),
    Config("clone_gmp(classes=4,clones=3,k=2)"),
    Config("rps_choice"),
    Config("rps_choice(games=1)"),
    Config("rps_choice(games=5)"),
    Config("xdo_oshi_zumo"),
    Config("xdo_oshi_zumo(coins=3,horizon=4,min_bid=1,size=1)"),
    Config("xdo_oshi_zumo(preset=tiny)"),
    Config("xdo_oshi_zumo(preset=medium)", exhaustive=False),
    Config("loss_game(bins=3,moves=2)", exhaustive=False),
    Config("loss_game(bins=2,moves=3)", exhaustive=False),
    Config("loss_game", exhaustive=False, playthrough=False),
    Config("tiny_hanabi_a"),
    Config("tiny_hanabi_b"),
    Config("tiny_hanabi_c"),
    Config("tiny_hanabi_d"),
    Config("tiny_hanabi_e"),
    Config("tiny_hanabi_f"),
    Config("lights_out(max_length=12)", exhaustive=False),
    Config("lights_out(max_length=3,scramble_moves=3,seed=2,size=3)"),
    Config("lights_out(max_length=6,size=5,state=00000/00100/01110/00100/"
           "00000)", exhaustive=False),
    Config("rubiks_cube(max_length=3,scramble_moves=5,seed=1)"),
    Config("rubiks_cube(max_length=3,scramble_moves=3,seed=4,size=2)"),
    Config("rubiks_cube(max_length=8,state=UUUUUUUUU/BBBRRRRRR/RRRFFFFFF/"
           "DDDDDDDDD/FFFLLLLLL/LLLBBBBBB)", exhaustive=False),
    Config("rubiks_cube(max_length=60)", exhaustive=False, playthrough=False),
    Config("sliding_puzzle(max_length=8,scramble_moves=6,seed=2,size=3)"),
    Config("sliding_puzzle(max_length=6,state=1 2 3 4/5 6 7 8/9 10 11 12/"
           "13 14 0 15)"),
    Config("sliding_puzzle(max_length=60,size=7)", exhaustive=False,
           playthrough=False),
    Config("sokoban(max_length=8,state=#######/#@ $ .#/#  $ .#/#######)"),
    Config("sokoban(max_length=6)", exhaustive=False),
    Config("sokoban(level=9,max_length=80)", exhaustive=False,
           playthrough=False),
    Config("barrage_stratego(ply_limit=4)", exhaustive=False),
    Config("barrage_stratego(ply_limit=4,setup=random)", exhaustive=False),
    Config(f"barrage_stratego(ply_limit=8,setup=fixed,"
           f"setup0={_BARRAGE_SETUP},setup1={_mirrored(_BARRAGE_SETUP)})",
           exhaustive=False),
    Config("barrage_stratego(ply_limit=60,setup=random)", exhaustive=False,
           playthrough=False),
    Config(f"stratego(ply_limit=6,setup=fixed,"
           f"setup0={_CLASSIC_SETUP},setup1={_mirrored(_CLASSIC_SETUP)})",
           exhaustive=False),
    Config("stratego(ply_limit=30)", exhaustive=False, playthrough=False),
    Config("stratego(ply_limit=30,setup=random)", exhaustive=False,
           playthrough=False),
)


def short_name(game_string: str) -> str:
  """The short name a game string loads."""
  return game_string.split("(")[0]


def playthrough_path(game_string: str) -> str:
  """The golden file of a game string, e.g. k_gmp_actions_2_k_1.txt."""
  stem = re.sub(r"[^A-Za-z0-9]+", "_", game_string).strip("_")
  return os.path.join(PLAYTHROUGH_DIR, f"{stem}.txt")


def replay_playthrough(path: str) -> tuple[str, str]:
  """Returns (golden text, text of the same actions played again)."""
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()  # `replay` reads one of OpenSpiel's flags.
  return generate_playthrough.replay(path)


def fingerprint(state: pyspiel.State) -> tuple:
  """Everything observable of a state; equal fingerprints mean equal states."""
  game_type = state.get_game().get_type()
  parts = [
      tuple(state.history()),
      str(state),
      state.current_player(),
      state.is_terminal(),
      tuple(state.returns()),
  ]
  if not state.is_terminal():
    parts.append(tuple(state.legal_actions()))
  for player in range(state.num_players()):
    if game_type.provides_information_state_string:
      parts.append(state.information_state_string(player))
    if game_type.provides_information_state_tensor:
      parts.append(tuple(state.information_state_tensor(player)))
    if game_type.provides_observation_string:
      parts.append(state.observation_string(player))
    if game_type.provides_observation_tensor:
      parts.append(tuple(state.observation_tensor(player)))
  return tuple(parts)


def random_trajectory(game: pyspiel.Game,
                      rng: np.random.RandomState) -> list[pyspiel.State]:
  """All states of one game played uniformly at random, chance included."""
  state = game.new_initial_state()
  states = [state.clone()]
  while not state.is_terminal():
    state.apply_action(random_play.sample_action(state, rng))
    states.append(state.clone())
  return states


def check_random_simulation(game: pyspiel.Game, num_sims: int) -> None:
  """OpenSpiel's own random simulation test, with serialization."""
  pyspiel.random_sim_test(game, num_sims=num_sims, serialize=True,
                          verbose=False)


def check_round_trips(game: pyspiel.Game, state: pyspiel.State) -> None:
  """Pickle and serialization of the game and the state restore them."""
  assert str(pickle.loads(pickle.dumps(game))) == str(game)
  expected = fingerprint(state)
  assert fingerprint(pickle.loads(pickle.dumps(state))) == expected
  assert fingerprint(game.deserialize_state(state.serialize())) == expected
  new_game, new_state = pyspiel.deserialize_game_and_state(
      pyspiel.serialize_game_and_state(game, state))
  assert str(new_game) == str(game)
  assert fingerprint(new_state) == expected


def check_clone(state: pyspiel.State) -> None:
  """A clone equals its state, and moving the clone leaves the state alone."""
  expected = fingerprint(state)
  clone = state.clone()
  assert fingerprint(clone) == expected
  if not state.is_terminal():
    action = (state.chance_outcomes()[0][0]
              if state.is_chance_node() else state.legal_actions()[0])
    clone.apply_action(action)
    assert fingerprint(state) == expected


def check_tensor_sizes(game: pyspiel.Game, state: pyspiel.State) -> None:
  """Tensors have the declared sizes, and the sizes match the shapes."""
  game_type = game.get_type()
  for player in range(game.num_players()):
    if game_type.provides_information_state_tensor:
      size = game.information_state_tensor_size()
      assert np.prod(game.information_state_tensor_shape()) == size
      assert len(state.information_state_tensor(player)) == size
    if game_type.provides_observation_tensor:
      size = game.observation_tensor_size()
      assert np.prod(game.observation_tensor_shape()) == size
      assert len(state.observation_tensor(player)) == size


def check_game_info(game: pyspiel.Game,
                    trajectory: list[pyspiel.State]) -> None:
  """What one game's play sees stays inside the game's declared GameInfo."""
  for state in trajectory[:-1]:
    if state.is_chance_node():
      outcomes = state.chance_outcomes()
      assert 0 < len(outcomes) <= game.max_chance_outcomes()
      assert abs(sum(prob for _, prob in outcomes) - 1.0) < 1e-9
      assert all(0 <= action < game.max_chance_outcomes()
                 for action, _ in outcomes)
    else:
      assert all(0 <= action < game.num_distinct_actions()
                 for action in _player_actions(state))
  terminal = trajectory[-1]
  returns = terminal.returns()
  assert len(returns) == game.num_players()
  assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
  if game.get_type().utility in (pyspiel.GameType.Utility.ZERO_SUM,
                                 pyspiel.GameType.Utility.CONSTANT_SUM):
    assert abs(sum(returns) - game.utility_sum()) < 1e-9
  player_moves = sum(
      1 for item in terminal.full_history()
      if item.player != pyspiel.PlayerId.CHANCE)
  if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    player_moves //= game.num_players()  # A joint move counts once.
  assert player_moves <= game.max_game_length()


def _player_actions(state: pyspiel.State) -> list[int]:
  """The legal actions of the player to move, or of every player at a
  simultaneous node (whose `legal_actions()` are joint actions)."""
  if state.is_simultaneous_node():
    return [action for player in range(state.num_players())
            for action in state.legal_actions(player)]
  return state.legal_actions()


@dataclasses.dataclass
class TreeCounts:
  """Sizes of a game tree, as OpenSpiel's docs and the thesis count them."""
  histories: int = 0
  decision: int = 0
  terminal: int = 0
  chance: int = 0
  information_states: int = 0


def walk_histories(game: pyspiel.Game) -> Iterator[pyspiel.State]:
  """Yields every history of the game, depth first."""
  stack = [game.new_initial_state()]
  while stack:
    state = stack.pop()
    yield state
    if state.is_chance_node():
      stack.extend(state.child(a) for a, _ in state.chance_outcomes())
    elif not state.is_terminal():
      stack.extend(state.child(a) for a in state.legal_actions())


def check_whole_tree(game: pyspiel.Game) -> TreeCounts:
  """Walks every history: information sets are consistent, bounds hold.

  All histories of an information set share the player to move, the legal
  actions and the information-state tensor; different information sets have
  different tensors; returns and lengths stay within GameInfo.

  Returns:
    The tree's sizes.
  """
  counts = TreeCounts()
  infosets = {}  # (player, info-state string) -> (legal actions, tensor)
  has_tensor = game.get_type().provides_information_state_tensor
  for state in walk_histories(game):
    counts.histories += 1
    if state.is_terminal():
      counts.terminal += 1
      check_game_info(game, [state])
    elif state.is_chance_node():
      counts.chance += 1
    else:
      counts.decision += 1
      player = state.current_player()
      key = (player, state.information_state_string())
      value = (tuple(state.legal_actions()),
               tuple(state.information_state_tensor()) if has_tensor else None)
      assert infosets.setdefault(key, value) == value, (
          f"information set {key} differs between histories")
  counts.information_states = len(infosets)
  if has_tensor:
    tensors = {(player, tensor) for (player, _), (_, tensor) in infosets.items()}
    assert len(tensors) == len(infosets), (
        "distinct information states share an information-state tensor")
  return counts


def write_playthroughs() -> None:
  """Writes the golden file of every configuration and removes stale ones."""
  os.makedirs(PLAYTHROUGH_DIR, exist_ok=True)
  expected = {playthrough_path(c.game_string) for c in CONFIGS
              if c.playthrough}
  for config in (c for c in CONFIGS if c.playthrough):
    text = generate_playthrough.playthrough(
        config.game_string, action_sequence=None, seed=PLAYTHROUGH_SEED)
    with open(playthrough_path(config.game_string), "w",
              encoding="utf-8") as f:
      f.write(text)
    print(f"wrote {playthrough_path(config.game_string)}")
  for name in os.listdir(PLAYTHROUGH_DIR):
    path = os.path.join(PLAYTHROUGH_DIR, name)
    if path not in expected:
      os.remove(path)
      print(f"removed {path}")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  write_playthroughs()


if __name__ == "__main__":
  app.run(main)
