"""Runs a Python module with the plugin's games registered, as `python -m`
would run it: `python -m open_spiel_ext MODULE [flags...]`.

pyspiel knows a Python game only once the module that registers it has been
imported; OpenSpiel's own example binaries never import this plugin, so
`pyspiel.load_game("xdo_clone_leduc")` fails in them. This entry point
imports `open_spiel_ext` (registering every game) and then runs MODULE as
`__main__`, its flags and exit code passed through. MODULE is:

- a short name of one of OpenSpiel's Python examples
  (`open_spiel.python.examples.NAME`), else of the plugin's
  (`open_spiel_ext.examples.NAME`);
- a dotted module path (`open_spiel.python.examples.cfr_example`);
- or a path to a `.py` script.

A MODULE that cannot run is refused in one line, exit code 2: a file or
module that does not exist, a package without `__main__`, or a module with
no `if __name__ == "__main__":` block (a library, which would run nothing).

  python -m open_spiel_ext example --game_string="xdo_clone_leduc(clones=1)"
  python -m open_spiel_ext discounted_cfr --game="xdo_clone_leduc(clones=1)"
  python -m open_spiel_ext mccfr_example --game=xdo_clone_leduc
  python -m open_spiel_ext my_script.py --flag=value
"""

import importlib.machinery
import importlib.util
import os
import re
import runpy
import sys
from typing import NoReturn

import open_spiel_ext  # pylint: disable=unused-import (registers the games)

# What a runnable module's source has: its `if __name__ == "__main__":`.
_MAIN_BLOCK = re.compile(r"""__name__\s*==\s*["']__main__["']""")
# Where short names are looked up, in order.
EXAMPLE_PACKAGES = ("open_spiel.python.examples", "open_spiel_ext.examples")
_USAGE = "usage: python -m open_spiel_ext MODULE [flags...]"


def resolve(name: str) -> str:
  """The module a MODULE argument names (see the module docstring).

  Raises:
    ValueError: no such module, naming the places looked; or one that
      cannot run (a package without __main__, a module without a main
      block).
  """
  candidates = ([name] if "." in name else
                [f"{package}.{name}" for package in EXAMPLE_PACKAGES])
  for candidate in candidates:
    try:
      spec = importlib.util.find_spec(candidate)
    except (ModuleNotFoundError, ValueError):
      continue
    if spec is not None:
      _check_runnable(candidate, spec)
      return candidate
  raise ValueError(f"no module {name!r}: looked for "
                   f"{', '.join(candidates)}")


def _check_runnable(name: str, spec: importlib.machinery.ModuleSpec) -> None:
  """Raises ValueError unless the module `name` runs something as
  `__main__`."""
  if spec.submodule_search_locations is not None:
    main_name = f"{name}.__main__"
    main_spec = importlib.util.find_spec(main_name)
    if main_spec is None:
      raise ValueError(f"{name} is a package with no __main__ module: "
                       "nothing to run; name one of its modules")
    name, spec = main_name, main_spec
  try:
    source = spec.loader.get_source(name)
  except (AttributeError, ImportError):
    source = None
  if source is None or not _MAIN_BLOCK.search(source):
    raise ValueError(f"{name} is a library module (it has no "
                     "`if __name__ == \"__main__\":` block): running it "
                     "would do nothing")


def _refuse(message: str) -> NoReturn:
  print(f"open_spiel_ext: error: {message}\n{_USAGE}", file=sys.stderr)
  sys.exit(2)


def main(argv: list[str]) -> None:
  """Runs argv[1] with argv[2:] as its flags; exits 2 on a bad MODULE."""
  if len(argv) < 2 or argv[1] in ("-h", "--help"):
    print(__doc__ if len(argv) > 1 else _USAGE, file=sys.stderr)
    sys.exit(0 if len(argv) > 1 else 2)
  target = argv[1]
  if target.endswith(".py"):
    if not os.path.isfile(target):
      _refuse(f"no file {target!r}")
    sys.argv = argv[1:]
    runpy.run_path(target, run_name="__main__")
    return
  try:
    module = resolve(target)
  except ValueError as error:
    _refuse(str(error))
  sys.argv = [module] + argv[2:]
  runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
  main(sys.argv)
