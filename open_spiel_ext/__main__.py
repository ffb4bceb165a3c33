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

  python -m open_spiel_ext example --game_string="xdo_clone_leduc(clones=1)"
  python -m open_spiel_ext discounted_cfr --game="xdo_clone_leduc(clones=1)"
  python -m open_spiel_ext mccfr_example --game=xdo_clone_leduc
  python -m open_spiel_ext my_script.py --flag=value
"""

import importlib.util
import runpy
import sys

import open_spiel_ext  # pylint: disable=unused-import (registers the games)

# Where short names are looked up, in order.
EXAMPLE_PACKAGES = ("open_spiel.python.examples", "open_spiel_ext.examples")
_USAGE = "usage: python -m open_spiel_ext MODULE [flags...]"


def resolve(name: str) -> str:
  """The module a MODULE argument names (see the module docstring).

  Raises:
    ValueError: no such module, naming the places looked.
  """
  candidates = ([name] if "." in name else
                [f"{package}.{name}" for package in EXAMPLE_PACKAGES])
  for candidate in candidates:
    try:
      if importlib.util.find_spec(candidate) is not None:
        return candidate
    except ModuleNotFoundError:
      continue
  raise ValueError(f"no module {name!r}: looked for "
                   f"{', '.join(candidates)}")


def main(argv: list[str]) -> None:
  """Runs argv[1] with argv[2:] as its flags; exits 2 on a bad MODULE."""
  if len(argv) < 2 or argv[1] in ("-h", "--help"):
    print(__doc__ if len(argv) > 1 else _USAGE, file=sys.stderr)
    sys.exit(0 if len(argv) > 1 else 2)
  target = argv[1]
  if target.endswith(".py"):
    sys.argv = argv[1:]
    runpy.run_path(target, run_name="__main__")
    return
  try:
    module = resolve(target)
  except ValueError as error:
    print(f"open_spiel_ext: error: {error}\n{_USAGE}", file=sys.stderr)
    sys.exit(2)
  sys.argv = [module] + argv[2:]
  runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
  main(sys.argv)
