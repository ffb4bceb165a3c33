"""The plugin's games; importing this package registers all of them with
pyspiel, and every batched engine with `engines.make`."""

from open_spiel_ext.games import clone_leduc
from open_spiel_ext.games import k_gmp
from open_spiel_ext.games import loss_game
from open_spiel_ext.games import oshi_zumo
from open_spiel_ext.games.puzzles import lights_out
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.games.puzzles import sliding_puzzle
from open_spiel_ext.games.puzzles import sokoban
from open_spiel_ext.games import rps_choice
from open_spiel_ext.games.stratego import game as stratego
from open_spiel_ext.games import tiny_hanabi
# The batched engines, each registering the games it plays (`engines.make`).
from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import batched_poker
from open_spiel_ext.games.hanabi import engine as hanabi_engine
from open_spiel_ext.games.stratego import env as stratego_env
