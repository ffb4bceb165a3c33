"""A deterministic rule-based Hanabi bot with one convention, in JAX.

The blueprint that exact-belief search (SPARTA) improves when no network is
given. It decides from what its player sees: the other players' cards, the
fireworks, the discards, the tokens, every card's hint knowledge and the last
move, never its own cards, so that a searcher can ask it what the partner
would have done with any hand the searcher might hold. Its convention: a
hint asks the receiver to play the newest card it touched, and hints are
given only so that this card is playable (a "play hint"), or, when a hint
must be given to no purpose, so that it surely is not.

The bot's player, in this order:
1. plays the oldest card it knows to be playable (every identity its hints
   and the cards it sees leave possible is playable);
2. plays the newest card the last move hinted to it, if that card may be
   playable;
3. with a token, gives the next player a play hint (rank hints before color
   hints, in action order) unless that player already knows the card;
4. below the maximum of tokens, discards the oldest card it knows to be
   useless, else its oldest card without hints, else its oldest card;
5. at the maximum, gives a rank hint of a rank no firework waits for (a card
   it touches cannot be played), else the first legal hint.

`act(engine, state)` gives every game's action for its player to move;
`act_as(engine, state, player)` what `player` would do there.
"""

import functools

import jax
import jax.numpy as jnp

from open_spiel_ext.games.hanabi import engine as engine_lib


def _card_facts(rules: engine_lib.Rules, state: engine_lib.HanabiState):
  """[C, R] which cards are playable now and which never can be (played
  already, or above a rank whose copies are all discarded)."""
  c, r = rules.colors, rules.ranks
  ranks = jnp.arange(r)[None, :]
  fireworks = state.fireworks[:, None]
  playable = ranks == fireworks
  copies = jnp.asarray(rules.copies)[None, :]
  lost = (state.discarded.reshape(c, r) >= copies) & (ranks >= fireworks)
  blocked = (jnp.cumsum(lost, axis=1) - lost) > 0
  return playable, (ranks < fireworks) | blocked


def _possible(rules: engine_lib.Rules, state: engine_lib.HanabiState,
              player: jax.Array) -> jax.Array:
  """[H, C, R] the identities each of `player`'s cards may have, from its
  hints and the cards it can see (played, discarded, in other hands)."""
  c, r, p = rules.colors, rules.ranks, rules.players
  copies = jnp.tile(jnp.asarray(rules.copies), c)
  played = (jnp.arange(r)[None, :] < state.fireworks[:, None]).ravel()
  others = state.hands[(player + jnp.arange(1, p)) % p].ravel()
  seen = jax.nn.one_hot(others, c * r, dtype=jnp.int32).sum(axis=0)
  left = (copies - state.discarded - played - seen).reshape(c, r) > 0
  plausible = (state.color_plausible[player][:, :, None] &
               state.rank_plausible[player][:, None, :])
  return plausible & left[None]


def _all(possible: jax.Array, facts: jax.Array) -> jax.Array:
  """[H] cards whose every possible identity has the property."""
  return possible.any(axis=(1, 2)) & ~(possible & ~facts).any(axis=(1, 2))


def _choose_one(rules: engine_lib.Rules, state: engine_lib.HanabiState,
                player: jax.Array) -> jax.Array:
  h, c, r, p = rules.hand_size, rules.colors, rules.ranks, rules.players
  slots = jnp.arange(h)
  hand = state.hands[player]
  present = hand >= 0
  playable, useless = _card_facts(rules, state)
  possible = _possible(rules, state, player)
  knows_playable = present & _all(possible, playable)

  last = state.last
  hinted_me = ((last.kind >= engine_lib.REVEAL_COLOR) & (last.target == player)
               & last.revealed.any())
  newest = jnp.max(jnp.where(last.revealed, slots, -1))
  may_play = (possible[jnp.maximum(newest, 0)] & playable).any()
  follows_hint = hinted_me & may_play

  # Hints to the next player: its cards, and what each hint would touch.
  partner = (player + 1) % p
  cards = state.hands[partner]
  there = cards >= 0
  colors, ranks = cards // r, cards % r
  rank_touch = there[None] & (ranks[None] == jnp.arange(r)[:, None])
  color_touch = there[None] & (colors[None] == jnp.arange(c)[:, None])
  touches = jnp.concatenate([rank_touch, color_touch])  # [R + C, H]
  newest_touched = jnp.max(jnp.where(touches, slots, -1), axis=1)
  target_card = cards[jnp.maximum(newest_touched, 0)]
  card_playable = playable.ravel()[jnp.maximum(target_card, 0)]
  partner_knows = (state.color_hint[partner] >= 0) & (
      state.rank_hint[partner] >= 0)
  useful = (touches.any(axis=1) & card_playable &
            ~partner_knows[jnp.maximum(newest_touched, 0)])
  waits_for = (state.fireworks[:, None] == jnp.arange(r)[None]).any(axis=0)
  harmless = rank_touch.any(axis=1) & ~waits_for
  # Hint actions to the next player (offset 1): colors, then ranks.
  rank_actions = 2 * h + (p - 1) * c + jnp.arange(r)
  color_actions = 2 * h + jnp.arange(c)
  hint_actions = jnp.concatenate([rank_actions, color_actions])

  known_useless = present & _all(possible, useless)
  unhinted = present & (state.color_hint[player] < 0) & (
      state.rank_hint[player] < 0)
  discard_slot = jnp.where(known_useless.any(), jnp.argmax(known_useless),
                           jnp.where(unhinted.any(), jnp.argmax(unhinted), 0))
  legal = state.legal_action_mask
  tokens = state.information
  first_legal_hint = 2 * h + jnp.argmax(legal[2 * h:])
  return jnp.select(
      [knows_playable.any(), follows_hint, (tokens > 0) & useful.any(),
       tokens < rules.max_information_tokens, harmless.any()],
      [h + jnp.argmax(knows_playable), h + newest,
       hint_actions[jnp.argmax(useful)], discard_slot,
       rank_actions[jnp.argmax(harmless)]],
      jnp.where(legal[2 * h:].any(), first_legal_hint, h))


@functools.partial(jax.jit, static_argnums=0)
def _act_as(rules: engine_lib.Rules, state: engine_lib.HanabiState,
            player: jax.Array) -> jax.Array:
  return jax.vmap(lambda s, q: _choose_one(rules, s, q))(state, player)


def act_as(engine: engine_lib.HanabiEngine, state: engine_lib.HanabiState,
           player: jax.Array) -> jax.Array:
  """[B] what `player` ([B]) would play in each game, were it to move."""
  return _act_as(engine.rules, state, jnp.asarray(player, jnp.int32))


def act(engine: engine_lib.HanabiEngine,
        state: engine_lib.HanabiState) -> jax.Array:
  """[B] the bot's action in each game for its player to move (0 in
  finished games)."""
  mover = jnp.maximum(state.current_player, 0)
  return jnp.where(state.terminated, 0, act_as(engine, state, mover))
