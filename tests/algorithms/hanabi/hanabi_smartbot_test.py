"""SmartBot's conventions (algorithms/hanabi/smartbot.py): hand-made
positions, every move of 200 games of the original C++ bot, the pyspiel bot
against the batched one, a mover that never reads its own cards, and a
belief model of its games."""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import smartbot
from open_spiel_ext.games.hanabi import engine as engine_lib

# Cards are color * 5 + rank, HLE's colors R, Y, G, W, B; rank 0 is a 1.
R, Y, G, W, B = range(5)
DISCARD, PLAY, COLOR_HINT, RANK_HINT = 0, 5, 10, 15  # 2 players, 5 cards.
_REFERENCE = os.path.join(os.path.dirname(__file__), "data",
                          "smartbot_reference_games.json")


def card(color: int, rank: int) -> int:
  return color * 5 + rank - 1


@pytest.fixture(name="bot", scope="module")
def bot_fixture():
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset("full"))
  return smartbot.SmartBlueprint(engine)


def _deal(bot, first_hand, second_hand, **fields):
  """One game dealt with these hands (oldest card first), the rest of the
  deck in card order, then `fields` set by hand; and its memory."""
  rest = list(bot.engine.rules.ordered_deck())
  for c in first_hand + second_hand:
    rest.remove(c)
  deck = jnp.asarray([first_hand + second_hand + rest], jnp.int32)
  state = bot.engine.deal(deck)
  if fields:
    state = bot.engine.observe(state._replace(**{
        k: jnp.asarray(v)[None] for k, v in fields.items()}))
  return state, blueprints.jitted(bot).start((), state)


def _move(bot, memory, state):
  return int(blueprints.jitted(bot).moves((), memory, state)[0])


def _step(bot, memory, state, action):
  state = bot.engine.step(state, jnp.asarray([action]))
  return state, blueprints.jitted(bot).remember((), memory, state)


def _identities(memory, player, slot):
  return set(np.flatnonzero(np.asarray(memory.grid[0, player, slot])))


def test_a_last_copy_on_the_chop_is_warned_and_read_as_kept(bot):
  # Player 1 would discard its oldest card, the only white 5; no card of
  # its hand is playable, so no hint could ask for a play instead.
  second = [card(W, 5), card(Y, 3), card(G, 3), card(B, 4), card(R, 2)]
  state, memory = _deal(bot, [card(c, 1) for c in range(5)], second,
                        information=7)
  assert _move(bot, memory, state) == RANK_HINT + 4  # "Your 5s."
  state, memory = _step(bot, memory, state, RANK_HINT + 4)
  # Read as a warning: the card is some 5 (all last copies), nothing more
  # (no play), and the chop moves on to the next card.
  assert _identities(memory, 1, 0) == {card(c, 5) for c in range(5)}
  cells = smartbot._cells(smartbot._rules_of(bot.engine.rules),
                          state.fireworks[0], state.discarded[0])
  assert int(smartbot._chop(memory.grid[0, 1], memory.present[0, 1],
                            cells)) == 1
  assert _move(bot, memory, state) != PLAY + 0


def test_a_hint_asks_to_play_the_newest_card_it_touches(bot):
  second = [card(R, 3), card(Y, 3), card(G, 3), card(W, 3), card(R, 1)]
  state, memory = _deal(bot, [card(c, 2) for c in range(5)], second)
  # Red tells the most (two cards) and points at a playable newest card.
  assert _move(bot, memory, state) == COLOR_HINT + R
  state, memory = _step(bot, memory, state, COLOR_HINT + R)
  assert _identities(memory, 1, 4) == {card(R, 1)}  # Red, and playable.
  assert _identities(memory, 1, 0) == {card(R, r) for r in range(1, 6)}
  assert _move(bot, memory, state) == PLAY + 4


def test_it_discards_a_known_useless_card_first_then_its_oldest(bot):
  # Red 1 is on the fireworks; player 1 holds nothing playable, no last
  # copy, so player 0 has no play, hint or warning to give.
  second = [card(Y, 3), card(G, 3), card(W, 3), card(B, 3), card(R, 3)]
  first = [card(Y, 4), card(G, 4), card(R, 1), card(W, 4), card(B, 4)]
  fireworks = np.array([1, 0, 0, 0, 0], np.int32)
  state, memory = _deal(bot, first, second, information=7,
                        fireworks=fireworks)
  assert _move(bot, memory, state) == DISCARD + 0  # Knows nothing: oldest.
  known = memory.grid.at[0, 0, 2].set(jnp.arange(25) == card(R, 1))
  assert _move(bot, memory._replace(grid=known), state) == DISCARD + 2


def _reference_games():
  with open(_REFERENCE, encoding="utf-8") as f:
    return json.load(f)["games"]


def _check_games(bot, games):
  moves, scores = blueprints.self_play_games(
      bot, np.array([g["deck"] for g in games]))
  for index, game in enumerate(games):
    assert moves[index] == game["moves"], f"game {index}"
    assert scores[index] == (0 if game["bombed_out"] else game["score"])


def test_every_move_of_an_original_bots_game(bot):
  _check_games(bot, _reference_games()[:1])


@pytest.mark.slow
def test_every_move_of_200_original_bots_games(bot):
  _check_games(bot, _reference_games())


def test_the_pyspiel_bot_plays_the_same_moves(bot):
  game = bot.engine.rules.game()
  players = [smartbot.SmartBot(game, p) for p in range(2)]
  reference = _reference_games()[1]  # The batched bot's moves too (above).
  state, cards, moves = game.new_initial_state(), iter(reference["deck"]), []
  while not state.is_terminal():
    if state.is_chance_node():
      state.apply_action(next(cards))
    else:
      if not moves:
        with pytest.raises(ValueError, match="player 1 asked to move for "
                           "player 0"):
          players[1].step(state)
      moves.append(players[state.current_player()].step(state))
      state.apply_action(moves[-1])
  assert moves == reference["moves"]


def test_the_mover_never_reads_its_own_cards(bot):
  rng = np.random.default_rng(3)
  jitted = blueprints.jitted(bot)
  deck = np.array([_reference_games()[2]["deck"]])
  state = bot.engine.deal(jnp.asarray(deck, jnp.int32))
  memory = jitted.start((), state)
  while not bool(state.terminated[0]):
    mover = state.current_player
    hands = np.asarray(state.hands).copy()
    own = hands[0, int(mover[0])]
    hands[0, int(mover[0])] = np.where(own >= 0, rng.integers(0, 25, 5), own)
    other = state._replace(hands=jnp.asarray(hands))
    move = jitted.act((), memory, state, mover)
    assert int(move[0]) == int(jitted.act((), memory, other, mover)[0])
    state = bot.engine.step(state, move)
    memory = jitted.remember((), memory, state)


def test_what_it_publicly_knows_never_rules_out_a_hand_held(bot):
  # Searches reject hands outside `known_identities`: along self-play on
  # the reference games' decks, every card held must stay inside it.
  jitted = blueprints.jitted(bot)
  decks = np.array([game["deck"] for game in _reference_games()[:8]])
  state = bot.engine.deal(jnp.asarray(decks, jnp.int32))
  memory = jitted.start((), state)
  narrowed = 0
  while not np.asarray(state.terminated).all():
    for game in np.flatnonzero(~np.asarray(state.terminated)):
      row = jax.tree.map(lambda x, g=game: x[g], memory)
      for player in range(2):
        known = bot.known_identities(row, player)
        hand = np.asarray(state.hands)[game, player]
        held = hand >= 0
        assert known[np.flatnonzero(held), hand[held]].all()
        narrowed += int(known[held].sum() < known.shape[1] * held.sum())
    state = bot.engine.step(state, jitted.moves((), memory, state))
    memory = jitted.remember((), memory, state)
  assert narrowed > 100  # It does know something.


def test_bad_inputs_are_named():
  three = engine_lib.HanabiEngine(engine_lib.Rules(players=3))
  with pytest.raises(ValueError, match="players=3"):
    smartbot.SmartBlueprint(three)
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset("full"))
  assert isinstance(shipped.blueprint_from_name(engine, "full", "smartbot"),
                    smartbot.SmartBlueprint)
  with pytest.raises(ValueError, match="'smartbot'"):
    shipped.blueprint_from_name(engine, "full", "smartbott")


@pytest.mark.slow
def test_a_belief_model_learns_its_games(tmp_path):
  tiny = engine_lib.Rules(colors=2, ranks=2, hand_size=2,
                          max_information_tokens=3, max_life_tokens=2)
  blueprint = smartbot.SmartBlueprint(engine_lib.HanabiEngine(tiny))
  config = belief_model.Config(
      network=belief_model.NetworkConfig((32,), 32, 16, value_hidden=(32,)),
      num_envs=16, replay_capacity=64, batch_size=8, learning_starts=16,
      learning_rate=3e-3)
  log = belief_model.train(blueprint, "smartbot", config, str(tmp_path), 90,
                           eval_every=45, eval_games=32)
  assert log[-1].eval_cross_entropy < np.log(tiny.num_cards)
  model = belief_model.load(str(tmp_path / "belief.npz"))
  model.check(blueprint)
  assert model.blueprint_name == "smartbot"
  with pytest.raises(ValueError):  # Not the rule bot's model.
    model.check(blueprints.RuleBlueprint(blueprint.engine))
