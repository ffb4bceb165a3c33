"""Bad parameters and illegal actions get clear errors and corrupt nothing."""

import numpy as np
import pytest

import conformance
import open_spiel_ext
import pyspiel

# (game string, text the error must contain: the parameter and its value).
BAD_PARAMETERS = [
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
    ("k_gmp(kk=3)", "'kk'"),
    ("tiny_hanabi_a(cards=3)", "'cards'"),
    ("xdo_clone_leduc(clones=two)", "two"),
    ("barrage_stratego(ply_limit=0)", "ply_limit=0"),
    ("barrage_stratego(setup=mirror)", "setup='mirror'"),
    ("stratego(setup=fixed)", "setup0=''"),
    ("barrage_stratego(setup0=..S....S..)", "setup=placement"),
]


@pytest.mark.parametrize("game_string,named", BAD_PARAMETERS)
def test_bad_parameter_is_named(game_string, named):
  with pytest.raises((ValueError, pyspiel.SpielError)) as error:
    pyspiel.load_game(game_string)
  assert named in str(error.value)


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
