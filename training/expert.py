"""Learning from the search bot, part 1: a data set of its decisions (expert iteration).

The search bot (`agents.search`) plays well but spends 176 simulations a move; a policy
that scores the same shot menu can learn its choices and play them in a millisecond. This
module records what the search saw on many positions: every table's state, the stage-1
value of each menu slot, the slot it chose and that slot's value (`search.Analysis`).

Positions come from games played in batches (the kernel runs full batches): on some
tables the search bot plays itself, on the others it meets a rival (`greedy` by default;
their positions are labelled too: the search is run on every table); now and then the
search's own move is swapped for another of its four best slots, so the games wander off
its favourite lines.

The labeller is the search bot, or with a `policy` the search guided by that network
(`agents.trained.network_search`): the network's finalists, drawn from its softmax, are
struck by the search's stage 2, and their means are the labels (the other legal slots
are `UNSEARCHED`); the network's policy at the time is kept beside them (`prior`). That
is a round of expert iteration (`evaluation.iteration`).

Each chunk is `tables` frames in one variant mix and one noise level (`pro` and
`amateur` by turns), `moves` moves long, finished frames replaced by new ones. Chunks
are written atomically as plain `.npz` files (no pickle), so an interrupted recording
resumes at the next chunk and a chunk is a function of the seed and its number.
"""

from __future__ import annotations

import functools
import time
from dataclasses import asdict, astuple, dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents.menu import Menu, moves_at
from piramida.agents.search import LEVELS, Analysis, SearchAgent, analysed_moves
from piramida.agents.trained import TrainedAgent, analysed_trained_moves
from piramida.envs import core
from piramida.physics import jsontext, noise, provenance
from piramida.physics.files import npz_bytes, write_atomic
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import Move, where_tables
from piramida.training.players import make_player

EXPLORE_TOP = 4  # an exploring move picks among the search's best this many slots
REFILL = 7  # the key fold of a new frame that replaces a finished one
EXPLORE_FOLD = 3  # the key fold of a guided search's Gumbel draw of its finalists
SHOT_PHASES = (st.BREAK, st.NORMAL, st.IN_HAND)
STATE_PREFIX = "state/"
SUMMARY = "record.json"
MENU = "menu"  # the chunk's menu (`agents.menu.Menu`'s fields): the slots its values are of
PRIOR = "prior"  # a guided chunk's guiding policy over the slots (`search.Analysis.prior`)


class ExpertDataError(ValueError):
    """A data set folder that cannot be read; the message names the file."""


@dataclass(frozen=True)
class RecordPlan:
    """What to record (every field has a default that a small run can shrink).

    Attributes:
      positions: stop once the data set holds at least this many labelled positions.
      tables: frames played side by side (the batch).
      moves: moves per chunk (a frame that ends is replaced by a new one).
      level: the search level that labels the positions (without a `policy`).
      policy: a slot policy's `.npz` that guides the search ("": the plain search bot).
      finalists, samples: the guided search's finalists, and strikes of each.
      rivals: the bots the labeller meets on some tables (player names, saved policies too),
        each on a group of tables in turn with the labeller's self-play.
      noises: the execution-noise levels, one per chunk by turns.
      explore: the share of the search's own moves swapped for another of its best slots.
      seed: the seed of chunk 0 (chunk i uses `fold_in(seed, i)`).

    """

    positions: int = 20_000
    tables: int = 128
    moves: int = 48
    level: str = "strong"
    noises: tuple[str, ...] = ("pro", "amateur")
    explore: float = 0.15
    seed: int = 0
    policy: str = ""
    rivals: tuple[str, ...] = ("greedy",)
    finalists: int = 12
    samples: int = 8


def _state_arrays(states: st.GameState, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The `rows` of a batch of states as named arrays (`state/<leaf path>`)."""
    leaves = jax.tree_util.tree_flatten_with_path(states)[0]
    return {STATE_PREFIX + jax.tree_util.keystr(path): np.asarray(leaf)[rows] for path, leaf in leaves}


def states_from_arrays(arrays: dict[str, np.ndarray]) -> st.GameState:
    """A batch of states back from `_state_arrays`' names (the layout of this version's GameState)."""
    template = st.new_game(ids.FREE, jax.random.PRNGKey(0))
    paths, treedef = jax.tree_util.tree_flatten_with_path(template)
    try:
        leaves = [jnp.asarray(arrays[STATE_PREFIX + jax.tree_util.keystr(path)]) for path, _ in paths]
    except KeyError as missing:
        raise ExpertDataError(f"the data set lacks the state field {missing}") from None
    return jax.tree_util.tree_unflatten(treedef, leaves)


@functools.partial(jax.jit, static_argnames=("top",))
def _explored(found: Analysis, keys: Any, explore: float, top: int) -> Any:
    """(B,) the slot to play: the search's, or with chance `explore` one of its `top` best slots."""
    best = jax.lax.top_k(found.values, top)[1]
    legal = jnp.take_along_axis(found.menu.valid, best, axis=1)
    pick = jax.vmap(lambda k, ok: jax.random.choice(k, top, p=ok / jnp.maximum(ok.sum(), 1)))(
        keys, legal.astype(jnp.float32)
    )
    swap = jax.vmap(lambda k: jax.random.bernoulli(jax.random.fold_in(k, 1), explore))(keys) & legal.any(
        axis=1
    )
    return jnp.where(swap, jnp.take_along_axis(best, pick[:, None], axis=1)[:, 0], found.slot)


_new_games = jax.jit(st.new_games)


def _labeller(plan: RecordPlan, magnitude: float) -> tuple[Any, Menu]:
    """The labeller's `(states, keys, move_keys) -> (moves, Analysis)` and its menu (module docstring)."""
    if not plan.policy:
        search = SearchAgent(config=LEVELS[plan.level], noise_level=magnitude)

        def searched(states: Any, keys: Any, move_keys: Any) -> tuple[Move, Analysis]:
            return analysed_moves(
                states,
                keys,
                magnitude,
                search.config,
                search.setup,
                search.rule,
            )

        return searched, search.config.menu
    guide = TrainedAgent(plan.policy, magnitude, checks=(plan.finalists, plan.samples))
    assert guide.lookahead is not None  # checks strike at least one finalist
    lookahead = guide.lookahead

    def guided(states: Any, keys: Any, move_keys: Any) -> tuple[Move, Analysis]:
        explore = jax.vmap(jax.random.fold_in, in_axes=(0, None))(move_keys, EXPLORE_FOLD)
        return analysed_trained_moves(
            guide.params, states, keys, explore, magnitude, guide.width, guide.menu, lookahead
        )

    return guided, guide.menu


def record_chunk(plan: RecordPlan, index: int) -> dict[str, np.ndarray]:
    """Chunk `index` of the data set: labelled positions as named arrays (the module docstring)."""
    magnitude = noise.level(plan.noises[index % len(plan.noises)])
    label, menu = _labeller(plan, magnitude)
    rivals = [make_player(name, magnitude) for name in plan.rivals]
    key = jax.random.fold_in(jax.random.PRNGKey(plan.seed), index)
    batch = plan.tables
    variants = (jnp.arange(batch) + index) % 4
    # Groups of 4 tables (every variant) by turns: the labeller's self-play, then each rival.
    group = np.asarray((jnp.arange(batch) // 4) % (len(rivals) + 1))
    keys = jax.random.split(key, batch)
    states = _new_games(variants, keys, jnp.arange(batch) % 2)
    rows: list[dict[str, np.ndarray]] = []
    for move in range(plan.moves):
        move_keys = jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, move)
        shot, found = label(states, keys, move_keys)
        slot = _explored(found, move_keys, plan.explore, EXPLORE_TOP)
        chosen = moves_at(found.menu.moves, slot).replace(option=shot.option, take=shot.take)
        replying = np.asarray(states.turn == 1)
        for number, rival in enumerate(rivals, start=1):
            if np.any((group == number) & replying):
                chosen = where_tables(
                    jnp.asarray((group == number) & replying), rival.act(states, keys), chosen
                )
        phase = np.asarray(states.phase)
        keep = np.isin(phase, SHOT_PHASES) & np.asarray(jnp.any(found.menu.valid, axis=1))
        rows.append(
            {
                **_state_arrays(states, keep),
                "values": np.asarray(found.values, np.float32)[keep],
                "slot": np.asarray(found.slot, np.int32)[keep],
                "value": np.asarray(found.value, np.float32)[keep],
                "magnitude": np.full(int(keep.sum()), magnitude, np.float32),
                **({} if found.prior is None else {PRIOR: np.asarray(found.prior, np.float32)[keep]}),
            }
        )
        states, _, keys = core.play_masked(states, chosen, keys, jnp.asarray(phase != st.OVER), magnitude)
        over = states.phase == st.OVER
        if bool(jnp.any(over)):
            fresh_keys = jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, REFILL)
            states = where_tables(over, _new_games(variants, fresh_keys, states.turn), states)
    arrays = {name: np.concatenate([r[name] for r in rows]) for name in rows[0]}
    return {**arrays, MENU: np.asarray(astuple(menu), np.int32)}


def chunk_path(folder: Path, index: int) -> Path:
    return folder / f"chunk-{index:05d}.npz"


def chunks(folder: Path) -> list[Path]:
    """The data set's chunk files, in order."""
    return sorted(folder.glob("chunk-*.npz"))


def read_chunk(path: Path) -> dict[str, np.ndarray]:
    """One chunk's arrays (never unpickled); ExpertDataError names a file that is not one."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as error:
        raise ExpertDataError(f"{path}: not a data set chunk ({error})") from None
    for name in ("values", "slot", "value", "magnitude", MENU):
        if name not in arrays:
            raise ExpertDataError(f"{path}: not a data set chunk (no {name!r} array)")
    return arrays


def menu_of(arrays: dict[str, np.ndarray], path: Path) -> Menu:
    """The menu whose slots a chunk's values are of; ExpertDataError if it is not one."""
    fields = arrays[MENU]
    if fields.shape != (len(astuple(Menu())),) or np.any(fields < 0) or np.any(fields > 64):
        raise ExpertDataError(f"{path}: not a data set chunk (its menu is {fields.tolist()})")
    menu = Menu(*(int(x) for x in fields))
    if arrays["values"].ndim != 2 or arrays["values"].shape[1] != menu.size:
        raise ExpertDataError(f"{path}: its values are not of its menu's {menu.size} slots")
    return menu


def record(plan: RecordPlan, folder: Path, progress: Any = None) -> int:
    """Record chunks into `folder` until it holds `plan.positions` positions; the count held.

    A folder that already holds chunks is continued (resume); `progress(done, total)` is
    called after each chunk.
    """
    folder.mkdir(parents=True, exist_ok=True)
    done = chunks(folder)
    held = sum(len(read_chunk(path)["slot"]) for path in done)
    index = len(done)
    hours = float(summary(folder).get("hours", 0.0))
    while held < plan.positions:
        started = time.perf_counter()
        arrays = record_chunk(plan, index)
        write_atomic(chunk_path(folder, index), npz_bytes(arrays))
        held += len(arrays["slot"])
        index += 1
        hours += (time.perf_counter() - started) / 3600.0
        about = {
            "positions": held,
            "chunks": index,
            "hours": round(hours, 3),
            "machine": provenance.machine(),
            "plan": asdict(plan),
        }
        write_atomic(folder / SUMMARY, jsontext.dumps(about, indent=2) + "\n")
        if progress is not None:
            progress(held, plan.positions)
    return held


def summary(folder: Path) -> dict[str, Any]:
    """The data set's `record.json` (positions, chunks, recording hours, machine, plan); {} if none."""
    try:
        about = jsontext.loads((folder / SUMMARY).read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise ExpertDataError(f"{folder / SUMMARY}: unreadable ({error})") from None
    if not isinstance(about, dict):
        raise ExpertDataError(f"{folder / SUMMARY}: not a JSON object")
    return about
