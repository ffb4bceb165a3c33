"""The installed package registers its games under their documented names."""

import os

import pytest

import open_spiel_ext
import pyspiel

PLUGIN_GAMES = [
    "barrage_stratego", "clone_gmp", "k_gmp", "lights_out", "loss_game",
    "perturbed_k_gmp",
    "rps_choice", "rubiks_cube", "sliding_puzzle", "sokoban", "stratego", "tiny_hanabi_a", "tiny_hanabi_b",
    "tiny_hanabi_c", "tiny_hanabi_d", "tiny_hanabi_e", "tiny_hanabi_f",
    "xdo_clone_leduc", "xdo_oshi_zumo"
]


def test_registered_games():
  assert open_spiel_ext.registered_games() == PLUGIN_GAMES
  assert set(PLUGIN_GAMES) <= set(pyspiel.registered_names())


@pytest.mark.skipif("TEST_SRCDIR" in os.environ,
                    reason="bazel test runs the source layout")
def test_installed_under_the_namespace():
  package_dir = os.path.dirname(open_spiel_ext.__file__)
  for subpackage in ("games", "algorithms", "utils", "examples"):
    assert os.path.isfile(os.path.join(package_dir, subpackage,
                                       "__init__.py"))
  assert open_spiel_ext.games.__name__ == "open_spiel_ext.games"
