"""What a Barrage Stratego P2SRO run measures and ships as it goes
(`examples/stratego_p2sro.py`): the meta-Nash's networks as an opponent, its
score rates against the scripted bots, and the population file the other
Stratego tools load.
"""

import time
from typing import Any, Sequence

import jax
import numpy as np

from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.algorithms.stratego import arena
from open_spiel_ext.algorithms.stratego import bots
from open_spiel_ext.games.stratego import env as env_lib


def bot_record(pipeline: p2sro.Pipeline, env: env_lib.StrategoEnv,
               entry: p2sro.LogEntry, bot_names: Sequence[str],
               games: int) -> dict[str, Any]:
  """The meta-Nash's score rates against each bot of `bot_names`, `games`
  games each, with where the run stood (`entry`): a record of bots.jsonl."""
  started = time.perf_counter()
  weights = pipeline.config.solve(pipeline.population.payoffs)
  anchors = len(pipeline.config.anchors)
  mixture = pipeline.population.opponent(weights) if not anchors else (
      meta_nash_networks(pipeline, weights))
  record = {"population": entry.fixed, "round": entry.round,
            "hours": entry.wall_time / 3600, "episodes": entry.episodes,
            "meta_nash": weights.tolist()}
  if anchors:
    record["anchors_share"] = float(weights[:anchors].sum())
  for index, name in enumerate(bot_names):
    rate = arena.win_rate(arena.play(
        env, mixture, bots.bot(name), games,
        jax.random.PRNGKey(1_000 * entry.fixed + index)))
    record[name] = rate._asdict()
  record["seconds"] = time.perf_counter() - started
  return record


def meta_nash_networks(pipeline: p2sro.Pipeline, weights: np.ndarray) -> Any:
  """The networks' part of the meta-Nash `weights` (the bots anchoring the
  population left out), as an opponent."""
  population = pipeline.population
  part = p2sro.networks_part(weights, len(pipeline.config.anchors))
  stacked = jax.tree.map(lambda *x: np.stack(x), *population.members)
  return opponents.network(population.apply, stacked, part)


def save_population(pipeline: p2sro.Pipeline, learner_config: ppo.Config,
                    entry: p2sro.LogEntry, path: str) -> int:
  """Writes the networks' part of the meta-Nash as a population file
  (`agents.save_population`, what `stratego_eval` and the bots' opponents
  load), with where the run stood; returns the members it kept."""
  weights = p2sro.networks_part(
      pipeline.config.solve(pipeline.population.payoffs),
      len(pipeline.config.anchors))
  return agents.save_population(
      path, pipeline.population.members, weights, learner_config.network,
      learner_config.hidden_sizes, pipeline.game.num_distinct_actions(),
      {"game": str(pipeline.game), "episodes": entry.episodes,
       "hours": entry.wall_time / 3600, "population": entry.fixed,
       **({"anchors": list(pipeline.config.anchors)}
          if pipeline.config.anchors else {})},
      learner_config.shared_trunk)
