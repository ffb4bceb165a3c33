"""Applies the conformance checks to every configuration of every plugin game."""

import os

import numpy as np
import pytest

import conformance
import open_spiel_ext
import pyspiel

CONFIGS = pytest.mark.parametrize("config", conformance.CONFIGS, ids=str)
NUM_RANDOM_GAMES = 20


def random_states(config: conformance.Config) -> list[pyspiel.State]:
  """States of a few seeded random games of `config`."""
  game = pyspiel.load_game(config.game_string)
  rng = np.random.RandomState(0)
  return [state for _ in range(3)
          for state in conformance.random_trajectory(game, rng)]


def test_every_registered_game_has_configurations():
  configured = {conformance.short_name(c.game_string)
                for c in conformance.CONFIGS}
  assert configured == set(open_spiel_ext.registered_games())


def test_every_registered_game_has_a_playthrough():
  with_playthrough = {conformance.short_name(c.game_string)
                      for c in conformance.CONFIGS if c.playthrough}
  assert with_playthrough == set(open_spiel_ext.registered_games())


def test_games_with_parameters_have_several_configurations():
  for name in open_spiel_ext.registered_games():
    if pyspiel.load_game(name).get_type().parameter_specification:
      count = sum(conformance.short_name(c.game_string) == name
                  for c in conformance.CONFIGS)
      assert count >= 3, name


def test_no_stale_playthroughs():
  expected = {conformance.playthrough_path(c.game_string)
              for c in conformance.CONFIGS if c.playthrough}
  present = {os.path.join(conformance.PLAYTHROUGH_DIR, name)
             for name in os.listdir(conformance.PLAYTHROUGH_DIR)}
  assert present == expected


@CONFIGS
def test_random_simulation(config):
  conformance.check_random_simulation(
      pyspiel.load_game(config.game_string), NUM_RANDOM_GAMES)


@CONFIGS
@pytest.mark.parametrize(
    "check", [conformance.check_round_trips, conformance.check_tensor_sizes],
    ids=lambda check: check.__name__)
def test_state_checks(config, check):
  game = pyspiel.load_game(config.game_string)
  for state in random_states(config):
    check(game, state)


@CONFIGS
def test_clone(config):
  for state in random_states(config):
    conformance.check_clone(state)


@CONFIGS
def test_game_info_holds_in_random_play(config):
  game = pyspiel.load_game(config.game_string)
  rng = np.random.RandomState(1)
  for _ in range(NUM_RANDOM_GAMES):
    conformance.check_game_info(game, conformance.random_trajectory(game, rng))


@pytest.mark.parametrize(
    "config", [c for c in conformance.CONFIGS if c.exhaustive], ids=str)
def test_whole_tree(config):
  counts = conformance.check_whole_tree(pyspiel.load_game(config.game_string))
  assert counts.terminal > 0 and counts.information_states > 0


@pytest.mark.parametrize(
    "config", [c for c in conformance.CONFIGS if c.playthrough], ids=str)
def test_playthrough(config):
  path = conformance.playthrough_path(config.game_string)
  assert os.path.exists(path), (
      f"{path} is missing; run: python tests/conformance.py")
  expected, actual = conformance.replay_playthrough(path)
  for line_number, (expected_line, actual_line) in enumerate(
      zip(expected.split("\n"), actual.split("\n")), start=1):
    assert actual_line == expected_line, f"{path}:{line_number}"
  assert actual == expected
