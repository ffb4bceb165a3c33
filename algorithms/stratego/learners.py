"""How Stratego's learners see the game: the options of its engine they train
with (`games/engines.py`'s `make`; P2SRO's `Pipeline(engine_options=...)`).

Learners act in their own frame (`relative_actions`: one network plays
either seat, as the bots, the arena and the populations of this package do)
and are paid material shaping whose sum over a game is 0
(`games/stratego/env.py`), so that their returns are still the games'
results. Both are choices of how to learn, not rules of the game, so they
live here rather than with the engine.
"""

import types

MATERIAL_SHAPING = 1.0
ENGINE_OPTIONS = types.MappingProxyType({
    "relative_actions": True, "material_shaping": MATERIAL_SHAPING})
