"""The plugin's games; importing this package registers all of them with
pyspiel. Their batched engines are imported by `engines.make` when it is
first used (`games/engines.py`)."""

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
