"""The batched Hanabi engine against OpenSpiel's `hanabi`, move by move."""

import jax
import numpy as np
import pytest

from open_spiel_ext.games import engines
from open_spiel_ext.games.hanabi import engine as engine_lib
import pyspiel

SETTINGS = {
    "full": engine_lib.Rules(),
    "small": engine_lib.Rules.from_preset("small"),
    "six_cards": engine_lib.Rules.from_preset("six_cards"),
    "three_players": engine_lib.Rules(players=3),
}


def _choose(state: pyspiel.State, rules: engine_lib.Rules,
            rng: np.random.Generator) -> int:
  """A move that keeps games going: mostly a play of a card it peeks is
  playable, else any legal move but a losing play, now and then any legal
  move (so that games also end by lives lost, deck out and full score)."""
  legal = state.legal_actions()
  h = rules.hand_size
  good = _playable_slots(state, rules)
  plays = [a for a in legal if h <= a < 2 * h and good[a - h]]
  if plays and rng.random() < 0.8:
    return int(rng.choice(plays))
  safe = [a for a in legal if not h <= a < 2 * h or good[a - h]]
  if safe and rng.random() < 0.95:
    return int(rng.choice(safe))
  return int(rng.choice(legal))


def _playable_slots(state: pyspiel.State, rules: engine_lib.Rules
                   ) -> np.ndarray:
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


def play_pyspiel(rules: engine_lib.Rules, games: int, seed: int):
  """Games of pyspiel hanabi, some random, some careful: their decks (the dealt cards, then the
  rest of the deck in card order), actions and states before each move."""
  game = rules.game()
  rng = np.random.default_rng(seed)
  records = []
  for index in range(games):
    careful = index % 3 != 0  # Two games in three peek at their cards.
    state = game.new_initial_state()
    actions, states = [], []
    while not state.is_terminal():
      if state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        continue
      states.append(state.clone())
      action = (_choose(state, rules, rng) if careful else
                int(rng.choice(state.legal_actions())))
      actions.append(action)
      state.apply_action(action)
    states.append(state)
    dealt = engine_lib.decks_of(state)
    rest = list(rules.ordered_deck())
    for card in dealt:
      rest.remove(card)
    records.append((np.concatenate([dealt, rest]).astype(np.int32), actions,
                    states))
  return records


def _replay(rules: engine_lib.Rules, records) -> None:
  """Steps the engine through the recorded games in one batch, checking
  every move against pyspiel's states."""
  engine = engine_lib.HanabiEngine(rules)
  state = engine.deal(np.stack([deck for deck, _, _ in records]))
  longest = max(len(actions) for _, actions, _ in records)
  returns = np.zeros(len(records))
  for t in range(longest + 1):
    for g, (_, actions, states) in enumerate(records):
      if t > len(actions):
        continue
      expected = states[t]
      where = f"game {g}, move {t}"
      assert bool(state.terminated[g]) == expected.is_terminal(), where
      assert returns[g] == expected.returns()[0], where
      if expected.is_terminal():
        assert state.current_player[g] == -1, where
      else:
        assert state.current_player[g] == expected.current_player(), where
      np.testing.assert_array_equal(
          np.flatnonzero(state.legal_action_mask[g]),
          expected.legal_actions(), err_msg=where)
      for player in range(rules.players):
        np.testing.assert_array_equal(
            state.observation[g, player],
            expected.observation_tensor(player), err_msg=f"{where}, "
            f"observer {player}")
    if t == longest:
      break
    moves = np.array([actions[t] if t < len(actions) else 0
                      for _, actions, _ in records], np.int32)
    state = engine.step(state, moves)
    returns += np.asarray(state.rewards[:, 0])


def _endings(rules: engine_lib.Rules, records) -> set[str]:
  endings = set()
  for _, _, states in records:
    score = states[-1].returns()[0]
    endings.add("full score" if score == rules.max_score else
                "lives lost" if score == 0 else "deck out")
  return endings


@pytest.mark.parametrize("setting", SETTINGS)
def test_engine_agrees_with_pyspiel_move_by_move(setting):
  rules = SETTINGS[setting]
  records = play_pyspiel(rules, 45, seed=len(setting))
  _replay(rules, records)
  assert {"lives lost", "deck out"} <= _endings(rules, records)


@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS)
def test_engine_agrees_with_pyspiel_on_many_games(setting):
  rules = SETTINGS[setting]
  for seed in range(5):  # 500 games a setting, in batches of 100.
    _replay(rules, play_pyspiel(rules, 100, seed=100 + seed))


def test_shuffled_games_and_auto_reset():
  rules = SETTINGS["small"]
  engine = engine_lib.HanabiEngine(rules, auto_reset=True)
  state = engine.init(jax.random.split(jax.random.PRNGKey(0), 64))
  decks = np.sort(np.asarray(state.deck), axis=1)
  np.testing.assert_array_equal(decks, np.tile(rules.ordered_deck(), (64, 1)))
  assert len({tuple(d) for d in np.asarray(state.deck)}) == 64
  rng = np.random.default_rng(0)
  ended = 0
  for _ in range(60):
    mask = np.asarray(state.legal_action_mask)
    assert mask.any(axis=1).all()  # Auto-reset: every row shows a game.
    actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
    state = engine.checked_step(state, actions)
    finished = np.asarray(state.terminated)
    ended += finished.sum()
    # A finished game's row shows a fresh deal: nothing played or dealt.
    assert (np.asarray(state.dealt)[finished] == 2 * rules.hand_size).all()
    assert (np.asarray(state.fireworks)[finished] == 0).all()
  assert ended > 64


def test_finished_games_stay_and_illegal_moves_are_named():
  engine = engine_lib.HanabiEngine(SETTINGS["small"])
  state = engine.init(jax.random.split(jax.random.PRNGKey(1), 4))
  with pytest.raises(ValueError, match="action 0 is not legal in game 0"):
    engine.checked_step(state, np.zeros(4, np.int32))  # Tokens are full.
  for _ in range(200):
    state = engine.step(state, np.full(4, 2, np.int32))  # Play slot 0.
  assert np.asarray(state.terminated).all()
  again = engine.step(state, np.full(4, 2, np.int32))
  np.testing.assert_array_equal(again.fireworks, state.fireworks)
  assert not np.asarray(again.rewards).any()


@pytest.mark.parametrize("parameters, message", [
    ({"colors": 6}, "colors must be an integer from 1 to 5, got colors=6"),
    ({"players": 1}, "players must be an integer from 2 to 5"),
    ({"hand_size": 0}, "hand_size must be an integer at least 1"),
    ({"max_life_tokens": 0}, "max_life_tokens must be"),
    ({"colors": 1, "ranks": 1, "hand_size": 2}, "needs 4 cards"),
])
def test_bad_rules_are_refused_before_pyspiel_sees_them(parameters, message):
  with pytest.raises(ValueError, match=message):
    engine_lib.Rules(**parameters)


def test_rules_of_pyspiel_games_and_presets():
  game = pyspiel.load_game("hanabi", {"players": 2, "hand_size": 6})
  assert engine_lib.Rules.from_game(game) == SETTINGS["six_cards"]
  engine = engines.make(game)
  assert engine.observation_shape == tuple(game.observation_tensor_shape())
  assert engine.num_actions == game.num_distinct_actions()
  with pytest.raises(ValueError, match="observation_type='card_knowledge'"):
    engine_lib.Rules.from_game(pyspiel.load_game(
        "hanabi", {"observation_type": "minimal"}))
  with pytest.raises(ValueError, match="unknown Hanabi preset 'tiny'"):
    engine_lib.Rules.from_preset("tiny")
  seven = engine_lib.Rules.from_preset("seven_cards")
  assert seven.observation_size == seven.game().observation_tensor_shape()[0]
