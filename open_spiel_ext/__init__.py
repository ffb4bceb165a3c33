"""open_spiel_ext: an OpenSpiel plugin.

Importing this package registers every game of the plugin with pyspiel, so that
`pyspiel.load_game("xdo_clone_leduc(clones=3)")` works afterwards.
"""

import os

# Installed, games/ algorithms/ utils/ examples/ sit inside this package. In a
# source checkout they sit beside this folder (see docs/architecture.md), so
# that `python -m open_spiel_ext.examples...` run from the repository root
# finds them there.
if not os.path.isdir(os.path.join(os.path.dirname(__file__), "games")):
  __path__.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# pylint: disable=g-import-not-at-top,wrong-import-position
from open_spiel_ext import games
from open_spiel_ext.games.registry import load_game
from open_spiel_ext.games.registry import registered_games

__all__ = ["games", "load_game", "registered_games"]
