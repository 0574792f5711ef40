"""Recorded game shots: the positions and moves of real frames, for the referee's equivalence tests.

`tests/data/game_shots.npz` holds, for each recorded shot, the game state before it, the
move played (own ball, placement, strike, call) and the noise key: enough to play it
again through `rules.game.prepare` and the kernel. The frames are of all four variants,
breaks included, played by `random` and `greedy` in turn at the `pro` noise level (a bot
pots, plays from hand, fouls and leaves frozen balls). Regenerate with

    python tests/helpers/game_shots.py [--tables 512 --moves 16]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data" / "game_shots.npz"


def load() -> tuple[Any, Any, Any]:
    """(states, moves, keys) of the recorded shots, each with a leading shot axis."""
    from piramida.rules import state as st
    from piramida.rules.game import Move

    data = np.load(DATA)
    shots = len(data["keys"])
    # `late_penalty` came after the recording; it is False there (no bot declares a late foul).
    states = st.GameState(
        **{
            name: jnp.asarray(data[f"state.{name}"] if f"state.{name}" in data else np.zeros(shots, bool))
            for name in st.GameState.__dataclass_fields__
        }
    )
    moves = Move(**{name: jnp.asarray(data[f"move.{name}"]) for name in Move.__dataclass_fields__})
    return states, moves, jnp.asarray(data["keys"])


def record(tables: int, moves: int, seed: int) -> dict[str, np.ndarray]:
    """Play `moves` moves on `tables` tables (a quarter per variant), keeping every shot."""
    from piramida.agents import make_agent
    from piramida.physics import noise
    from piramida.rules import state as st
    from piramida.rules.game import play, where_tables

    variants = (jnp.arange(tables) % 4).astype(jnp.int32)
    key = jax.random.PRNGKey(seed)
    games = st.new_games(
        variants, jax.random.split(key, tables), (jnp.arange(tables) // 4 % 2).astype(jnp.int32)
    )
    bots = (make_agent("random"), make_agent("greedy"))
    magnitude = noise.level("pro")
    kept: list[tuple[Any, Any, Any, Any]] = []
    for move in range(moves):
        key, use, fresh = jax.random.split(key, 3)
        keys = jax.random.split(use, tables)
        chosen = bots[move % 2].act(games, keys)
        shooting = np.asarray(
            (games.phase == st.BREAK) | (games.phase == st.NORMAL) | (games.phase == st.IN_HAND)
        )
        kept.append((games, chosen, keys, shooting))
        after, _ = play(games, chosen, keys, magnitude)
        restart = st.new_games(variants, jax.random.split(fresh, tables), jnp.zeros(tables, jnp.int32))
        games = where_tables(after.phase == st.OVER, restart, after)
    out: dict[str, np.ndarray] = {}
    for prefix, index in (("state", 0), ("move", 1)):
        for name in vars(kept[0][index]):
            out[f"{prefix}.{name}"] = np.concatenate(
                [np.asarray(getattr(k[index], name))[k[3]] for k in kept]
            )
    out["keys"] = np.concatenate([np.asarray(k[2])[k[3]] for k in kept])
    return out


def main() -> None:
    """Record the shots and write them (compressed) to `DATA`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=512)
    parser.add_argument("--moves", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = record(args.tables, args.moves, args.seed)
    np.savez_compressed(DATA, **out)
    print(f"{len(out['keys'])} shots -> {DATA} ({DATA.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
