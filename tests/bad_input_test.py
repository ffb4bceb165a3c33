"""Bad parameters and illegal actions get clear errors and corrupt nothing."""

import numpy as np
import pytest

import conformance
import open_spiel_ext
import pyspiel

# (game string, text the error must contain: the parameter and its value):
# values the plugin's games refuse, with ValueError.
BAD_VALUES = [
    ("xdo_clone_leduc(clones=0)", "clones=0"),
    ("xdo_clone_leduc(clones=-2)", "clones=-2"),
    ("k_gmp(k=0)", "k=0"),
    ("k_gmp(actions=1)", "actions=1"),
    ("perturbed_k_gmp(k=0)", "k=0"),
    ("perturbed_k_gmp(actions=1)", "actions=1"),
    ("perturbed_k_gmp(seed=-1)", "seed=-1"),
    ("clone_gmp(k=0)", "k=0"),
    ("clone_gmp(clones=0)", "clones=0"),
    ("clone_gmp(classes=1)", "classes=1"),
    ("rps_choice(games=0)", "games=0"),
    ("xdo_oshi_zumo(coins=0)", "coins=0"),
    ("xdo_oshi_zumo(size=0)", "size=0"),
    ("xdo_oshi_zumo(horizon=0)", "horizon=0"),
    ("xdo_oshi_zumo(min_bid=-1)", "min_bid=-1"),
    ("xdo_oshi_zumo(min_bid=5)", "min_bid=5"),
    ("xdo_oshi_zumo(preset=huge)", "preset='huge'"),
    ("xdo_oshi_zumo(coins=7,preset=medium)", "coins=7"),
    ("barrage_stratego(ply_limit=0)", "ply_limit=0"),
    ("barrage_stratego(setup=mirror)", "setup='mirror'"),
    ("stratego(setup=fixed)", "setup0=''"),
    ("barrage_stratego(setup0=..S....S..)", "setup=placement"),
    ("loss_game(dims=3)", "dims must be one of"),
    ("loss_game(bins=0)", "bins must be >= 2"),
    ("loss_game(bins=1)", "bins must be >= 2"),
    ("loss_game(moves=0)", "moves must be >= 1"),
    ("loss_game(alpha=0.0)", "alpha must be > 0"),
    ("loss_game(alpha=-2.7)", "alpha must be > 0"),
    ("loss_game(max_move=0.0)", "max_move must be > 0"),
    ("loss_game(dims=16,bins=3)", "3**16"),
    ("lights_out(size=1)", "size=1"),
    ("lights_out(size=3,state=01/10)", "state='01/10'"),
    ("lights_out(max_length=0)", "max_length=0"),
    ("lights_out(scramble_moves=-1)", "scramble_moves=-1"),
    ("sliding_puzzle(size=2)", "size=2"),
    ("sliding_puzzle(size=8)", "size=8"),
    ("sliding_puzzle(size=3,state=1 2 3/4 5 6/7 8)", "not 3 rows"),
    ("sliding_puzzle(size=3,state=1 2 3/4 5 6/7 8 8)", "not 3 rows"),
    ("sliding_puzzle(size=3,state=2 1 3/4 5 6/7 8 0)", "cannot reach"),
    ("rubiks_cube(size=4)", "size=4"),
    ("rubiks_cube(size=2,state=UUUU/RRRR)", "not 6 faces"),
    ("rubiks_cube(size=2,state=UUUU/RRRR/FFFF/DDDD/LLLL/BBBX)", "not 6 faces"),
    ("rubiks_cube(size=2,state=UUUU/RRRR/FFFF/DDDD/LLLL/BBBU)",
     "colour counts"),
    ("rubiks_cube(state=UUUURUUUU/RRRRURRRR/FFFFFFFFF/DDDDDDDDD/LLLLLLLLL/"
     "BBBBBBBBB)", "centres"),
    ("sokoban(state=####/#@$#/###)", "rows differ"),
    ("sokoban(state=####/#@x#/####)", "characters"),
    ("sokoban(state=#####/#@$$#/#####)", "2 boxes and 0 goals"),
    ("sokoban(state=#####/# $.#/#####)", "0 players"),
    ("sokoban(level=-1)", "level=-1"),
    ("sokoban(level=1000000)", "level=1000000"),
]
# Parameters pyspiel refuses before a game sees them (unknown ones, or of the
# wrong type), with SpielError.
BAD_PARAMETERS = [
    ("k_gmp(kk=3)", "'kk'"),
    ("tiny_hanabi_a(cards=3)", "'cards'"),
    ("xdo_clone_leduc(clones=two)", "two"),
]


@pytest.mark.parametrize(
    "game_string,named,error",
    [(game, named, ValueError) for game, named in BAD_VALUES] +
    [(game, named, pyspiel.SpielError) for game, named in BAD_PARAMETERS])
def test_bad_parameter_is_named(game_string, named, error):
  with pytest.raises(error) as raised:
    pyspiel.load_game(game_string)
  assert named in str(raised.value)


MAX_ACTIONS_TRIED = 64  # Per state; larger games get a random sample.
MAX_STATES_TRIED = 60  # Per game; longer games get states spread evenly.


def _illegal_actions(state: pyspiel.State,
                     rng: np.random.RandomState) -> list[int]:
  legal = set(state.legal_actions())
  num_actions = state.get_game().num_distinct_actions()
  illegal = [a for a in range(num_actions) if a not in legal]
  if len(illegal) > MAX_ACTIONS_TRIED:
    illegal = list(rng.choice(illegal, MAX_ACTIONS_TRIED, replace=False))
  edges = [a for a in (-1, num_actions, num_actions + 7) if a not in legal]
  return edges + [int(a) for a in illegal]


@pytest.mark.parametrize("name", open_spiel_ext.registered_games())
def test_illegal_action_raises_and_leaves_the_state(name):
  game = pyspiel.load_game(name)
  rng = np.random.RandomState(0)
  states = conformance.random_trajectory(game, rng)
  if len(states) > MAX_STATES_TRIED:
    states = [states[i] for i in np.linspace(0, len(states) - 1,
                                             MAX_STATES_TRIED, dtype=int)]
  for state in states:
    before = conformance.fingerprint(state)
    for action in _illegal_actions(state, rng):
      with pytest.raises(pyspiel.SpielError) as error:
        state.apply_action(action)
      assert str(action) in str(error.value)
      assert conformance.fingerprint(state) == before
