"""The files of an export, and writing them in OpenSpiel's layout.

`export(short_name)` makes the files OpenSpiel's developer guide ("Adding a
game", for Python games) asks for the plugin module that registers
`short_name`, and `Export.write(output_dir)` writes them under output_dir:

- open_spiel/python/games/<module>.py: the game, self-contained
  (`bundling.bundle`);
- open_spiel/python/games/<module>_test.py: its absltest (`test_source`);
- open_spiel/integration_tests/playthroughs/<game string>.txt: one per game,
  made by OpenSpiel's `generate_playthrough` from the exported module, in a
  process that never imports the plugin (both register the same short names,
  and pyspiel refuses a second registration; `playthroughs`);
- CHANGES/<module>.md: the lines to add to OpenSpiel's other files, with the
  game's row of docs/games.md (`games_md_row`).
"""

import dataclasses
import json
import os
import subprocess
import sys
import tempfile

import pyspiel

from open_spiel_ext.games.puzzles import sokoban
from open_spiel_ext.upstream import bundling
from open_spiel_ext.upstream import entries
from open_spiel_ext.upstream import templates

PLAYTHROUGH_SEED = 1234
GAMES_DIR = os.path.join("open_spiel", "python", "games")
PLAYTHROUGH_DIR = os.path.join("open_spiel", "integration_tests",
                               "playthroughs")
CHANGES_DIR = "CHANGES"


def _camel(name: str) -> str:
  return "".join(part.capitalize() for part in name.split("_"))


def _game_strings(names: tuple[str, ...]) -> list[str]:
  strings = []
  for name in names:
    for game_string in (name, entries.ENTRIES[name].playthrough):
      if game_string not in strings:
        strings.append(game_string)
  return strings


def _game_info(game_string: str) -> dict[str, float]:
  game = pyspiel.load_game(game_string)
  return {
      "num_distinct_actions": game.num_distinct_actions(),
      "max_chance_outcomes": game.max_chance_outcomes(),
      "num_players": game.num_players(),
      "min_utility": game.min_utility(),
      "max_utility": game.max_utility(),
      "max_game_length": game.max_game_length(),
  }


def _extra_tests(module: str) -> str:
  if module != "sokoban":
    return ""
  return "\n" + templates.EXTRA_TESTS[module].format(
      count=len(sokoban.shipped_levels()))


def test_source(short_name: str) -> str:
  """The absltest of the exported module holding `short_name`."""
  module = entries.module_name(short_name)
  strings = _game_strings(entries.family(short_name))
  infos = "".join(
      f"    {json.dumps(s)}: {{\n" + "".join(
          f"        {json.dumps(key)}: {value!r},\n"
          for key, value in _game_info(s).items()) + "    },\n"
      for s in strings)
  extra = _extra_tests(module)
  return templates.TEST_FILE.format(
      header=templates.LICENSE_HEADER, module=module,
      unused="" if extra else "  # pylint: disable=unused-import",
      game_strings="".join(f"    {json.dumps(s)},\n" for s in strings),
      game_infos=infos, test_class=f"{_camel(module)}Test",
      extra_tests=extra)


_PLAYTHROUGH_SCRIPT = """\
import importlib, json, sys
from open_spiel.python import games
games.__path__.insert(0, sys.argv[1])
importlib.import_module("open_spiel.python.games." + sys.argv[2])
from open_spiel.python.algorithms import generate_playthrough
texts = {game: generate_playthrough.playthrough(game, None,
                                               seed=int(sys.argv[4]))
         for game in json.loads(sys.argv[3])}
if "open_spiel_ext" in sys.modules:
  sys.exit("the plugin was imported")
json.dump(texts, sys.stdout)
"""


def openspiel_environment() -> dict[str, str]:
  """The environment of a process that must see OpenSpiel but not the
  plugin's source tree."""
  return {key: value for key, value in os.environ.items()
          if key != "PYTHONPATH"}


def playthroughs(module: str, source: str,
                 game_strings: list[str]) -> dict[str, str]:
  """Game string -> its playthrough, by OpenSpiel's generate_playthrough,
  with `PLAYTHROUGH_SEED`, in a process that imports the exported `source`
  as open_spiel.python.games.<module> and not the plugin."""
  with tempfile.TemporaryDirectory() as folder:
    with open(os.path.join(folder, f"{module}.py"), "w",
              encoding="utf-8") as f:
      f.write(source)
    result = subprocess.run(
        [sys.executable, "-c", _PLAYTHROUGH_SCRIPT, folder, module,
         json.dumps(game_strings), str(PLAYTHROUGH_SEED)],
        capture_output=True, text=True, cwd=folder, check=False,
        env=openspiel_environment())
  if result.returncode:
    raise RuntimeError(f"generating the playthroughs of {module} failed:\n"
                       f"{result.stderr[-3000:]}")
  return json.loads(result.stdout)


def playthrough_file(game_string: str) -> str:
  """The file name OpenSpiel gives a playthrough: the game string's."""
  if "/" in game_string:
    raise ValueError(f"{game_string}: a playthrough's game string makes its "
                     "file name, so it may not hold '/'")
  return f"{game_string}.txt"


def games_md_row(short_name: str) -> str:
  """The row of `short_name` for the table of OpenSpiel's docs/games.md."""
  game_type = pyspiel.load_game(short_name).get_type()
  low, high = game_type.min_num_players, game_type.max_num_players
  players = str(low) if low == high else f"{low}-{high}"
  deterministic = ("✅" if game_type.chance_mode ==
                   pyspiel.GameType.ChanceMode.DETERMINISTIC else "❌")
  perfect = ("✅" if game_type.information ==
             pyspiel.GameType.Information.PERFECT_INFORMATION else "❌")
  entry = entries.ENTRIES[short_name]
  return (f"{'🔶':<70} | {entry.title:<94} | {players:<7} | "
          f"{deterministic:<14} | {perfect:<12} | {entry.description}")


@dataclasses.dataclass(frozen=True)
class Export:
  """The files of one exported module, by path relative to the output
  folder."""
  module: str
  short_names: tuple[str, ...]
  files: dict[str, str]

  def write(self, output_dir: str) -> list[str]:
    """Writes the files under `output_dir`; returns their paths."""
    written = []
    for relative, text in self.files.items():
      path = os.path.join(output_dir, relative)
      os.makedirs(os.path.dirname(path), exist_ok=True)
      with open(path, "w", encoding="utf-8") as f:
        f.write(text)
      written.append(path)
    return written


def export(short_name: str) -> Export:
  """Everything OpenSpiel needs for the module holding `short_name`.

  Raises:
    ValueError: `short_name` is no candidate (Stratego: declined upstream),
      or its module cannot be made self-contained.
  """
  names = entries.family(short_name)
  module = entries.module_name(short_name)
  source = bundling.bundle(short_name)
  files = {
      os.path.join(GAMES_DIR, f"{module}.py"): source,
      os.path.join(GAMES_DIR, f"{module}_test.py"): test_source(short_name),
  }
  texts = playthroughs(module, source,
                       [entries.ENTRIES[name].playthrough for name in names])
  for game_string, text in texts.items():
    files[os.path.join(PLAYTHROUGH_DIR, playthrough_file(game_string))] = text
  listed = "\n".join(f"- `{path}`" for path in files)
  changes = os.path.join(CHANGES_DIR, f"{module}.md")
  files[changes] = templates.CHANGES_FILE.format(
      module=module, short_name=short_name, files=listed,
      short_names="\n".join(f'       "{name}",' for name in names),
      rows="\n".join(f"   {games_md_row(name)}" for name in names),
      seed=PLAYTHROUGH_SEED)
  return Export(module, names, files)
