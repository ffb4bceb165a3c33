"""What every example binary shares at its edges: flags in, errors out.

`run(main)` replaces `absl.app.run(main)`: a bad flag value, or a
`UsageError` raised by `main` (a bad game string, a state that does not
parse), or a checkpoint it cannot resume (`checkpoints.CheckpointError`:
unreadable, or another run's), ends the program with one line on stderr, `<program>: error: ...`,
and exit code 2, instead of absl's usage text or a traceback; a stop signal
(Ctrl-C's SIGINT, SIGTERM, SIGHUP: `checkpoints.STOP_SIGNALS`) unwinds the
stack as Ctrl-C does, so that a training loop checkpoints and an executor's
`with` block stops its workers, and ends it with exit code 128 + the
signal's number (130, 143, 129), and a reader
that stops reading (`| head`) ends it quietly. It also keeps JAX's probe for
a TPU from printing its "Unable to initialize backend 'tpu'" line, without
choosing a platform (a machine with a GPU still uses it), turns on JAX's
persistent compilation cache (`utils/compilation_cache.py`), and checks an
example's --output_dir (or --output file) before its work starts: a file
where a folder should be, or a folder it cannot write in, is such a
one-line error rather than a traceback after minutes of work.

`user_input(flag)` turns the `ValueError` or `pyspiel.SpielError` that
library code raises on a bad value into such an error, naming the flag it
came from; `parse_flag(flag, value, parse)` does so for one parser, e.g.
`open_spiel_ext.load_game`, whose unknown game names list the plugin's games.

`define_game_list(name, default, help)` defines a flag of comma-separated
game strings that keeps the commas inside a game's parameters
(`--games=kuhn_poker,loss_game(dims=16,bins=2)` is two games).

`define_config_flags(config, helps)` defines a flag per field of a recipe's
config (its value there the default) and `given(holders)` returns those a
command line set, to change the recipe with.

`define_executor_flags()` gives an example --executor, --workers and
--ray_address; `executor_from_flags()` builds the executor they name
(`utils/executors.py`).

`check_memory(needed_bytes, flags)` refuses a run that cannot fit in the
memory free here (`utils/memory.py`) before any work, in such a line naming
the size flags to lower, rather than an abort at allocation deep inside (in
XLA after compiling, or a worker killed for memory); `check_task_memory`
does so for what one executor task allocates.
"""

import contextlib
import logging
import math
import os
import pathlib
import signal
import sys
import tempfile
from typing import Any, Callable, Iterator, Mapping, NoReturn, Optional, Sequence

from absl import app
from absl import flags

from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import compilation_cache
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import memory
import pyspiel

USAGE_ERROR_EXIT_CODE = 2
SIGNAL_EXIT_CODE_BASE = 128  # The shell's: exit code 128 + the signal.
BROKEN_PIPE_EXIT_CODE = 1
# The flags naming where an example writes (a folder, or one file); `run`
# checks them before `main`.
OUTPUT_DIR_FLAG = "output_dir"
OUTPUT_FILE_FLAG = "output"
# A second folder some examples also write (empty: none), checked as well.
MIRROR_DIR_FLAG = "mirror_dir"
# The logger of JAX's backend discovery, which reports each platform it could
# not start (TPU on every machine without one) at INFO level.
_BACKEND_LOGGER = "jax._src.xla_bridge"


def _program() -> str:
  return pathlib.Path(sys.argv[0]).stem or "open_spiel_ext"


def _exit_with_error(message: str) -> NoReturn:
  print(f"{_program()}: error: {message}", file=sys.stderr, flush=True)
  sys.exit(USAGE_ERROR_EXIT_CODE)


def _parse_flags(argv: Sequence[str]) -> list[str]:
  try:
    remaining = flags.FLAGS(list(argv))
  except flags.Error as error:
    _exit_with_error(f"{error} (--helpshort lists the flags)")
  for name in flags.FLAGS:  # NaN passes every bound (nan < x is False).
    value = flags.FLAGS[name].value
    if isinstance(value, float) and math.isnan(value):
      _exit_with_error(f"flag --{name}={value}: not a number")
  return remaining


# The endings of the files examples write; a folder of such a name in an
# output folder stands where a result would go (its write would fail after
# the whole run).
_OUTPUT_FILE_SUFFIXES = (".json", ".jsonl", ".png", ".npz", ".pkl", ".txt",
                         ".md", ".csv")


def check_output_dir(path: str) -> None:
  """Makes the folder `path` (and its parents) and checks that files can be
  written in it, before any work is done.

  Raises:
    ValueError: `path` is a file, cannot be made or written to, or holds a
      folder named as a result file (`policy.json/`).
  """
  if os.path.exists(path) and not os.path.isdir(path):
    raise ValueError(f"{path} is a file, not a folder")
  if os.path.isdir(path):
    for entry in sorted(os.listdir(path)):
      if (entry.endswith(_OUTPUT_FILE_SUFFIXES) and
          os.path.isdir(os.path.join(path, entry))):
        raise ValueError(
            f"{os.path.join(path, entry)} is a folder where a result file "
            "may be written; remove it or give another folder")
  try:
    os.makedirs(path, exist_ok=True)
    with tempfile.TemporaryFile(dir=path):
      pass
  except OSError as error:
    raise ValueError(f"cannot write in {path}: {error.strerror or error}"
                     ) from None


def check_output_file(path: str) -> None:
  """Makes the folder of the file `path` and checks that it can be written
  there, before any work is done.

  Raises:
    ValueError: `path` is a folder, or its folder cannot be made or
      written to.
  """
  if os.path.isdir(path):
    raise ValueError(f"{path} is a folder, not a file")
  check_output_dir(os.path.dirname(os.path.abspath(path)))


def _flag_text(name: str) -> Optional[str]:
  """The string value of the example's flag `name` (None: no such flag, or
  not set)."""
  if name not in flags.FLAGS or not isinstance(flags.FLAGS[name].value, str):
    return None
  return flags.FLAGS[name].value


def _check_outputs() -> None:
  """Checks the example's --output_dir or --output flag, if it has one (an
  empty one is refused: it would write into the working directory, or
  nowhere; unset, None, it is the program's to read as it says), and its
  --mirror_dir if one is given."""
  for name, check in ((OUTPUT_DIR_FLAG, check_output_dir),
                      (OUTPUT_FILE_FLAG, check_output_file)):
    value = _flag_text(name)
    if value is not None and not value.strip():
      raise app.UsageError(
          f"--{name}={value!r} is empty: give a "
          f"{'folder (. for this one)' if name == OUTPUT_DIR_FLAG else 'file'}")
    if value is not None:
      with user_input(name):
        check(value)
  mirror = _flag_text(MIRROR_DIR_FLAG)
  if mirror:
    with user_input(MIRROR_DIR_FLAG):
      check_output_dir(mirror)


def _guarded(main: Callable[[list[str]], Any], argv: list[str]) -> Any:
  try:
    _check_outputs()
    return main(argv)
  except (app.UsageError, checkpoints.CheckpointError) as error:
    _exit_with_error(str(error))
  except KeyboardInterrupt as error:
    signum = checkpoints.stop_signal(error)
    print(f"{_program()}: interrupted ({signum.name})", file=sys.stderr,
          flush=True)
    sys.exit(SIGNAL_EXIT_CODE_BASE + signum)
  except BrokenPipeError:  # The reader left (`| head`): stop quietly.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(BROKEN_PIPE_EXIT_CODE)


def run(main: Callable[[list[str]], Any]) -> None:
  """Runs an example's `main` as `absl.app.run` does, with one-line errors,
  and JAX's persistent compilation cache (`compilation_cache`); an
  --output_dir flag, where the example has one, is checked first
  (`check_output_dir`); SIGTERM and SIGHUP stop it as Ctrl-C does."""
  logging.getLogger(_BACKEND_LOGGER).setLevel(logging.WARNING)
  compilation_cache.enable()
  for signum in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(signum, checkpoints.raise_interrupted)
  app.run(lambda argv: _guarded(main, argv), flags_parser=_parse_flags)


@contextlib.contextmanager
def user_input(flag: Optional[str] = None) -> Iterator[None]:
  """Turns ValueError, SpielError or OSError in the block into a UsageError.

  Wrap only code whose failure means the user's input is bad (parsing a
  flag's value, checking a game against what an algorithm needs), so that
  a bug elsewhere still shows its traceback.

  Args:
    flag: the flag the input came from, named in the message.
  """
  try:
    yield
  except (ValueError, pyspiel.SpielError, OSError) as error:
    prefix = f"--{flag}: " if flag else ""
    raise app.UsageError(f"{prefix}{error}") from None


def parse_flag(flag: str, value: Any, parse: Callable[[Any], Any]) -> Any:
  """`parse(value)`, or a UsageError `--flag=value: what is wrong` where it
  raises ValueError or SpielError (e.g. `parse_flag("game", _GAME.value,
  open_spiel_ext.load_game)`)."""
  with user_input(f"{flag}={value}"):
    return parse(value)


def split_games(text: str) -> list[str]:
  """Game strings separated by the commas outside parentheses."""
  games, depth, start = [], 0, 0
  for index, char in enumerate(text):
    depth += {"(": 1, ")": -1}.get(char, 0)
    if char == "," and depth == 0:
      games.append(text[start:index])
      start = index + 1
  games.append(text[start:])
  return [game.strip() for game in games if game.strip()]


class _GameListParser(flags.ListParser):
  """absl's list parser, splitting with `split_games`."""

  def parse(self, argument: Any) -> list[str]:
    if isinstance(argument, list):
      return argument
    return split_games(argument)


def define_game_list(name: str, default: list[str], help_text: str) -> Any:
  """A list flag of game strings (see the module docstring)."""
  return flags.DEFINE(_GameListParser(), name, default, help_text,
                      serializer=flags.CsvListSerializer(","))


class _ChoiceListParser(flags.ListParser):
  """absl's list parser, refusing items outside `choices` by name."""

  def __init__(self, choices: Sequence[str]):
    super().__init__()
    self.choices = tuple(choices)

  def parse(self, argument: Any) -> list[str]:
    items = argument if isinstance(argument, list) else super().parse(
        argument)
    unknown = sorted(set(items) - set(self.choices))
    if unknown:
      raise ValueError(f"unknown {unknown}; the choices are "
                       f"{', '.join(self.choices)}")
    return items


def define_choice_list(name: str, choices: Sequence[str], default: list[str],
                       help_text: str,
                       flag_values: flags.FlagValues = flags.FLAGS) -> Any:
  """A comma-separated list flag whose items must be among `choices` (a
  bad item is a usage error naming it and the choices)."""
  return flags.DEFINE(_ChoiceListParser(choices), name, default,
                      f"{help_text} Of: {', '.join(choices)}.",
                      serializer=flags.CsvListSerializer(","),
                      flag_values=flag_values)


def define_config_flags(config: Any, helps: Mapping[str, str],
                        flag_values: flags.FlagValues = flags.FLAGS,
                        bounds: Optional[Mapping[str, tuple[Any, Any]]] = None
                       ) -> dict[str, Any]:
  """A flag for each field of the dataclass `config` that `helps` names,
  typed and defaulting as the field's value there, a numeric one refusing
  values outside its (lower, upper) in `bounds` (inclusive, as absl's
  `lower_bound` and `upper_bound`; None: unbounded); `given` reads back the
  ones a command line set, to change a recipe's config with."""
  defines = {bool: flags.DEFINE_bool, int: flags.DEFINE_integer,
             float: flags.DEFINE_float, str: flags.DEFINE_string}
  limits = {name: dict(zip(("lower_bound", "upper_bound"), bound))
            for name, bound in (bounds or {}).items()}
  return {name: defines[type(getattr(config, name))](
      name, getattr(config, name), help_text, flag_values=flag_values,
      **limits.get(name, {}))
          for name, help_text in helps.items()}


def given(holders: Mapping[str, Any]) -> dict[str, Any]:
  """The values of those of `holders` (flag holders by name) that the
  command line set."""
  return {name: holder.value for name, holder in holders.items()
          if holder.present}


def define_executor_flags(workers: int = 2) -> None:
  """Defines --executor, --workers and --ray_address for an example."""
  flags.DEFINE_enum("executor", "process", executors.EXECUTORS,
                    "Where parallel work runs: spawned processes on this "
                    "machine, or Ray (pip install '.[ray]').")
  flags.DEFINE_integer("workers", workers, "Tasks run at once.",
                       lower_bound=1)
  flags.DEFINE_string("ray_address", None,
                      "--executor=ray: the Ray cluster to join ('auto': the "
                      "one `ray start` began; default: a new local instance "
                      "of --workers CPUs).")


def executor_from_flags() -> executors.Executor:
  """The executor the flags of `define_executor_flags` name, or a UsageError
  (Ray not installed, --ray_address without --executor=ray)."""
  values = flags.FLAGS
  try:
    return executors.make_executor(values.executor, values.workers,
                                   values.ray_address)
  except (ValueError, ImportError) as error:
    raise app.UsageError(f"--executor={values.executor}: {error}") from None


def check_memory(needed_bytes: float, flag_names: Sequence[str],
                 on_device: bool = False,
                 flag_values: flags.FlagValues = flags.FLAGS) -> None:
  """Refuses a run that needs more memory than is free here, before its
  work: a UsageError naming the flags of `flag_names` that the command line
  gave (all of them if it gave none) with their values, e.g.
  `--num_envs=100000000: needs at least 37.2 GiB, more than the 21.0 GiB
  free here; lower it`.

  Args:
    needed_bytes: a lower bound of what the run allocates (what it cannot do
      without, e.g. its carry as `jax.eval_shape` sizes it), so that only a
      run that cannot work is refused and no flag needs to override it.
    flag_names: the flags that set the sizes it was estimated from.
    on_device: the memory is JAX's default device's (an accelerator's own,
      `memory.device_available_bytes`), not the machine's
      (`memory.available_bytes`).
    flag_values: where the flags are.
  """
  free = (memory.device_available_bytes() if on_device else
          memory.available_bytes())
  if needed_bytes <= free:
    return
  named = [name for name in flag_names
           if flag_values[name].present] or list(flag_names)
  raise app.UsageError(
      ", ".join(f"--{name}={flag_values[name].value}" for name in named) +
      f": needs at least {needed_bytes / 2**30:.1f} GiB, more than the "
      f"{free / 2**30:.1f} GiB free here; lower "
      f"{'it' if len(named) == 1 else 'them'}")


def check_task_memory(needed_bytes: float, flag_names: Sequence[str],
                      on_device: bool = False,
                      flag_values: flags.FlagValues = flags.FLAGS) -> None:
  """`check_memory` of what one task of the executor that
  `define_executor_flags` configures allocates, where its tasks run on this
  machine (not on a Ray cluster joined with --ray_address, whose machines
  may have more)."""
  if not flag_values.ray_address:
    check_memory(needed_bytes, flag_names, on_device, flag_values)
