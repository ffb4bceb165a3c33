"""Win rates of Stratego opponents against each other, on the batched engine.

  python -m open_spiel_ext.examples.stratego_eval \
      --bots=random,heuristic,scout,probabilistic --games=1000
  python -m open_spiel_ext.examples.stratego_eval \
      --bots=p2sro,random,heuristic,scout,probabilistic --games=1000
  python -m open_spiel_ext.examples.stratego_eval --bots=run/population.npz \
      --against=random,heuristic,scout,probabilistic --games=1000

Plays every pair of --bots --games games (seats alternated, placements by
each bot), or with --against each of --bots against each of those alone,
prints the row bot's score rate against the column bot (a draw is
half a win) with Wilson's 95% interval and its mean against the scripted
bots among the columns, and writes stratego_eval.json and a
heat map PNG to --output_dir. Each match's results are appended to
matches.jsonl there as it ends, so an interrupted run goes on from the
matches played with the same command.
"""

import json
import os
from typing import Sequence

from absl import app
from absl import flags
import jax
import numpy as np

import open_spiel_ext
from open_spiel_ext.algorithms.stratego import arena
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.algorithms.stratego import bots
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_BOTS = flags.DEFINE_list(
    "bots", list(bots.BOTS), "The opponents to pit against each other: "
    "scripted bots (algorithms/stratego/bots.py), p2sro (the shipped P2SRO "
    "population) or population files.")
_AGAINST = flags.DEFINE_list(
    "against", [], "If given, each of --bots plays each of these alone (as "
    "--bots names them), not the other --bots: the rows of the table are "
    "--bots, its columns these.")
_GAMES = flags.DEFINE_integer("games", 1_000, "Games per pair.",
                              lower_bound=2)
_PLY_LIMIT = flags.DEFINE_integer("ply_limit", 1000, "Plies until a draw.",
                                  lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the matches.",
                             lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "stratego_eval_output",
                                  "Where the table and the PNG go.")


MATCHES_FILE = "matches.jsonl"
OUTCOMES = {"wins": 1, "draws": 0, "losses": -1}  # The row bot's.


def _counts(results: np.ndarray) -> dict[str, int]:
  return {name: int((results == result).sum())
          for name, result in OUTCOMES.items()}


def _results(match: dict[str, int]) -> np.ndarray:
  """A recorded match's +1/0/−1 results for its row bot."""
  return np.repeat(list(OUTCOMES.values()),
                   [match[name] for name in OUTCOMES])


def _mean_of_the_bots(table: dict, row: str, columns: list[str]) -> str:
  """The row's mean score rate against the scripted bots among the columns
  (populations left out, so rows compare over the same opponents)."""
  rates = [table[row, c].rate for c in columns
           if c != row and c in bots.BOTS]
  return f"{np.mean(rates):.3f}" if rates else "–"


def plot(rows: list[str], columns: list[str], table: dict, path: str) -> None:
  label = agents.labels(list(dict.fromkeys(rows + columns)))
  rates = np.full((len(rows), len(columns)), np.nan)
  for (row, column), rate in table.items():
    if row in rows and column in columns:
      rates[rows.index(row), columns.index(column)] = rate.rate
  fig, axis = reporting.plt.subplots(
      figsize=(1.6 * len(columns) + 2, 1.4 * len(rows) + 1))
  image = axis.imshow(rates, vmin=0, vmax=1, cmap="RdBu")
  for i in range(len(rows)):
    for j in range(len(columns)):
      if not np.isnan(rates[i, j]):
        axis.text(j, i, f"{rates[i, j]:.2f}", ha="center", va="center")
  axis.set_xticks(range(len(columns)), [label[c] for c in columns],
                  rotation=20)
  axis.set_yticks(range(len(rows)), [label[r] for r in rows])
  axis.set_xlabel("against")
  axis.set_title(f"Barrage Stratego: row's score rate, {_GAMES.value} games")
  fig.colorbar(image)
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  names = list(dict.fromkeys(_BOTS.value))
  columns = list(dict.fromkeys(_AGAINST.value)) or names
  with cli.user_input("bots"):
    players = {name: agents.opponent(name) for name in names}
  with cli.user_input("against"):
    players.update({name: agents.opponent(name) for name in columns
                    if name not in players})
  if len(players) < 2:
    raise app.UsageError(f"--bots and --against need two opponents at "
                         f"least, got --bots={names} "
                         f"--against={_AGAINST.value}")
  with cli.user_input("ply_limit"):
    game = open_spiel_ext.load_game(
        f"barrage_stratego(ply_limit={_PLY_LIMIT.value})")
  env = env_lib.StrategoEnv(game, relative_actions=True)
  run = {"bots": names, "games": _GAMES.value, "ply_limit": _PLY_LIMIT.value,
         "seed": _SEED.value}
  if _AGAINST.value:
    run["against"] = columns
  with cli.user_input("output_dir"):
    played = {(match["row"], match["column"]): _results(match)
              for match in reporting.finished_records(
                  _OUTPUT_DIR.value, run, MATCHES_FILE)}
  if played:
    print(f"resuming: {len(played)} matches already played", flush=True)
  matches_path = os.path.join(_OUTPUT_DIR.value, MATCHES_FILE)
  # Drops a line an interruption cut short.
  reporting.keep_json_lines(matches_path, lambda match: True)
  matches = reporting.JsonLinesWriter(matches_path, append=True)

  def on_match(row: str, column: str, results: np.ndarray) -> None:
    matches.write({"row": row, "column": column, **_counts(results)})
    rate = arena.win_rate(results)
    print(f"{row} vs {column}: {rate} over {rate.games} games", flush=True)

  table = arena.cross_table(env, players, names, columns, _GAMES.value,
                            jax.random.PRNGKey(_SEED.value), on_match, played)
  matches.close()
  label = agents.labels(list(dict.fromkeys(names + columns)))
  print("| row vs column | " + " | ".join(label[c] for c in columns)
        + " | mean of the bots |")
  print("|---|" + "---|" * (len(columns) + 1))
  for row in names:
    cells = [str(table[row, c]) if c != row else "–" for c in columns]
    print(f"| {label[row]} | " + " | ".join(cells)
          + f" | {_mean_of_the_bots(table, row, columns)} |")
  with open(os.path.join(_OUTPUT_DIR.value, "stratego_eval.json"), "w",
            encoding="utf-8") as f:
    json.dump({"games": _GAMES.value, "ply_limit": _PLY_LIMIT.value,
               "seed": _SEED.value,
               "table": [{"row": r, "column": c, **rate._asdict()}
                         for (r, c), rate in table.items()]}, f, indent=1)
  plot(names, columns, table,
       os.path.join(_OUTPUT_DIR.value, "stratego_eval.png"))
  print(f"wrote stratego_eval.json and stratego_eval.png to "
        f"{_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
