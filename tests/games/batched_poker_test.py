"""The batched poker engines and PyspielVectorEnv agree with pyspiel, move by
move, and keep the batched-environment contract of `games/batched.py`."""

import collections
import re
from typing import Any, Callable, Optional

import jax
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games import batched
from open_spiel_ext.games import batched_poker
import pyspiel

ENGINES = {
    "kuhn": batched_poker.kuhn_poker,
    "leduc": batched_poker.leduc_poker,
    "clone_leduc_2": lambda **kw: batched_poker.leduc_poker(clones=2, **kw),
    "clone_leduc_20": lambda **kw: batched_poker.leduc_poker(clones=20, **kw),
}
# For each game of a batch, its chance outcomes so far, in order.
ChanceOutcomes = Callable[[Any], list[list[int]]]


def engine_deals(state: batched_poker.PokerState) -> list[list[int]]:
  """A JAX engine deals every card at the start of a game."""
  return np.asarray(state.cards).tolist()


def pyspiel_env_deals(batch: batched.PyspielBatch) -> list[list[int]]:
  return [[item.action for item in state.full_history()
           if item.player == pyspiel.PlayerId.CHANCE]
          for state in batch.states]


def deal_up_to_player(state: pyspiel.State, outcomes: list[int]) -> None:
  """Applies the next of `outcomes` at each chance node until a player is to
  move or the game ends."""
  while state.is_chance_node():
    outcome = outcomes[sum(item.player == pyspiel.PlayerId.CHANCE
                           for item in state.full_history())]
    assert outcome in [action for action, p in state.chance_outcomes()
                       if p > 0], (outcome, str(state))
    state.apply_action(outcome)


def assert_fields_match(env, batch, replicas: list[pyspiel.State],
                        rewards: np.ndarray, terminated: np.ndarray) -> None:
  """Every contract field of `batch` is what the pyspiel `replicas` show
  (and `rewards`, `terminated` the step's expected ones); a failure names
  the first game that differs and its history."""
  num_games = len(replicas)
  player = np.array([batched.GAME_OVER if state.is_terminal() else
                     state.current_player() for state in replicas])
  observation = np.array([[state.information_state_tensor(p)
                           for p in range(env.num_players)]
                          for state in replicas], np.float32)
  mask = np.zeros((num_games, env.num_actions), bool)
  for index, state in enumerate(replicas):
    if not state.is_terminal():
      mask[index, state.legal_actions()] = True
  expected = {"current_player": player, "observation": observation,
              "legal_action_mask": mask, "rewards": rewards,
              "terminated": terminated}
  for field, want in expected.items():
    got = np.asarray(getattr(batch, field))
    assert got.shape == want.shape, (field, got.shape, want.shape)
    differs = np.flatnonzero((got != want).reshape(num_games, -1).any(axis=1))
    if differs.size:
      index = differs[0]
      pytest.fail(f"{env.game}: {field} of game {index} is {got[index]}, "
                  f"pyspiel says {want[index]}; history "
                  f"{replicas[index].history()}")


def random_actions(env, replicas: list[pyspiel.State],
                   rng: np.random.RandomState) -> np.ndarray:
  """A uniformly random legal action per unfinished game, any action for a
  finished one."""
  return np.array([rng.randint(env.num_actions) if state.is_terminal() else
                   rng.choice(state.legal_actions()) for state in replicas],
                  np.int32)


def play_in_lockstep(env, num_games: int, seed: int,
                     chance_outcomes: ChanceOutcomes,
                     steps: Optional[int] = None) -> int:
  """Plays random legal actions in `env` and in plain pyspiel states dealt
  the same chance outcomes, checking every field after every step, and each
  game's summed rewards against its returns once it ends.

  Without auto_reset, plays until every game is over and one step more
  (finished games must stay as they are); with auto_reset, plays `steps`
  steps, dealing a new pyspiel game wherever the environment starts one.

  Returns:
    How many games ended.
  """
  rng = np.random.RandomState(seed)
  batch = env.init(jax.random.split(jax.random.PRNGKey(seed), num_games))
  outcomes = chance_outcomes(batch)
  replicas = []
  for index in range(num_games):
    replicas.append(env.game.new_initial_state())
    deal_up_to_player(replicas[index], outcomes[index])
  zeros = np.zeros((num_games, env.num_players), np.float32)
  assert_fields_match(env, batch, replicas, zeros,
                      np.zeros(num_games, bool))
  totals = zeros.copy()
  ended, step, all_over = 0, 0, False
  while step != steps and not all_over:
    was_over = np.array([state.is_terminal() for state in replicas])
    all_over = was_over.all()
    actions = random_actions(env, replicas, rng)
    before = np.array([state.returns() for state in replicas], np.float32)
    batch = env.step(batch, actions)
    outcomes = chance_outcomes(batch)
    for index, state in enumerate(replicas):
      if not state.is_terminal():
        state.apply_action(int(actions[index]))
        deal_up_to_player(state, outcomes[index])
    rewards = np.array([state.returns() for state in replicas],
                       np.float32) - before
    terminated = np.array([state.is_terminal() for state in replicas])
    totals += np.asarray(batch.rewards)
    for index in np.flatnonzero(terminated & ~was_over):
      if totals[index].tolist() != replicas[index].returns():
        pytest.fail(f"{env.game}: game {index} paid {totals[index]}, "
                    f"returns are {replicas[index].returns()}")
      ended += 1
      if env.auto_reset:
        totals[index] = 0
        replicas[index] = env.game.new_initial_state()
        deal_up_to_player(replicas[index], outcomes[index])
    assert_fields_match(env, batch, replicas, rewards, terminated)
    step += 1
  return ended


@pytest.mark.parametrize("name", ENGINES)
def test_engine_plays_like_pyspiel_in_ten_thousand_games(name):
  assert play_in_lockstep(ENGINES[name](), 10_000, seed=2,
                          chance_outcomes=engine_deals) == 10_000


@pytest.mark.parametrize("name", ["kuhn", "clone_leduc_2"])
def test_auto_reset_deals_a_new_game_where_one_ends(name):
  ended = play_in_lockstep(ENGINES[name](auto_reset=True), 200, seed=3,
                           chance_outcomes=engine_deals, steps=30)
  assert ended > 200 * 30 // 8


def test_auto_reset_draws_new_deals():
  engine = batched_poker.leduc_poker(auto_reset=True)
  state = engine.init(jax.random.split(jax.random.PRNGKey(4), 500))
  first_deals = np.asarray(state.cards)
  call = np.full(500, batched_poker.CALL, np.int32)
  for _ in range(4):  # Call, call; call, call: every game ends.
    state = engine.step(state, call)
  assert np.asarray(state.terminated).all()
  assert (np.asarray(state.current_player) == 0).all()
  same = (np.asarray(state.cards) == first_deals).all(axis=1)
  assert same.mean() < 0.05  # 1/120 for independent deals.
  state = engine.step(state, call)
  assert not np.asarray(state.terminated).any()
  np.testing.assert_array_equal(state.rewards, 0)


@pytest.mark.parametrize("name, num_deals", [("kuhn", 6), ("leduc", 120)])
def test_deals_are_uniform_without_replacement(name, num_deals):
  per_deal = 200
  engine = ENGINES[name]()
  cards = np.asarray(engine.init(jax.random.split(
      jax.random.PRNGKey(5), num_deals * per_deal)).cards)
  counts = collections.Counter(map(tuple, cards))
  assert len(counts) == num_deals
  assert all(len(set(deal)) == len(deal) for deal in counts)
  # Each count is binomial: mean 200, standard deviation about 14.
  assert per_deal - 75 < min(counts.values()) <= max(
      counts.values()) < per_deal + 75


def test_init_takes_typed_and_raw_keys_alike():
  engine = batched_poker.leduc_poker()
  keys = jax.random.split(jax.random.key(6), 64)
  typed = engine.init(keys)
  raw = engine.init(jax.random.key_data(keys))
  np.testing.assert_array_equal(typed.cards, raw.cards)
  assert len({tuple(deal) for deal in np.asarray(raw.cards)}) > 30


def test_finished_games_stay_finished_without_auto_reset():
  engine = batched_poker.kuhn_poker()
  state = engine.init(jax.random.split(jax.random.PRNGKey(7), 3))
  state = engine.step(state, np.array([1, 1, 1], np.int32))  # Bet.
  state = engine.step(state, np.array([0, 0, 0], np.int32))  # Fold.
  assert np.asarray(state.terminated).all()
  np.testing.assert_array_equal(state.rewards, [[1, -1]] * 3)
  later = engine.checked_step(state, np.array([1, 0, 7], np.int32))
  for field in ("observation", "current_player", "legal_action_mask",
                "terminated", "cards"):
    np.testing.assert_array_equal(getattr(later, field),
                                  getattr(state, field))
  np.testing.assert_array_equal(later.rewards, 0)


def test_step_is_pure_and_runs_in_a_jitted_scan():
  engine = batched_poker.leduc_poker(clones=2, auto_reset=True)
  start = engine.init(jax.random.split(jax.random.PRNGKey(12), 16))
  before = np.asarray(start.observation).copy()
  calls = np.tile(np.array([1, 4], np.int32), (9, 8))  # Call, by clone.

  @jax.jit
  def scanned(state):
    return jax.lax.scan(lambda s, a: (engine.step(s, a), None), state,
                        calls)[0]

  state = scanned(start)
  looped = start
  for actions in calls:
    looped = engine.step(looped, actions)
  for got, want in zip(state, looped):
    np.testing.assert_array_equal(got, want)
  np.testing.assert_array_equal(start.observation, before)
  assert not (np.asarray(state.cards) == np.asarray(start.cards)).all()


@pytest.mark.parametrize("clones, action, legal", [
    (1, 0, "[1, 2]"),  # No fold before a bet.
    (2, 3, "[1, 2, 4, 5]"),  # Nor through the second clone.
    (2, 6, "[1, 2, 4, 5]"),  # Out of range.
])
def test_checked_step_refuses_an_illegal_action(clones, action, legal):
  engine = batched_poker.leduc_poker(clones=clones)
  state = engine.init(jax.random.split(jax.random.PRNGKey(8), 2))
  with pytest.raises(ValueError) as error:
    engine.checked_step(state, np.array([1, action], np.int32))
  message = str(error.value)
  assert "leduc" in message and f"action {action} " in message, message
  assert f"game 1; legal actions are {legal}" in message, message
  engine.checked_step(state, np.array([1, 2 + 3 * (clones - 1)], np.int32))


@pytest.mark.parametrize("clones", [0, -3, 1.5, True, "2", None])
def test_bad_clones_is_an_error_naming_it(clones):
  with pytest.raises(ValueError, match=re.escape(f"clones={clones!r}")):
    batched_poker.leduc_poker(clones=clones)


def test_engines_describe_their_games():
  kuhn = batched_poker.kuhn_poker()
  assert (kuhn.num_players, kuhn.num_actions, kuhn.observation_shape) == (
      2, 2, (11,))
  clone = batched_poker.leduc_poker(clones=20)
  assert str(clone.game) == "xdo_clone_leduc(clones=20)"
  assert (clone.num_actions, clone.observation_shape) == (60, (30,))
  assert str(batched_poker.leduc_poker().game) == "leduc_poker()"
  state = clone.init(jax.random.split(jax.random.PRNGKey(13), 5))
  dtypes = {field: (np.shape(getattr(state, field)),
                    np.asarray(getattr(state, field)).dtype)
            for field in batched.CONTRACT_FIELDS}
  assert dtypes == {"current_player": ((5,), np.int32),
                    "observation": ((5, 2, 30), np.float32),
                    "legal_action_mask": ((5, 60), bool),
                    "rewards": ((5, 2), np.float32),
                    "terminated": ((5,), bool)}


# PyspielVectorEnv, the fallback for any pyspiel game.


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker",
                                  "xdo_oshi_zumo"])
def test_pyspiel_vector_env_plays_like_plain_pyspiel(game):
  env = batched.PyspielVectorEnv(game)
  assert play_in_lockstep(env, 20, seed=9,
                          chance_outcomes=pyspiel_env_deals) == 20


def test_pyspiel_vector_env_auto_reset():
  env = batched.PyspielVectorEnv("leduc_poker", auto_reset=True)
  assert play_in_lockstep(env, 20, seed=10, chance_outcomes=pyspiel_env_deals,
                          steps=20) > 20


@pytest.mark.parametrize("game, complaint", [
    ("tic_tac_toe", "needs information-state tensors"),
    ("goofspiel", "needs a sequential game"),
])
def test_pyspiel_vector_env_refuses_a_game_it_cannot_play(game, complaint):
  with pytest.raises(ValueError, match=f"{complaint}.*{game}"):
    batched.PyspielVectorEnv(game)


def test_pyspiel_vector_env_refuses_an_illegal_action():
  env = batched.PyspielVectorEnv("leduc_poker")
  batch = env.init(jax.random.split(jax.random.PRNGKey(11), 2))
  with pytest.raises(ValueError, match=r"leduc_poker: action 0 is not legal "
                     r"in game 0; legal actions are \[1, 2\]"):
    env.step(batch, np.array([0, 1]))
