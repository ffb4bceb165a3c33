"""open_spiel_ext: an OpenSpiel plugin.

Importing this package registers every game of the plugin with pyspiel, so that
`pyspiel.load_game("xdo_clone_leduc(clones=3)")` works afterwards.
"""

from open_spiel_ext import games
from open_spiel_ext.games.registry import registered_games

__all__ = ["games", "registered_games"]
