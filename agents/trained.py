"""The trained bot: a network that scores the shot menu, taught by the search bot.

It plays the same menu as the search bot (`agents.menu`). A small network (`agents.scorer`)
scores every slot from what a player would weigh (`agents.slots`). At its `policy` level
it plays the best legal slot as it stands: a move costs a menu and a forward pass. At its
`quick` (the default), `checked` and `deep` levels it hands its 6 (12 for `deep`)
best-scored slots to the search's stage 2 (`search.finalist_values`): each is struck 3
or 8 times under the execution noise with the kernel, and the best mean value wins. That is the search bot
with the network ranking its menu instead of stage 1's simulation of every slot, so the
simulations go to a few good candidates; `quick` decides in about 5 ms on a 2-core CPU
(`benchmarks/trained_decision.py`), `checked` is stronger and slower. Decisions (G6,
G12.2, DYN-7, the penalty and exchange balls) are the search's at every level: the
closed-form value of each allowed choice, no simulation.

The policy shipped with piramida (`agents/data/trained.npz` and its `.json`, arrays and
JSON, no pickle) is the default; the JSON says how it was made (command, seed, data set,
hours, machine). `training.distill` makes new ones.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from piramida.agents import search
from piramida.agents.greedy import safety_move
from piramida.agents.menu import Family, Menu, hand_places, moves_at, shot_menu
from piramida.agents.scorer import NEG, load, score
from piramida.agents.search import Analysis, SearchConfig, best_decisions, finalist_values
from piramida.agents.slots import observe_slots
from piramida.physics import noise
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.decisions import default_decision
from piramida.rules.game import Move, move, where_tables
from piramida.rules.setup import default_setup

SHIPPED = Path(__file__).with_name("data") / "trained.npz"
VALUE_CONFIG = search.LEVELS[search.DEFAULT_LEVEL]  # the search's value of a decision (its weights)
# How many of its best-scored slots the bot checks with the kernel (finalists), and how
# often each (samples): `policy` is the network alone; `quick`, `checked` and `deep` play
# like the search's stage 2 on the network's finalists instead of stage 1's (`deep`: as
# many finalists as the search's `strongest`, as often as its `strong`).
LEVELS: dict[str, tuple[int, int]] = {"policy": (0, 1), "quick": (6, 3), "checked": (6, 8), "deep": (12, 8)}
DEFAULT_LEVEL = "quick"


def _scored_menu(
    params: Any, states: st.GameState, magnitude: Any, width: int, menu: Menu
) -> tuple[Family, Any]:
    """The shot menu of (B,) states and the network's logits (B, M) of its slots."""
    family = shot_menu(states, menu)
    logits, _, _ = score(params, width, observe_slots(states, family, magnitude, menu))
    return family, logits


def network_search(
    params: Any,
    states: st.GameState,
    keys: Array,
    magnitude: Any,
    width: int,
    menu: Menu,
    lookahead: SearchConfig,
    explore: Array | None = None,
) -> Analysis:
    """The network's `lookahead.finalists` best slots checked by the search's stage 2 (an `Analysis`).

    Each finalist is struck `lookahead.samples` times under the noise; the best mean wins.
    Its values are those means at the finalists and `search.UNSEARCHED` at the other
    legal slots. With `explore` keys (B, 2) the finalists are drawn from the network's
    softmax without replacement (Gumbel top-k) instead: the data of expert iteration
    (`training.expert`) then values slots the network underrates.
    """
    family, logits = _scored_menu(params, states, magnitude, width, menu)
    ranked = logits
    if explore is not None:
        gumbel = jax.vmap(lambda k: jax.random.gumbel(k, logits.shape[1:], logits.dtype))(explore)
        ranked = jnp.where(logits <= NEG, NEG, logits + gumbel)  # illegal slots stay last
    _, top = jax.lax.top_k(ranked, lookahead.finalists)
    legal = jnp.take_along_axis(logits, top, axis=1) > NEG  # fewer legal slots than finalists
    means = finalist_values(states, family.moves, top, keys, magnitude, lookahead, default_setup())
    means = jnp.where(legal, means, 2.0 * search.ILLEGAL)
    slot = jnp.take_along_axis(top, jnp.argmax(means, axis=1)[:, None], axis=1)[:, 0]
    values = jnp.where(family.valid, search.UNSEARCHED, 2.0 * search.ILLEGAL)
    rows = jnp.arange(values.shape[0])[:, None]
    values = values.at[rows, top].set(jnp.where(legal, means, values[rows, top]))
    prior = jax.nn.softmax(logits, axis=-1)
    return Analysis(menu=family, values=values, slot=slot, value=jnp.max(means, axis=1), prior=prior)


def _shots(
    params: Any,
    states: st.GameState,
    keys: Array,
    magnitude: Any,
    width: int,
    menu: Menu,
    lookahead: SearchConfig | None,
) -> Move:
    """(B,) shots: the best legal menu slot (the plain safety where the menu is empty).

    The best-scored slot, or with a `lookahead` the best of its finalists (`network_search`).
    """
    setup = default_setup()
    if lookahead is None:
        family, logits = _scored_menu(params, states, magnitude, width, menu)
        slot = jnp.argmax(logits, axis=-1)
    else:
        found = network_search(params, states, keys, magnitude, width, menu, lookahead)
        family, slot = found.menu, found.slot
    shot = moves_at(family.moves, slot)
    found_any = jnp.any(family.valid, axis=1)
    # The safety is planned only when some table's menu is empty (a `cond` on the batch).
    return jax.lax.cond(
        jnp.all(found_any),
        lambda: shot,
        lambda: where_tables(
            found_any,
            shot,
            jax.vmap(lambda s, p: safety_move(s, p, setup))(states, hand_places(states, setup.dims)),
        ),
    )


@functools.partial(jax.jit, static_argnames=("width", "menu", "lookahead"))
def trained_moves(
    params: Any,
    states: st.GameState,
    keys: Array,
    magnitude: Any,
    width: int,
    menu: Menu,
    lookahead: SearchConfig | None,
) -> Move:
    """(B,) moves: shots by the network (checked with a `lookahead`), decisions by the search's value.

    `lookahead` has no default: a call that left it out would compile a program of its own.

    Each half runs only when some table needs it (a `cond` on the batch), so a move at
    batch 1 pays for one of them.
    """
    setup = default_setup()
    shooting = jnp.any(states.phase <= st.IN_HAND)  # BREAK, NORMAL or IN_HAND
    idle = move(ball=jnp.full(states.phase.shape, ids.COLOURED, jnp.int32))
    shot = jax.lax.cond(
        shooting, lambda: _shots(params, states, keys, magnitude, width, menu, lookahead), lambda: idle
    )
    decision = jax.lax.cond(
        jnp.any(states.phase == st.DECISION),
        lambda: best_decisions(states, magnitude, VALUE_CONFIG, setup),
        lambda: jax.vmap(lambda s: default_decision(s, setup.dims))(states),
    )
    return shot.replace(option=decision.option, take=decision.ball)


@functools.partial(jax.jit, static_argnames=("width", "menu", "lookahead"))
def analysed_trained_moves(
    params: Any,
    states: st.GameState,
    keys: Array,
    explore: Array,
    magnitude: Any,
    width: int,
    menu: Menu,
    lookahead: SearchConfig,
) -> tuple[Move, Analysis]:
    """(B,) moves of the network-guided search with explored finalists (`network_search`), and what it saw.

    The labels of expert iteration (`training.expert`), as `search.analysed_moves` gives the
    search bot's: shots where the menu has a slot (the recorder keeps only those), decisions
    by the search's value.
    """
    found = network_search(params, states, keys, magnitude, width, menu, lookahead, explore)
    decision = best_decisions(states, magnitude, VALUE_CONFIG, default_setup())
    return moves_at(found.menu.moves, found.slot).replace(option=decision.option, take=decision.ball), found


class TrainedAgent:
    """The trained bot (module docstring): a saved policy, by default the shipped one.

    Args:
      path: the policy's `.npz` (its metadata is the `.json` beside it).
      noise_level: the execution noise of the games it plays (a feature of its input, and
        the noise its checked slots are struck under).
      level: `policy` (the network alone), `quick`, `checked` or `deep` (`LEVELS`).

    """

    name = "trained"

    def __init__(
        self,
        path: str | Path | None = None,
        noise_level: str | float = "pro",
        level: str = DEFAULT_LEVEL,
        checks: tuple[int, int] | None = None,
    ) -> None:
        """Load the policy (`scorer.PolicyFileError` names a file that is not one).

        `checks`: (finalists, samples) instead of the level's (expert iteration's labeller).
        """
        if level not in LEVELS:
            raise ValueError(f"trained: unknown level {level!r}; choose from {list(LEVELS)}")
        if checks is not None and min(checks) < 1:
            raise ValueError(f"trained: checks {checks} must strike at least one finalist once")
        self.path = SHIPPED if path is None else Path(path)
        self.params, self.meta = load(self.path)
        self.width = int(self.meta["width"])
        self.menu = Menu(*self.meta["menu"])  # the menu it learned on (`scorer.load` checked it)
        self.magnitude = noise.level(noise_level)
        finalists, samples = LEVELS[level] if checks is None else checks
        if self.magnitude == 0.0:
            samples = 1  # no noise: every strike of a slot is the same
        self.lookahead = (
            replace(VALUE_CONFIG, menu=self.menu, finalists=min(finalists, self.menu.size), samples=samples)
            if finalists
            else None
        )

    def act(self, states: st.GameState, keys: Array) -> Move:
        """The bot's moves: states (B,), keys (B, 2) (the checked slots' noise); deterministic for a key."""
        return trained_moves(self.params, states, keys, self.magnitude, self.width, self.menu, self.lookahead)
