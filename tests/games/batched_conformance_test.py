"""Every batched engine keeps the contract of `games/batched.py`.

One check per clause of the contract, each parametrised over every engine
(`CASES`): the members and the state's shapes and dtypes, determinism under
a key, `checked_step` naming an illegal action, finished games staying
finished, auto-reset, and agreement with the engine's pyspiel game, move by
move over random games (legal masks, observations, players, rewards, ends).
What is particular to one engine is tested beside it
(`batched_poker_test.py`, `loss_game_test.py`, `stratego/stratego_env_test.py`,
`hanabi/hanabi_engine_test.py`); `PyspielVectorEnv`'s own refusals are at the
end of this file.
"""

import dataclasses
import functools
from typing import Any, Callable, Optional

import jax
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games import batched
from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import batched_poker
from open_spiel_ext.games.hanabi import engine as hanabi
from open_spiel_ext.games.stratego import env as stratego_env
from open_spiel_ext.games.stratego import rules as stratego_rules
import pyspiel

# For each game of a batch, its chance outcomes so far, in order.
ChanceOutcomes = Callable[[Any], list[list[int]]]
# A pyspiel action for game `index` of a batch, given its state and an rng.
Policy = Callable[[pyspiel.State, int, np.random.RandomState], int]


def uniform_policy(state: pyspiel.State, index: int,
                   rng: np.random.RandomState) -> int:
  del index  # Every game plays alike.
  return int(rng.choice(state.legal_actions()))


def information_state_tensor(state: pyspiel.State,
                             player: int) -> list[float]:
  return state.information_state_tensor(player)


def observation_tensor(state: pyspiel.State, player: int) -> list[float]:
  return state.observation_tensor(player)


@dataclasses.dataclass(frozen=True)
class Case:
  """One engine, and how to replay its games in its pyspiel game.

  Attributes:
    make: `make(auto_reset)`, the engine.
    chance_outcomes: each game's chance outcomes so far, read from a state
      (None for games without chance).
    num_games: games played against pyspiel at once.
    tensor: the pyspiel tensor that is each player's `observation`.
    atol: how far float fields may be from pyspiel's (float32 engines
      against float64 games).
    policy: the pyspiel moves played.
    relative_actions: whether player 1's actions and mask are turned 180°
      (Stratego's `relative_actions`).
    auto_reset_games: games played with auto-reset (0: not tested here).
    ending: names how a finished game ended; every one of `endings` must
      come up in the random games.
    many_games: games played in batches of 100 by the slow check.
  """
  make: Callable[[bool], batched.BatchedEnv]
  chance_outcomes: Optional[ChanceOutcomes]
  num_games: int
  tensor: Callable[[pyspiel.State, int], list[float]] = (
      information_state_tensor)
  atol: float = 0.0
  policy: Policy = uniform_policy
  relative_actions: bool = False
  auto_reset_games: int = 0
  ending: Optional[Callable[[pyspiel.State], str]] = None
  endings: frozenset[str] = frozenset()
  many_games: int = 0


def poker_deals(state: batched_poker.PokerState) -> list[list[int]]:
  """A JAX poker engine deals every card at the start of a game."""
  return np.asarray(state.cards).tolist()


def pyspiel_deals(batch: batched.PyspielBatch) -> list[list[int]]:
  return [[item.action for item in state.full_history()
           if item.player == pyspiel.PlayerId.CHANCE]
          for state in batch.states]


def hanabi_decks(state: hanabi.HanabiState) -> list[list[int]]:
  """HLE deals the deck in order, a card per chance node."""
  return np.asarray(state.deck).tolist()


def stratego_setups(army: stratego_rules.Rules) -> ChanceOutcomes:
  """The placements that put a random setup's pieces on their squares
  (pieces of one type on ascending squares, as the game places them)."""
  types = np.array(army.placement_types)

  def placements(state: stratego_env.StrategoEnvState) -> list[list[int]]:
    games = []
    for position in np.asarray(state.boards.position):
      actions = []
      for player in range(2):
        squares = position[player * army.army_size:(player + 1) *
                           army.army_size].copy()
        for piece_type in np.unique(types):
          squares[types == piece_type] = np.sort(squares[types == piece_type])
        actions += [army.placement_action(int(piece_type), int(square))
                    for piece_type, square in zip(types, squares)]
      games.append(actions)
    return games

  return placements


def hanabi_playable_slots(state: pyspiel.State,
                          rules: hanabi.Rules) -> np.ndarray:
  """[H] whether the mover's card in each slot is playable, read from the
  other players' observations (the mover's cards, the fireworks)."""
  player, p, h, b = (state.current_player(), rules.players, rules.hand_size,
                     rules.num_cards)
  seen = np.asarray(state.observation_tensor((player + 1) % p))
  cards = seen[(p - 2) * h * b:(p - 1) * h * b].reshape(h, b)
  start = rules.private_size + p + rules.deck_size - p * h
  fireworks = seen[start:start + b].reshape(rules.colors, rules.ranks)
  height = np.where(fireworks.any(axis=1), fireworks.argmax(axis=1) + 1, 0)
  card = cards.argmax(axis=1)
  return cards.any(axis=1) & (height[card // rules.ranks] ==
                              card % rules.ranks)


def hanabi_policy(rules: hanabi.Rules) -> Policy:
  """Two games in three play a move that keeps the game going: mostly a
  play of a card it peeks is playable, else any legal move but a losing
  play, now and then any legal move; the third plays uniformly. So games
  end by lives lost, deck out and full score."""

  def policy(state, index, rng):
    legal = state.legal_actions()
    if index % 3 == 0:
      return int(rng.choice(legal))
    h = rules.hand_size
    good = hanabi_playable_slots(state, rules)
    plays = [a for a in legal if h <= a < 2 * h and good[a - h]]
    if plays and rng.random_sample() < 0.8:
      return int(rng.choice(plays))
    safe = [a for a in legal if not h <= a < 2 * h or good[a - h]]
    if safe and rng.random_sample() < 0.95:
      return int(rng.choice(safe))
    return int(rng.choice(legal))

  return policy


def hanabi_case(rules: hanabi.Rules, **settings) -> Case:
  def ending(state: pyspiel.State) -> str:
    score = state.returns()[0]
    return ("full score" if score == rules.max_score else
            "lives lost" if score == 0 else "deck out")

  return Case(lambda auto_reset: hanabi.HanabiEngine(rules, auto_reset),
              hanabi_decks, num_games=45, tensor=observation_tensor,
              policy=hanabi_policy(rules), ending=ending,
              endings=frozenset({"lives lost", "deck out"}), many_games=500,
              **settings)


def stratego_case(game_string: str, chance: bool = False,
                  **settings) -> Case:
  game = pyspiel.load_game(game_string)
  return Case(
      lambda auto_reset: stratego_env.StrategoEnv(
          game, auto_reset, relative_actions=settings.get(
              "relative_actions", False)),
      stratego_setups(game.rules) if chance else None, num_games=6,
      tensor=observation_tensor, atol=1e-6, **settings)


def loss_game_case(game_string: str) -> Case:
  return Case(lambda auto_reset: batched_loss_game.TurnBasedLossGame(
      game_string, auto_reset), None, num_games=8, atol=1e-4,
              auto_reset_games=8)


_SETUP = stratego_rules.EXAMPLE_SETUPS["barrage"]
CASES = {
    "kuhn": Case(lambda auto_reset: batched_poker.kuhn_poker(auto_reset),
                 poker_deals, num_games=10_000, auto_reset_games=200),
    "leduc": Case(lambda auto_reset: batched_poker.leduc_poker(
        auto_reset=auto_reset), poker_deals, num_games=10_000),
    "clone_leduc_2": Case(lambda auto_reset: batched_poker.leduc_poker(
        2, auto_reset), poker_deals, num_games=10_000, auto_reset_games=200),
    "clone_leduc_20": Case(lambda auto_reset: batched_poker.leduc_poker(
        20, auto_reset), poker_deals, num_games=10_000),
    "pyspiel_kuhn": Case(lambda auto_reset: batched.PyspielVectorEnv(
        "kuhn_poker", auto_reset), pyspiel_deals, num_games=20),
    "pyspiel_leduc": Case(lambda auto_reset: batched.PyspielVectorEnv(
        "leduc_poker", auto_reset), pyspiel_deals, num_games=20,
                          auto_reset_games=20),
    "pyspiel_oshi_zumo": Case(lambda auto_reset: batched.PyspielVectorEnv(
        "xdo_oshi_zumo", auto_reset), pyspiel_deals, num_games=20),
    "loss_game": loss_game_case("loss_game(bins=10,moves=10)"),
    "loss_game_16_dims": loss_game_case(
        "loss_game(dims=16,bins=2,moves=3,max_move=0.4)"),
    "stratego_placement": stratego_case("barrage_stratego(ply_limit=40)"),
    "stratego_placement_relative": stratego_case(
        "barrage_stratego(ply_limit=40)", relative_actions=True),
    "stratego_random": stratego_case(
        "barrage_stratego(setup=random,ply_limit=40)", chance=True,
        auto_reset_games=16),
    "stratego_fixed": stratego_case(
        f"barrage_stratego(setup=fixed,ply_limit=40,setup0={_SETUP},"
        f"setup1={stratego_rules.mirrored_setup(_SETUP)})"),
    "hanabi_full": hanabi_case(hanabi.Rules()),
    "hanabi_small": hanabi_case(hanabi.Rules.from_preset("small"),
                                auto_reset_games=64),
    "hanabi_six_cards": hanabi_case(hanabi.Rules.from_preset("six_cards")),
    "hanabi_three_players": hanabi_case(hanabi.Rules(players=3)),
}


@functools.lru_cache(maxsize=None)
def engine_of(name: str, auto_reset: bool = False) -> batched.BatchedEnv:
  """One engine per case and setting, so that its jitted functions compile
  once for every check."""
  return CASES[name].make(auto_reset)


def keys_for(num_games: int, seed: int) -> jax.Array:
  return jax.random.split(jax.random.PRNGKey(seed), num_games)


def chance_outcomes(case: Case, state: Any) -> list[list[int]]:
  if case.chance_outcomes is None:
    return [[] for _ in range(len(np.asarray(state.terminated)))]
  return case.chance_outcomes(state)


def has_chance(engine: batched.BatchedEnv) -> bool:
  return (engine.game.get_type().chance_mode !=
          pyspiel.GameType.ChanceMode.DETERMINISTIC)


def action_tables(case: Case, engine: batched.BatchedEnv) -> np.ndarray:
  """[players, actions]: the engine's action for each player's pyspiel
  action."""
  identity = np.arange(engine.num_actions)
  if not case.relative_actions:
    return np.tile(identity, (engine.num_players, 1))
  return np.stack([identity, engine.game.rules.rotated_actions()])


# The pyspiel side.


def deal_up_to_player(state: pyspiel.State, outcomes: list[int]) -> None:
  """Applies the next of `outcomes` at each chance node until a player is to
  move or the game ends."""
  while state.is_chance_node():
    outcome = outcomes[sum(item.player == pyspiel.PlayerId.CHANCE
                           for item in state.full_history())]
    assert outcome in [action for action, p in state.chance_outcomes()
                       if p > 0], (outcome, str(state))
    state.apply_action(outcome)


def fresh_replica(engine: batched.BatchedEnv,
                  outcomes: list[int]) -> pyspiel.State:
  state = engine.game.new_initial_state()
  deal_up_to_player(state, outcomes)
  return state


def assert_fields_match(case: Case, engine: batched.BatchedEnv, batch: Any,
                        replicas: list[pyspiel.State], rewards: np.ndarray,
                        terminated: np.ndarray) -> None:
  """Every contract field of `batch` is what the pyspiel `replicas` show
  (and `rewards`, `terminated` the step's expected ones); a failure names
  the first game that differs and its history."""
  batched.check_state(engine, batch)
  num_games = len(replicas)
  tables = action_tables(case, engine)
  player = np.array([batched.GAME_OVER if state.is_terminal() else
                     state.current_player() for state in replicas])
  observation = np.array([[case.tensor(state, p)
                           for p in range(engine.num_players)]
                          for state in replicas], np.float32).reshape(
                              (num_games, engine.num_players) +
                              tuple(engine.observation_shape))
  mask = np.zeros((num_games, engine.num_actions), bool)
  for index, state in enumerate(replicas):
    if not state.is_terminal():
      mask[index, tables[player[index], state.legal_actions()]] = True
  expected = {"current_player": player, "observation": observation,
              "legal_action_mask": mask, "rewards": rewards,
              "terminated": terminated}
  for field, want in expected.items():
    got = np.asarray(getattr(batch, field))
    if got.dtype == np.float32:
      differs = np.abs(got - want) > case.atol
    else:
      differs = got != want
    games = np.flatnonzero(differs.reshape(num_games, -1).any(axis=1))
    if games.size:
      index = games[0]
      pytest.fail(f"{engine.game}: {field} of game {index} is {got[index]}, "
                  f"pyspiel says {want[index]}; history "
                  f"{replicas[index].history()}")


def play_in_lockstep(case: Case, engine: batched.BatchedEnv, num_games: int,
                     seed: int,
                     steps: Optional[int] = None) -> list[pyspiel.State]:
  """Plays `case.policy` in `engine` (through `checked_step`) and in plain
  pyspiel states dealt the same chance outcomes, checking every field after
  every step, and each game's summed rewards against its returns once it
  ends.

  Without auto-reset, plays until every game is over and one step more, in
  which finished games are given an action out of range (they must stay as
  they are); with auto-reset, plays `steps` steps, dealing a new pyspiel
  game wherever the engine starts one, and checks that not every restarted
  game is dealt its last game's chance outcomes again.

  Returns:
    The final states of the games that ended.
  """
  rng = np.random.RandomState(seed)
  tables = action_tables(case, engine)
  batch = engine.init(keys_for(num_games, seed))
  outcomes = chance_outcomes(case, batch)
  replicas = [fresh_replica(engine, deal) for deal in outcomes]
  zeros = np.zeros((num_games, engine.num_players), np.float32)
  assert_fields_match(case, engine, batch, replicas, zeros,
                      np.zeros(num_games, bool))
  totals = zeros.copy()
  ended, redealt, step, all_over = [], 0, 0, False
  while step != steps and not all_over:
    was_over = np.array([state.is_terminal() for state in replicas])
    all_over = was_over.all()
    before = np.array([state.returns() for state in replicas], np.float32)
    actions = np.full(num_games, engine.num_actions, np.int32)
    for index, state in enumerate(replicas):
      if not state.is_terminal():
        action = case.policy(state, index, rng)
        actions[index] = tables[state.current_player(), action]
        state.apply_action(action)
    dealt = outcomes
    batch = engine.checked_step(batch, actions)
    outcomes = chance_outcomes(case, batch)
    for index, state in enumerate(replicas):
      deal_up_to_player(state, outcomes[index])
    rewards = np.array([state.returns() for state in replicas],
                       np.float32) - before
    terminated = np.array([state.is_terminal() for state in replicas])
    totals += np.asarray(batch.rewards)
    for index in np.flatnonzero(terminated & ~was_over):
      if np.abs(totals[index] - replicas[index].returns()).max() > case.atol:
        pytest.fail(f"{engine.game}: game {index} paid {totals[index]}, "
                    f"returns are {replicas[index].returns()}")
      ended.append(replicas[index])
      if engine.auto_reset:
        totals[index] = 0
        redealt += outcomes[index] == dealt[index]
        replicas[index] = fresh_replica(engine, outcomes[index])
    assert_fields_match(case, engine, batch, replicas, rewards, terminated)
    step += 1
  if engine.auto_reset and has_chance(engine):
    assert redealt < len(ended), "every restarted game repeats its deal"
  return ended


# The checks, one per clause of the contract.


@pytest.mark.parametrize("name", CASES)
def test_engine_has_every_member_and_describes_its_game(name):
  engine = engine_of(name)
  batched.check_env(engine)
  assert engine.num_players == engine.game.num_players()
  assert engine.num_actions == engine.game.num_distinct_actions()
  assert not engine.auto_reset and engine_of(name, True).auto_reset


def test_check_env_names_what_is_missing():
  with pytest.raises(TypeError, match="lacks game, name, num_players"):
    batched.check_env(object())


@pytest.mark.parametrize("name", CASES)
def test_init_and_step_are_determined_by_the_keys(name):
  case, engine = CASES[name], engine_of(name)
  keys = keys_for(case.num_games, 1)
  first, again = engine.init(keys), engine.init(keys)
  other = engine.init(keys_for(case.num_games, 2))
  batched.check_state(engine, first)
  for field in batched.CONTRACT_FIELDS:
    np.testing.assert_array_equal(getattr(first, field),
                                  getattr(again, field), err_msg=field)
  assert chance_outcomes(case, first) == chance_outcomes(case, again)
  if has_chance(engine):
    assert chance_outcomes(case, first) != chance_outcomes(case, other)
    assert len({tuple(deal) for deal in chance_outcomes(case, first)}) > 1
  actions = np.array([np.flatnonzero(row)[0] for row in np.asarray(
      first.legal_action_mask)], np.int32)
  stepped, stepped_again = (engine.step(first, actions),
                            engine.step(again, actions))
  for field in batched.CONTRACT_FIELDS:
    np.testing.assert_array_equal(getattr(stepped, field),
                                  getattr(stepped_again, field), err_msg=field)


# One case per engine class, with chance where the class has any: typed keys
# take the same code path in every configuration of a class (and each costs
# a compilation).
ONE_PER_CLASS = ("kuhn", "pyspiel_leduc", "loss_game", "stratego_random",
                 "hanabi_small")


def test_one_per_class_covers_every_engine_class():
  assert ({type(engine_of(name)) for name in ONE_PER_CLASS} ==
          {type(engine_of(name)) for name in CASES})


@pytest.mark.parametrize("name", ONE_PER_CLASS)
def test_init_takes_typed_and_raw_keys_alike(name):
  case, engine = CASES[name], engine_of(name)
  keys = jax.random.split(jax.random.key(4), case.num_games)
  typed, raw = engine.init(keys), engine.init(jax.random.key_data(keys))
  for field in batched.CONTRACT_FIELDS:
    np.testing.assert_array_equal(getattr(typed, field), getattr(raw, field),
                                  err_msg=field)
  assert chance_outcomes(case, typed) == chance_outcomes(case, raw)


@pytest.mark.parametrize("name", CASES)
def test_checked_step_names_an_illegal_action(name):
  case, engine = CASES[name], engine_of(name)
  state = engine.init(keys_for(case.num_games, 3))
  mask = np.asarray(state.legal_action_mask)
  legal = np.array([np.flatnonzero(row)[0] for row in mask], np.int32)
  illegal_in_range = np.flatnonzero(~mask[1])
  for action in list(illegal_in_range[:1]) + [engine.num_actions]:
    actions = legal.copy()
    actions[1] = action
    with pytest.raises(ValueError) as error:
      engine.checked_step(state, actions)
    assert (f"{engine.name}: action {action} is not legal in game 1; legal "
            f"actions are {np.flatnonzero(mask[1]).tolist()}"
           ) in str(error.value)
  engine.checked_step(state, legal)


@pytest.mark.parametrize("name", CASES)
def test_engine_plays_like_pyspiel(name):
  case = CASES[name]
  ended = play_in_lockstep(case, engine_of(name), case.num_games, seed=2)
  assert len(ended) == case.num_games
  if case.ending:
    assert case.endings <= {case.ending(state) for state in ended}


@pytest.mark.parametrize(
    "name", [name for name, case in CASES.items() if case.auto_reset_games])
def test_auto_reset_deals_a_new_game_where_one_ends(name):
  case, engine = CASES[name], engine_of(name, auto_reset=True)
  length = engine.game.max_game_length()
  steps = max(30, length + 10)  # Every game ends at least once.
  ended = play_in_lockstep(case, engine, case.auto_reset_games, seed=3,
                           steps=steps)
  assert len(ended) >= case.auto_reset_games * (steps // length)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", [name for name, case in CASES.items() if case.many_games])
def test_engine_plays_like_pyspiel_on_many_games(name):
  case = CASES[name]
  for seed in range(case.many_games // 100):
    play_in_lockstep(case, engine_of(name), 100, seed=100 + seed)


# PyspielVectorEnv's own refusals.


@pytest.mark.parametrize("game, complaint", [
    ("tic_tac_toe", "needs information-state tensors"),
    ("goofspiel", "needs a sequential game"),
])
def test_pyspiel_vector_env_refuses_a_game_it_cannot_play(game, complaint):
  with pytest.raises(ValueError, match=f"{complaint}.*{game}"):
    batched.PyspielVectorEnv(game)


def test_pyspiel_vector_env_step_checks_its_actions_too():
  env = batched.PyspielVectorEnv("leduc_poker")
  batch = env.init(keys_for(2, 11))
  with pytest.raises(ValueError, match=r"leduc_poker: action 0 is not legal "
                     r"in game 0; legal actions are \[1, 2\]"):
    env.step(batch, np.array([0, 1]))
