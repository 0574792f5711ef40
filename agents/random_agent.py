"""The random agent: uniformly random legal actions, the baseline every bot must beat.

"Legal" means the referee accepts the move (`verdict.invalid` and `decide`'s invalid bits
stay 0), not that the shot is a good one: most random shots are fouls (G5.3, G20). Each
table draws from its own key, so a table's move does not depend on the batch.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from piramida.agents.candidates import fixed_own, own_balls
from piramida.rules import ids, placement
from piramida.rules import state as st
from piramida.rules.decisions import eligible_balls
from piramida.rules.game import Move, move
from piramida.rules.setup import Setup, default_setup

SPEED = (0.5, 7.0)  # m/s, the cue speed of an ordinary shot
BREAK_SPEED = (5.0, 9.0)  # m/s, a break
MAX_TIP = 0.5  # tip offsets uniform in the disc of this radius (fractions of R)


def uniform_choice(key: Array, mask: Any) -> Any:
    """A uniformly random index where `mask` holds, or -1 where it holds nowhere."""
    return _pick(jax.random.uniform(key, mask.shape), mask)


def _pick(draws: Any, mask: Any) -> Any:
    """The index of the largest of `draws` (uniform, the shape of `mask`) where `mask` holds, or -1."""
    return jnp.where(jnp.any(mask), jnp.argmax(jnp.where(mask, draws, -1.0)), -1).astype(jnp.int32)


N = ids.N_BALLS
# One uniform draw per table, in this order: the own ball, the called ball and the ball taken
# (16 each), then the speed, aim, tip radius and angle, hand point (2), pocket and option (4).
# Drawn at once: each `jax.random` call is a threefry of its own in the compiled program,
# and ten of them made the random bot's program compile in more than twice the time.
DRAWS = 3 * N + 11


def _random_move(state: st.GameState, key: Array, dims: st.Dims) -> Move:
    """One table's random move (see `RandomAgent`)."""
    W, L, R = dims.width, dims.length, dims.R
    u = jax.random.uniform(key, (DRAWS,))
    balls, r = u[: 3 * N].reshape(3, N), u[3 * N :]
    own = _pick(balls[0], own_balls(state))
    low, high = jnp.where(state.phase == st.BREAK, jnp.asarray(BREAK_SPEED), jnp.asarray(SPEED))
    radius = MAX_TIP * jnp.sqrt(r[2])
    angle = 2 * jnp.pi * r[3]
    # G11.1, G21.2, DYN-5.2: a uniform point of the hand region's box (made legal by
    # `random_moves`, on the tables that place a ball).
    region = st.hand_region(state, dims)
    x_lo, x_hi, y_lo, y_hi = placement.region_bounds(region, W, L, R)
    point = jnp.stack([x_lo, y_lo]) + r[4:6] * jnp.stack([x_hi - x_lo, y_hi - y_lo])
    # CLS-5.2: a call names an object ball on the table and a pocket.
    classic = state.variant == ids.CLASSIC
    call_ball = _pick(balls[1], state.on_table & (jnp.arange(N) != ids.COLOURED))
    call_pocket = jnp.minimum((6 * r[6]).astype(jnp.int32), 5)
    options = ((state.options >> jnp.arange(4)) & 1) == 1
    return move(
        ball=jnp.where(own >= 0, own, fixed_own(state)),
        speed=low + r[0] * (high - low),
        phi=360.0 * r[1],
        a=radius * jnp.cos(angle),
        b=radius * jnp.sin(angle),
        place=point,
        call_ball=jnp.where(classic, call_ball, ids.NO_BALL),
        call_pocket=jnp.where(classic & (call_ball >= 0), call_pocket, -1),
        option=jnp.maximum(_pick(r[7:11], options), 0),
        take=_pick(balls[2], eligible_balls(state)),
    )


@functools.partial(jax.jit, static_argnames=("dims",))
def random_moves(states: st.GameState, keys: Array, dims: st.Dims = st.DEFAULT_DIMS) -> Move:
    """`RandomAgent.act` as a function: (B,) states, (B, 2) keys."""
    moves = jax.vmap(lambda s, k: _random_move(s, k, dims))(states, keys)
    return moves.replace(place=st.placements(states, moves.place, dims))


class RandomAgent:
    """Uniformly random legal actions.

    A shot: the own ball uniform among the balls the rules allow (G4.2, G4.3, FREE-5.1),
    aim uniform in [0, 360), cue speed uniform in `SPEED` (the break: `BREAK_SPEED`),
    tip offsets uniform in the disc of radius `MAX_TIP`; from hand, a uniform point of
    the region made legal by `placement.default_placement`; in Classic a call of a random
    object ball on the table and a random pocket (CLS-5.2). A decision: a uniformly
    random allowed option and a uniformly random eligible ball (`eligible_balls`).
    """

    name = "random"
    cheap_choice = True  # cheaper than gathering the tables that move (`envs.core.replies`)

    def __init__(self, setup: Setup | None = None) -> None:
        """A random agent for a table (`rules.setup.Setup`, default `default_setup()`): its figures."""
        self.dims = (default_setup() if setup is None else setup).dims

    def act(self, states: st.GameState, keys: Array) -> Move:
        """Random moves: states (B,), keys (B, 2)."""
        return random_moves(states, keys, self.dims)
