"""Writes a plugin game as a contribution to OpenSpiel, in OpenSpiel's layout.

For the plugin module that registers --game (its games go together: k_gmp,
perturbed_k_gmp and clone_gmp in k_gmp.py, the Tiny Hanabi Suite in
tiny_hanabi_suite.py), it writes under --output_dir what OpenSpiel's
developer guide asks of a Python game (`open_spiel_ext/upstream/` says how):

- open_spiel/python/games/<module>.py, self-contained (it imports pyspiel,
  numpy, the standard library and open_spiel.python only), and its absltest
  <module>_test.py;
- open_spiel/integration_tests/playthroughs/<game string>.txt for each game,
  made from the exported module by OpenSpiel's generate_playthrough;
- CHANGES/<module>.md: the lines to add to open_spiel/python/games/__init__.py,
  open_spiel/python/CMakeLists.txt, open_spiel/python/tests/pyspiel_test.py
  and docs/games.md.

--game=all exports every candidate. Stratego is refused: OpenSpiel declined
it for copyright reasons.

  python -m open_spiel_ext.examples.upstream --game=sokoban \
      --output_dir=/tmp/upstream
"""

import os
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext import upstream
from open_spiel_ext.utils import cli

_GAME = flags.DEFINE_string(
    "game", None, "Short name of the plugin game to export, or 'all'.")
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None,
    "Where to write, in OpenSpiel's source layout (open_spiel/...).")
flags.mark_flags_as_required(["game", "output_dir"])


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  names = upstream.candidates() if _GAME.value == "all" else [_GAME.value]
  with cli.user_input("game"):
    for name in names:
      upstream.check_candidate(name)
  modules = []
  for name in names:
    module = upstream.module_name(name)
    if module in modules:
      continue
    modules.append(module)
    export = upstream.export(name)
    with cli.user_input("output_dir"):
      written = export.write(_OUTPUT_DIR.value)
    print(f"{module}.py registers {', '.join(export.short_names)}:")
    for path in written:
      print(f"  wrote {path}")
  print("Copy the open_spiel/ folder over an OpenSpiel checkout and make the "
        "edits of " + ", ".join(
            os.path.join(_OUTPUT_DIR.value, upstream.CHANGES_DIR, f"{m}.md")
            for m in modules))


if __name__ == "__main__":
  cli.run(main)
