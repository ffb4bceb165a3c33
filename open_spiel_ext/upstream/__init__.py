"""Exports a plugin game as a contribution to OpenSpiel, in OpenSpiel's layout.

OpenSpiel's developer guide ("Adding a game", for Python games) asks for a
module and its test under open_spiel/python/games/, an import in that folder's
__init__.py, the test in open_spiel/python/CMakeLists.txt, the short name in
the expected games of open_spiel/python/tests/pyspiel_test.py, a playthrough
under open_spiel/integration_tests/playthroughs/ and a row in docs/games.md.
`export(short_name)` makes all of them for the plugin module that registers
`short_name`, and `Export.write(output_dir)` writes them under output_dir.
The exported module is self-contained: it imports only pyspiel, numpy, the
standard library and open_spiel.python.

One module a concern:

- `entries.py`: which games go (every one but Stratego, `DECLINED`), in which
  exported module (`family`, `module_name`), and what OpenSpiel's files say
  of each (`ENTRIES`);
- `rewrites.py`: what changes in a plugin module's text before it is bundled
  (docstrings, rewordings, Sokoban's level file inlined);
- `reading.py`, `registrations.py`, `alignment.py` and `bundling.py`: the
  exported module, tree shaken from the plugin's modules (`bundle`);
- `checks.py`: what it must pass (`check_imports`);
- `templates.py` and `writing.py`: its test, playthroughs and CHANGES file,
  and the writing of them all (`export`, `Export`).

`python -m open_spiel_ext.examples.upstream --game=GAME --output_dir=DIR`
runs it.
"""

from open_spiel_ext.upstream.bundling import bundle
from open_spiel_ext.upstream.checks import check_imports
from open_spiel_ext.upstream.entries import candidates
from open_spiel_ext.upstream.entries import check_candidate
from open_spiel_ext.upstream.entries import DECLINED
from open_spiel_ext.upstream.entries import ENTRIES
from open_spiel_ext.upstream.entries import family
from open_spiel_ext.upstream.entries import module_name
from open_spiel_ext.upstream.writing import CHANGES_DIR
from open_spiel_ext.upstream.writing import export
from open_spiel_ext.upstream.writing import Export
from open_spiel_ext.upstream.writing import GAMES_DIR
from open_spiel_ext.upstream.writing import games_md_row
from open_spiel_ext.upstream.writing import openspiel_environment
from open_spiel_ext.upstream.writing import PLAYTHROUGH_DIR
from open_spiel_ext.upstream.writing import PLAYTHROUGH_SEED

__all__ = [
    "CHANGES_DIR", "DECLINED", "ENTRIES", "Export", "GAMES_DIR",
    "PLAYTHROUGH_DIR", "PLAYTHROUGH_SEED", "bundle", "candidates",
    "check_candidate", "check_imports", "export", "family", "games_md_row",
    "module_name", "openspiel_environment",
]
