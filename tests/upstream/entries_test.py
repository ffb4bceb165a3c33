"""Which games go to OpenSpiel, and in which module
(`open_spiel_ext/upstream/entries.py`)."""

import pytest

import open_spiel_ext
from open_spiel_ext import upstream

STRATEGO = ("stratego", "barrage_stratego")


def test_every_plugin_game_but_stratego_is_a_candidate():
  registered = set(open_spiel_ext.registered_games())
  assert set(STRATEGO) <= registered
  assert set(upstream.candidates()) == registered - set(STRATEGO)
  assert set(upstream.ENTRIES) == set(upstream.candidates())
  assert {upstream.module_name(name) for name in upstream.candidates()} == {
      "k_gmp", "lights_out", "loss_game", "rps_choice", "rubiks_cube",
      "sliding_puzzle", "sokoban", "tiny_hanabi_suite", "xdo_clone_leduc",
      "xdo_oshi_zumo"}


@pytest.mark.parametrize("name", STRATEGO)
def test_stratego_is_refused_for_copyright(name):
  with pytest.raises(ValueError, match="copyright.*#459 and #635"):
    upstream.export(name)


def test_modules_with_several_games_export_them_together():
  assert upstream.family("perturbed_k_gmp") == ("clone_gmp", "k_gmp",
                                                "perturbed_k_gmp")
  assert upstream.module_name("clone_gmp") == "k_gmp"
  assert upstream.module_name("tiny_hanabi_c") == "tiny_hanabi_suite"
  assert upstream.family("tiny_hanabi_c") == tuple(
      f"tiny_hanabi_{letter}" for letter in "abcdef")
  assert upstream.module_name("xdo_oshi_zumo") == "xdo_oshi_zumo"
