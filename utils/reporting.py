"""Output shared by the algorithms, examples and benchmarks: JSON lines of
metrics, plots, and policies as JSON."""

import contextlib
import dataclasses
import json
import os
import resource
from typing import Any, Callable, Iterable, Iterator, Sequence

import jax
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top,wrong-import-position

from open_spiel.python import policy as policy_lib  # pylint: disable=g-import-not-at-top,wrong-import-position
import pyspiel  # pylint: disable=g-import-not-at-top,wrong-import-position


def as_record(entry: Any) -> dict[str, Any]:
  """A log entry (dataclass, named tuple or mapping) as a JSON-friendly
  dict; named tuples inside it become dicts too."""
  if dataclasses.is_dataclass(entry):
    record = dataclasses.asdict(entry)
  elif hasattr(entry, "_asdict"):
    record = entry._asdict()
  else:
    record = dict(entry)
  return {key: _plain(value) for key, value in record.items()}


def _plain(value: Any) -> Any:
  if isinstance(value, np.ndarray):
    return value.tolist()
  if hasattr(value, "_asdict"):
    return as_record(value)
  return value


def write_log(log: Iterable[Any], path: str) -> None:
  """Writes a whole log as JSON lines (a resumed run's included)."""
  writer = JsonLinesWriter(path)
  for entry in log:
    writer.write(as_record(entry))
  writer.close()


def keep_json_lines(path: str, keep: Callable[[dict[str, Any]], bool]) -> None:
  """Rewrites the JSON-lines file at `path` (if any) with only the records
  `keep` accepts: a run resumed from a checkpoint drops what it logged after
  that checkpoint, which it logs again."""
  if not os.path.exists(path):
    return
  kept = [record for record in read_json_lines(path) if keep(record)]
  partial = path + ".partial"
  with open(partial, "w", encoding="utf-8") as f:
    f.writelines(json.dumps(record) + "\n" for record in kept)
  os.replace(partial, path)


def read_json_lines(path: str) -> list[dict[str, Any]]:
  """The records of a JSON-lines file (none if it does not exist), but a
  last line cut short by an interrupted write."""
  if not os.path.exists(path):
    return []
  with open(path, encoding="utf-8") as f:
    lines = f.read().splitlines()
  records = []
  for number, line in enumerate(lines):
    try:
      records.append(json.loads(line))
    except json.JSONDecodeError:
      if number < len(lines) - 1:
        raise ValueError(f"{path}: line {number + 1} is not JSON") from None
  return records


def finished_records(output_dir: str, run: dict[str, Any],
                     file_name: str) -> list[dict[str, Any]]:
  """What an earlier run with the same settings wrote to
  output_dir/file_name, the JSON lines of its finished tasks, so that a
  resumed run skips them. A new output_dir records `run` (its run.json) and
  has none; ValueError if output_dir holds a run of other settings."""
  run_path = os.path.join(output_dir, "run.json")
  if not os.path.exists(run_path):
    os.makedirs(output_dir, exist_ok=True)
    with open(run_path, "w", encoding="utf-8") as f:
      json.dump(run, f, indent=1)
    return []
  with open(run_path, encoding="utf-8") as f:
    saved = json.load(f)
  changed = sorted(key for key in set(saved) | set(run)
                   if saved.get(key) != run.get(key))
  if changed:
    raise ValueError(
        f"{output_dir} holds the output of another run (" + ", ".join(
            f"{k}={saved.get(k)!r} there, {run.get(k)!r} here"
            for k in changed) + "); give another output directory or "
        "remove that one")
  return read_json_lines(os.path.join(output_dir, file_name))


def resumed_metrics(path: str, iteration: int,
                    counter: str = "iteration") -> "JsonLinesWriter":
  """The metrics file of a training run resumed at `iteration` (0: a new
  run), open for appending: the records logged after that checkpoint (their
  field `counter` past it) are dropped, since the run logs them again."""
  keep_json_lines(path, lambda record: record[counter] <= iteration)
  return JsonLinesWriter(path, append=iteration > 0)


class JsonLinesWriter:
  """Writes one JSON record per line, flushed as it goes.

  A new file unless `append`, which continues an existing one (a resumed run).
  """

  def __init__(self, path: str, append: bool = False):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    self.path = path
    self._file = open(path, "a" if append else "w", encoding="utf-8")

  def write(self, record: dict[str, Any]) -> None:
    self._file.write(json.dumps(record) + "\n")
    self._file.flush()

  def close(self) -> None:
    self._file.close()


def save_policy(tabular: policy_lib.TabularPolicy, path: str) -> None:
  """Writes {information state: {legal action: probability}} as JSON."""
  table = {}
  for key, index in tabular.state_lookup.items():
    legal = np.flatnonzero(tabular.legal_actions_mask[index])
    table[key] = {
        str(action): float(tabular.action_probability_array[index, action])
        for action in legal
    }
  with open(path, "w", encoding="utf-8") as f:
    json.dump(table, f, indent=0)


def load_policy(path: str, game: pyspiel.Game) -> policy_lib.TabularPolicy:
  """A policy written by `save_policy`, as a TabularPolicy of `game`.

  Raises:
    ValueError: the file names an information state or action that `game`
      does not have, leaves some of its information states out, or gives an
      information state no probability distribution (a negative, NaN or
      infinite probability, or a sum other than 1 within 1e-6).
  """
  with open(path, encoding="utf-8") as f:
    table = json.load(f)
  tabular = policy_lib.TabularPolicy(game)
  unknown = [key for key in table if key not in tabular.state_lookup]
  if unknown:
    raise ValueError(f"{path} is not a policy of {game}: it has information "
                     f"state {unknown[0]!r}, which the game does not have")
  missing = [key for key in tabular.state_lookup if key not in table]
  if missing:
    raise ValueError(f"{path} leaves out {len(missing)} information states "
                     f"of {game}, such as {missing[0]!r}")
  for key, probabilities in table.items():
    row = tabular.state_lookup[key]
    legal = tabular.legal_actions_mask[row]
    tabular.action_probability_array[row] = 0.0
    for action, probability in probabilities.items():
      if not legal[int(action)]:
        raise ValueError(f"{path}: action {action} is not legal at "
                         f"information state {key!r} of {game}")
      tabular.action_probability_array[row, int(action)] = probability
    _check_distribution(path, key, tabular.action_probability_array[row])
  return tabular


def _check_distribution(path: str, key: str,
                        probabilities: np.ndarray) -> None:
  """Raises ValueError, naming the file and the information state, unless
  `probabilities` are finite, non-negative and sum to 1 (within 1e-6)."""
  if not np.all(np.isfinite(probabilities)):
    problem = "a probability that is not a finite number"
  elif np.any(probabilities < 0):
    problem = f"a negative probability ({probabilities.min():g})"
  elif abs(probabilities.sum() - 1) > 1e-6:
    problem = f"probabilities summing to {probabilities.sum():g}, not 1"
  else:
    return
  raise ValueError(f"{path}: information state {key!r} has {problem}; a "
                   "policy gives each information state a distribution "
                   "over its legal actions")


def follow(entries: Iterable[Any], output_dir: str,
           describe: Callable[[Any], str],
           resumed: Sequence[Any] = ()) -> Iterator[Any]:
  """Prints and records (output_dir/metrics.jsonl) a run's log entries: a
  resumed run's saved ones first (`resumed`, printed and recorded only),
  then each of `entries` as it comes, yielded so that the caller can act on
  it (`list(follow(...))` just follows)."""
  metrics = JsonLinesWriter(os.path.join(output_dir, "metrics.jsonl"))
  try:
    for entry in resumed:
      metrics.write(as_record(entry))
      print(describe(entry))
    for entry in entries:
      metrics.write(as_record(entry))
      print(describe(entry), flush=True)
      yield entry
  finally:
    metrics.close()


def finish(log: Sequence[Any], output_dir: str, name: str, title: str,
           tabular: policy_lib.TabularPolicy) -> None:
  """Plots exploitability against wall time and iterations, saves the policy.

  Args:
    log: entries with `wall_time`, `iteration` and `exploitability`.
    output_dir: where `{name}.png` and policy.json go.
    name: the method's name.
    title: the plot's title.
    tabular: the final policy.
  """
  plot_curves(
      os.path.join(output_dir, f"{name}.png"),
      [("wall time (s)", "linear"), (f"{name} iteration", "linear")],
      [(name, ([e.wall_time for e in log], [e.iteration for e in log],
               [e.exploitability for e in log]))],
      title=title)
  save_policy(tabular, os.path.join(output_dir, "policy.json"))
  print(f"final exploitability {log[-1].exploitability:.5f} after "
        f"{log[-1].wall_time:.2f} s; wrote metrics.jsonl, {name}.png, "
        f"policy.json to {output_dir}")


# Exploitability is drawn on a log scale; values below this (0 included) are
# drawn at it.
PLOT_FLOOR = 1e-7


def save_figure(fig: Any, path: str, dpi: int = 110) -> None:
  """Lays out `fig`, writes it to `path` (making its folder) and closes it.
  """
  fig.tight_layout()
  os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
  fig.savefig(path, dpi=dpi)
  plt.close(fig)


def plot_curves(path: str, panels: Sequence[tuple[str, str]],
                curves: Iterable[tuple[str, Sequence[Sequence[float]]]],
                title: str, ylabel: str = "exploitability",
                yscale: str = "log") -> None:
  """One panel per x-axis; each curve gives one x series per panel.

  On the log y scale (the default), values below PLOT_FLOOR are drawn at it.

  Args:
    path: the PNG to write.
    panels: (x label, x scale "linear" or "log") per panel.
    curves: (name, [x values for panel 0, for panel 1, ..., y values]).
    title: the figure's title.
    ylabel: the y axis label.
    yscale: "log" or "linear".
  """
  fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5),
                           squeeze=False)
  for name, series in curves:
    *xs, ys = series
    if yscale == "log":
      ys = np.maximum(ys, PLOT_FLOOR)
    for axis, x in zip(axes[0], xs):
      axis.plot(x, ys, marker=".", label=name)
  for axis, (xlabel, xscale) in zip(axes[0], panels):
    axis.set_xlabel(xlabel)
    axis.set_xscale(xscale)
    axis.set_yscale(yscale)
    axis.set_ylabel(ylabel)
    axis.grid(True, which="both", alpha=0.3)
    axis.legend()
  fig.suptitle(title)
  save_figure(fig, path)


def peak_memory_mb() -> float:
  """This process's peak resident memory in MB (Linux reports kilobytes)."""
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# What JAX records once per XLA compilation (jax._src.dispatch's
# BACKEND_COMPILE_EVENT), with its duration.
_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


@dataclasses.dataclass
class Compilations:
  count: int = 0  # XLA compilations.
  seconds: float = 0.0  # Their time.


@contextlib.contextmanager
def counting_compilations() -> Iterator[Compilations]:
  """Counts the XLA compilations JAX makes inside the block (those loaded
  from a persistent compilation cache are not compilations)."""
  counted = Compilations()

  def listen(event: str, duration: float, **unused_kwargs) -> None:
    if event == _COMPILE_EVENT:
      counted.count += 1
      counted.seconds += duration

  jax.monitoring.register_event_duration_secs_listener(listen)
  try:
    yield counted
  finally:
    jax.monitoring.unregister_event_duration_listener(listen)


def markdown_table(header: Sequence[str],
                   rows: Iterable[Sequence[Any]]) -> str:
  """A markdown table of `rows` (cells as given, formatted by the caller)
  under `header`."""
  lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
  lines += ["| " + " | ".join(str(cell) for cell in row) + " |"
            for row in rows]
  return "\n".join(lines)


def standard_error(values: Any) -> Any:
  """The standard error of the mean over the first axis of `values`: a
  float for [runs] values, a [points] array for [runs, points] curves (0
  for one run)."""
  values = np.asarray(values, np.float64)
  if len(values) > 1:
    error = values.std(axis=0, ddof=1) / np.sqrt(len(values))
  else:
    error = np.zeros(values.shape[1:])
  return float(error) if values.ndim == 1 else error


def plot_runs(path: str, results: dict[str, Sequence[Sequence[dict]]],
              panels: Sequence[tuple[str, float, str]], ylabel: str,
              title: str, target: float | None = None) -> None:
  """Every run's curve, one colour per method, on a log-scale panel per
  x-axis.

  Args:
    path: the PNG to write.
    results: {method: [each run's log: records with the panels' keys and
      "exploitability"]}.
    panels: (record key, divided by, x label) per panel.
    ylabel: the y axis label.
    title: the figure's title.
    target: a value to draw as a dashed line.
  """
  fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5),
                           squeeze=False)
  for color, (method, logs) in enumerate(results.items()):
    for run, log in enumerate(logs):
      values = [entry["exploitability"] for entry in log]
      for axis, (key, scale, _) in zip(axes[0], panels):
        axis.plot([entry[key] / scale for entry in log], values,
                  color=f"C{color}", marker=".", markersize=3, alpha=0.8,
                  label=method if run == 0 else None)
  for axis, (_, _, xlabel) in zip(axes[0], panels):
    if target is not None:
      axis.axhline(target, color="gray", linestyle="--", linewidth=1)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.set_yscale("log")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=8)
  fig.suptitle(title)
  save_figure(fig, path)
