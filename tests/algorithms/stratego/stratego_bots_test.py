"""Scripted Stratego bots and matches on the batched engine."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.algorithms.stratego import arena
from open_spiel_ext.algorithms.stratego import bots
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.games.stratego import rules
import pyspiel

GAME = pyspiel.load_game("barrage_stratego(ply_limit=120)")
ENV = env_lib.StrategoEnv(GAME, relative_actions=True)
ARMY = rules.rules_for("barrage")


def _random_positions(batch: int, steps: int, seed: int):
  """States of random play (placements, then moves), every step's."""
  key = jax.random.PRNGKey(seed)
  state = ENV.init(jax.random.split(key, batch))
  for _ in range(steps):
    key, draw = jax.random.split(key)
    yield state
    state = ENV.step(state, jax.random.categorical(
        draw, jnp.where(state.legal_action_mask, 0.0, -jnp.inf)))


@pytest.mark.parametrize("name", [b for b in bots.BOTS if b != "random"])
def test_bots_play_only_legal_actions(name):
  bot = bots.bot(name)
  act = jax.jit(bot.act)
  rows = jnp.arange(64)
  checked = 0
  for step, state in enumerate(_random_positions(64, 60, 1)):
    live = ~np.asarray(state.terminated)
    observation = state.observation[rows, jnp.maximum(state.current_player,
                                                      0)]
    actions = np.asarray(act((), observation, state.legal_action_mask,
                             jnp.zeros(64, jnp.int32),
                             jax.random.PRNGKey(step)))
    legal = np.asarray(state.legal_action_mask)[np.arange(64), actions]
    assert legal[live].all()
    checked += live.sum()
  assert checked > 3000


def _setup_of(name: str, seed: int) -> dict[str, list[int]]:
  """Player 0's squares of each type after the bot placed its pieces."""
  state = GAME.new_initial_state()
  key = jax.random.PRNGKey(seed)
  while state.placing_player() == 0:
    key, draw = jax.random.split(key)
    state.apply_action(bots.act_on_state(bots.bot(name), state, draw))
  squares = {}
  for square in state.setups[0]:
    squares.setdefault(ARMY.types[state.kind[square]].name, []).append(square)
  return squares


@pytest.mark.parametrize("seed", [0, 1])
def test_the_flag_guarding_setups(seed):
  scout = _setup_of("scout", seed)
  assert scout["Flag"][0] < 10 and scout["Bomb"][0] == scout["Flag"][0] + 10
  careful = _setup_of("probabilistic", seed)
  assert careful["Flag"][0] in (0, 9)
  assert careful["Bomb"][0] in rules.NEIGHBOURS[careful["Flag"][0]]


def test_a_bot_acts_in_pyspiel_states_of_either_seat():
  state = pyspiel.load_game(
      f"barrage_stratego(setup=fixed,setup0={rules.EXAMPLE_SETUPS['barrage']},"
      f"setup1={rules.mirrored_setup(rules.EXAMPLE_SETUPS['barrage'])})"
  ).new_initial_state()
  key = jax.random.PRNGKey(0)
  for _ in range(30):
    if state.is_terminal():
      break
    key, draw = jax.random.split(key)
    action = bots.act_on_state(bots.bot("probabilistic"), state, draw)
    assert action in state.legal_actions()
    state.apply_action(action)


def test_matches_alternate_seats_and_score_wins():
  results = arena.play(ENV, bots.bot("probabilistic"), bots.bot("random"), 32,
                       jax.random.PRNGKey(3))
  assert set(results.tolist()) <= {-1.0, 0.0, 1.0}
  rate = arena.win_rate(results)
  assert rate.rate > 0.6 and rate.low < rate.rate < rate.high
  mirrored = arena.play(ENV, bots.bot("random"), bots.bot("random"), 32,
                        jax.random.PRNGKey(4))
  assert abs(mirrored.mean()) < 0.5


def test_a_cross_table_plays_each_row_against_each_column_once():
  players = {name: bots.bot("random") for name in "abc"}
  key = jax.random.PRNGKey(5)
  played = []
  crossed = arena.cross_table(ENV, players, ["a", "b"], ["b", "c", "a"], 4,
                              key, lambda r, c, _: played.append((r, c)))
  # No one plays itself, and ("b", "a") is ("a", "b") played once.
  assert played == [("a", "b"), ("a", "c"), ("b", "c")]
  # Those are every pair, in round_robin's order: the same matches.
  assert crossed == arena.round_robin(ENV, players, 4, key)
  with pytest.raises(ValueError, match=r"no player named \['d'\]"):
    arena.cross_table(ENV, players, ["a"], ["d"], 4, key)


def test_tables_label_population_files_by_their_names():
  assert agents.labels(["runs/a/plain.npz", "scout", "b/anchored.npz"]) == {
      "runs/a/plain.npz": "plain", "scout": "scout",
      "b/anchored.npz": "anchored"}
  # Names that would read the same stay whole.
  same = ["a/population.npz", "b/population.npz"]
  assert agents.labels(same) == {name: name for name in same}


def test_wilson_intervals():
  every = arena.win_rate(np.ones(100))
  assert every.rate == 1.0 and every.high == pytest.approx(1.0)
  assert every.low == pytest.approx(0.963, abs=1e-3)
  half = arena.win_rate(np.array([1.0, -1.0] * 50))
  assert half.rate == 0.5
  assert half.low == pytest.approx(0.404, abs=1e-3)
  # 885 wins and 11 draws in 1,000 games score 0.8905 whether the results
  # come from play (float32) or from a match's counts (integers).
  results = np.repeat([1, 0, -1], [885, 11, 104])
  assert arena.win_rate(results.astype(np.float32)) == arena.win_rate(results)


def test_bad_bots_and_environments_are_refused():
  with pytest.raises(ValueError, match="unknown Stratego bot 'smart'"):
    bots.bot("smart")
  with pytest.raises(ValueError, match="relative_actions=True"):
    arena.play(env_lib.StrategoEnv(GAME), bots.bot("random"),
               bots.bot("random"), 4, jax.random.PRNGKey(0))
