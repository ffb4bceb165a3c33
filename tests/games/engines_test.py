"""The batched-engine registry: `make` builds the engine of every registered
game, with its options, and names what it refuses."""

import re
import subprocess
import sys

import pytest

from open_spiel_ext.games import engines
import pyspiel

ENGINE_MODULES = ("open_spiel_ext.games.batched_loss_game",
                  "open_spiel_ext.games.batched_poker",
                  "open_spiel_ext.games.hanabi.engine",
                  "open_spiel_ext.games.stratego.env")

# A game of each registered short name.
GAMES = {
    "barrage_stratego": "barrage_stratego",
    "hanabi": "hanabi",
    "kuhn_poker": "kuhn_poker",
    "leduc_poker": "leduc_poker",
    "loss_game": "loss_game(bins=3)",
    "stratego": "stratego",
    "turn_based_simultaneous_game":
        "turn_based_simultaneous_game(game=loss_game(bins=3))",
    "xdo_clone_leduc": "xdo_clone_leduc(clones=2)",
}


def test_every_registered_engine_is_tested():
  assert engines.registered_engines() == sorted(GAMES)


@pytest.mark.parametrize("short_name", sorted(GAMES))
def test_make_builds_each_registered_games_engine(short_name):
  game = pyspiel.load_game(GAMES[short_name])
  for engine in (engines.make(game), engines.make(GAMES[short_name],
                                                  auto_reset=True)):
    assert engine.num_actions == game.num_distinct_actions()
  assert engine.auto_reset and not engines.make(game).auto_reset


def test_an_unknown_game_is_refused_naming_the_registered_ones():
  with pytest.raises(ValueError, match=re.escape(
      "no batched JAX engine plays tic_tac_toe(); engines are registered for "
      + ", ".join(sorted(GAMES)))):
    engines.make("tic_tac_toe")


def test_options_an_engine_does_not_take_are_refused_naming_them():
  with pytest.raises(ValueError, match=re.escape(
      "the engine of barrage_stratego takes no option continuous, speed; "
      "its options are auto_reset, relative_actions, material_shaping")):
    engines.make("barrage_stratego", continuous=True, speed=2)
  stratego = engines.make("barrage_stratego", relative_actions=True,
                          material_shaping=0.5)
  assert stratego.relative_actions and stratego.material_shaping == 0.5


def test_a_game_has_one_engine():
  with pytest.raises(ValueError, match="registered for kuhn_poker already"):
    engines.register("kuhn_poker", lambda game: None)


def test_the_engines_are_imported_when_first_asked_for():
  # `import open_spiel_ext` registers the games alone, so it stays as fast.
  script = ("import sys\n"
            "import open_spiel_ext\n"
            "from open_spiel_ext.games import engines\n"
            f"print(sorted(set({ENGINE_MODULES}) & set(sys.modules)))\n"
            "print(engines.registered_engines())\n"
            f"print(sorted(set({ENGINE_MODULES}) & set(sys.modules)))\n")
  result = subprocess.run([sys.executable, "-c", script], capture_output=True,
                          text=True, timeout=300, check=True)
  assert result.stdout.splitlines() == [
      "[]", str(sorted(GAMES)), str(sorted(ENGINE_MODULES))]
