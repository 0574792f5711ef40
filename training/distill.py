"""Learning from the search bot, part 2: a slot-scoring network fitted to its decisions.

The data set (`training.expert`) holds positions, the search's value of every menu slot
(stage 1's; a guided search's finalists only) and the slot it played. The network
(`agents.scorer.SlotScorer`) is fitted to all three at once:

- cross-entropy of its softmax over the legal slots against the slot the search played,
  blended with the search's whole ranking (a softmax of its stage-1 values). Where a
  guided search struck only some slots, those slots share the mass the guiding network
  gave them, by the same blend, and the others keep the network's own mass: the search
  reorders what it checked and leaves the rest as it was;
- the squared error of each legal slot's value head against the search's value of it (the
  search's whole ranking, not only its choice: slots refused before the shot, and slots a
  guided search did not strike, aside);
- the squared error of the position value against the value of the search's choice.

Chunks are split into training and validation by number (every `VALIDATION_EVERY`-th chunk
of the data sets, counted across them, is held out), so the two never share a frame. A
run can start from a saved policy instead of fresh parameters (expert iteration's rounds).
After each epoch the validation loss, the agreement with the search (the same slot) and
the regret (the search's value of its own choice minus its value of the network's, where
it valued the network's) go to TensorBoard, and the run is checkpointed atomically
(parameters, optimizer state, epoch): an interrupted run resumes where it stopped and
ends with the uninterrupted run's parameters. The best epoch's policy is written as
`OUT/policy.npz` with its `.json` (`agents.scorer.save`).
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
import optax
from stable_baselines3.common.logger import configure

from piramida.agents import Agent, make_bot, scorer
from piramida.agents.menu import Menu, shot_menu
from piramida.agents.search import ILLEGAL, UNSEARCHED
from piramida.agents.slots import SlotView, observe_slots
from piramida.agents.trained import trained_moves
from piramida.envs import core
from piramida.physics import noise
from piramida.physics.files import npz_bytes, write_atomic
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import where_tables
from piramida.training import expert
from piramida.training.checkpoint import flat_arrays

VALIDATION_EVERY = 8  # every 8th chunk is held out
VIEW_BATCH = 512  # positions per feature computation (one compiled shape)
VALUE_CLIP = 2.0  # values beyond +-2 frames (none but ILLEGAL) are left out of the value loss
MATCH_MOVES = 300  # moves of a win-rate match (a Free frame takes about 11 shots)
MATCH_NOISE = noise.level("pro")  # the execution noise of the win-rate matches


@dataclass(frozen=True)
class DistillPlan:
    """How to fit the network (every field has a default).

    Attributes:
      epochs: passes over the training chunks.
      batch: positions per gradient step.
      learning_rate: Adam's peak rate (cosine decay to a tenth over the run).
      width: the network's width (`SlotScorer.width`).
      slot_value_weight, value_weight: the weights of the value losses (cross-entropy: 1).
      ranking_weight: the share of the cross-entropy's target given to the search's ranking
        (a softmax of its stage-1 values at `temperature`, in frames) rather than its choice.
      seed: initial parameters and the order of the batches.
      match_every: every this many epochs (and after the last), the network alone plays
        `match_games` Free frames at `pro` against each of `opponents`, for the win-rate
        curves (0: no matches).
      match_games: frames per match (each side breaks in half of them).
      opponents: the bots of the matches (`agents.make_bot` names).
      validation_every: every this many chunks, one is held out for validation.

    """

    epochs: int = 30
    batch: int = 256
    learning_rate: float = 1e-3
    width: int = 128
    slot_value_weight: float = 1.0
    value_weight: float = 0.5
    ranking_weight: float = 0.5
    temperature: float = 0.05
    seed: int = 0
    match_every: int = 0
    match_games: int = 64
    opponents: tuple[str, ...] = ("greedy", "search:strong")
    validation_every: int = VALIDATION_EVERY


@dataclass(frozen=True)
class Examples:
    """Positions ready to learn from: their views and the search's labels (numpy, leading axis N)."""

    view: SlotView
    values: np.ndarray
    slot: np.ndarray
    value: np.ndarray
    prior: np.ndarray

    def __len__(self) -> int:
        return len(self.slot)

    def rows(self, index: np.ndarray) -> Examples:
        """The examples at `index`."""
        return jax.tree_util.tree_map(lambda x: x[index], self)


jax.tree_util.register_dataclass(
    Examples, data_fields=["view", "values", "slot", "value", "prior"], meta_fields=[]
)


@functools.partial(jax.jit, static_argnames=("menu",))
def _views(states: Any, magnitude: Any, menu: Menu) -> SlotView:
    view = observe_slots(states, shot_menu(states, menu), magnitude, menu)
    return view


def examples(arrays: dict[str, np.ndarray], menu: Menu) -> Examples:
    """The views of a chunk's positions (its values are of `menu`'s slots), `VIEW_BATCH` at a time."""
    count = len(arrays["slot"])
    parts = []
    for start in range(0, count, VIEW_BATCH):
        index = np.minimum(np.arange(start, start + VIEW_BATCH), count - 1)  # the last batch padded
        states = expert.states_from_arrays({k: v[index] for k, v in arrays.items() if k.startswith("state/")})
        view = _views(states, jnp.asarray(arrays["magnitude"][index]), menu)
        parts.append(jax.tree_util.tree_map(np.asarray, view))
    view = jax.tree_util.tree_map(lambda *xs: np.concatenate(xs)[:count], *parts)
    prior = arrays.get(expert.PRIOR, np.zeros_like(arrays["values"]))  # the search bot's chunks: none
    return Examples(
        view=view, values=arrays["values"], slot=arrays["slot"], value=arrays["value"], prior=prior
    )


def load_examples(
    folders: Path | list[Path], progress: Any = None, validation_every: int = VALIDATION_EVERY
) -> tuple[Examples, Examples, Menu]:
    """(training, validation) examples of one or more data set folders (module docstring), and their menu."""
    folders = [folders] if isinstance(folders, Path) else folders
    paths = [path for folder in folders for path in expert.chunks(folder)]
    if not paths:
        names = ", ".join(str(folder) for folder in folders)
        raise expert.ExpertDataError(f"{names}: no data set chunks (chunk-*.npz) to learn from")
    train: list[Examples] = []
    held: list[Examples] = []
    menus = set()
    for number, path in enumerate(paths):
        arrays = expert.read_chunk(path)
        menus.add(expert.menu_of(arrays, path))
        if len(menus) > 1:
            raise expert.ExpertDataError(f"{path}: recorded with another menu than the chunks before it")
        part = examples(arrays, next(iter(menus)))
        (held if number % validation_every == validation_every - 1 else train).append(part)
        if progress is not None:
            progress(number + 1, len(paths))
    join = lambda parts: jax.tree_util.tree_map(lambda *xs: np.concatenate(xs), *parts)  # noqa: E731
    return join(train), join(held or train[-1:]), menus.pop()


def policy_target(batch: Examples, plan: DistillPlan) -> Any:
    """(N, M) the cross-entropy's target (module docstring): the search's blend, the guide's elsewhere."""
    known = batch.view.legal & (jnp.abs(batch.values) <= VALUE_CLIP)
    ranking = jax.nn.softmax(jnp.where(known, batch.values / plan.temperature, -jnp.inf), axis=-1)
    ranking = jnp.where(jnp.any(known, axis=-1, keepdims=True), ranking, 0.0)
    choice = jax.nn.one_hot(batch.slot, batch.values.shape[-1])
    searched = (1.0 - plan.ranking_weight) * choice + plan.ranking_weight * ranking
    unsearched = batch.view.legal & (batch.values == UNSEARCHED)
    kept = jnp.where(unsearched, batch.prior, 0.0)
    return jnp.where(unsearched, kept, (1.0 - kept.sum(axis=-1, keepdims=True)) * searched)


def losses(params: Any, batch: Examples, plan: DistillPlan) -> tuple[Any, dict[str, Any]]:
    """The loss of the module docstring on a batch, and its parts."""
    logits, slot_values, value = scorer.score(params, plan.width, batch.view)
    log_p = jax.nn.log_softmax(logits, axis=-1)
    known = batch.view.legal & (jnp.abs(batch.values) <= VALUE_CLIP)
    target = policy_target(batch, plan)
    cross_entropy = -jnp.mean(jnp.sum(target * jnp.where(batch.view.legal, log_p, 0.0), axis=-1))
    slot_error = jnp.sum(jnp.where(known, (slot_values - batch.values) ** 2, 0.0)) / jnp.maximum(
        known.sum(), 1
    )
    value_error = jnp.mean((value - batch.value) ** 2)
    total = cross_entropy + plan.slot_value_weight * slot_error + plan.value_weight * value_error
    chosen = jnp.take_along_axis(batch.values, batch.slot[:, None], axis=1)[:, 0]

    def regret(scores: Any) -> Any:
        """The mean regret over the positions where the search valued the slot picked."""
        picked = jnp.take_along_axis(batch.values, jnp.argmax(scores, axis=-1)[:, None], axis=1)[:, 0]
        valued = picked != UNSEARCHED
        regrets = jnp.clip(chosen - jnp.maximum(picked, ILLEGAL), 0.0, 2.0 * VALUE_CLIP)
        return jnp.sum(jnp.where(valued, regrets, 0.0)) / jnp.maximum(valued.sum(), 1)

    parts = {
        "loss": total,
        "cross_entropy": cross_entropy,
        "slot_value_error": slot_error,
        "value_error": value_error,
        "agreement": jnp.mean(jnp.argmax(logits, axis=-1) == batch.slot),
        "regret": regret(logits),
        "value_regret": regret(jnp.where(batch.view.legal, slot_values, -jnp.inf)),
    }
    return total, parts


def win_rate(params: Any, width: int, menu: Menu, opponent: Agent, games: int, seed: int) -> float:
    """The share of `games` Free frames at `pro` the network alone (`trained:policy`) wins against `opponent`.

    Frames still running after `MATCH_MOVES` moves count as not won.
    """
    keys = jax.random.split(jax.random.PRNGKey(seed), games)
    states = st.new_games(jnp.full(games, ids.FREE, jnp.int32), keys, jnp.arange(games, dtype=jnp.int32) % 2)
    for _ in range(MATCH_MOVES):
        live = states.phase != st.OVER
        if not bool(jnp.any(live)):
            break
        network = trained_moves(params, states, keys, MATCH_NOISE, width, menu, None)
        moves = where_tables(states.turn == 0, network, opponent.act(states, keys))
        states, _, keys = core.play_masked(states, moves, keys, live, MATCH_NOISE)
    return float(jnp.mean((states.phase == st.OVER) & (states.winner == 0)))


def _optimizer(plan: DistillPlan, steps: int) -> optax.GradientTransformation:
    schedule = optax.cosine_decay_schedule(plan.learning_rate, max(steps, 1), alpha=0.1)
    return optax.chain(optax.clip_by_global_norm(1.0), optax.adam(schedule))


def _filled(template: Any, arrays: dict[str, np.ndarray], path: Path) -> Any:
    leaves, structure = jax.tree_util.tree_flatten_with_path(template)
    out = []
    for where, leaf in leaves:
        saved = arrays.get("run" + jax.tree_util.keystr(where))
        if saved is None or saved.shape != np.shape(leaf) or saved.dtype != np.asarray(leaf).dtype:
            raise expert.ExpertDataError(f"{path}: checkpoint of another run ({jax.tree_util.keystr(where)})")
        out.append(jnp.asarray(saved))
    return jax.tree_util.tree_unflatten(structure, out)


def _started(template: Any, path: Path, plan: DistillPlan, menu: Menu) -> Any:
    """A saved policy's parameters to start from; ExpertDataError names what differs from the run."""
    params, meta = scorer.load(path)
    if int(meta["width"]) != plan.width or tuple(meta["menu"]) != astuple(menu):
        raise expert.ExpertDataError(
            f"{path}: width {meta['width']} and menu {list(meta['menu'])}; the run needs width "
            f"{plan.width} and the data's menu {list(astuple(menu))}"
        )
    if str(jax.tree_util.tree_structure(params)) != str(jax.tree_util.tree_structure(template)):
        raise expert.ExpertDataError(f"{path}: not a policy of this network")
    return params


def distill(
    plan: DistillPlan,
    data: Path | list[Path],
    out: Path,
    made: dict[str, Any] | None = None,
    progress: Any = None,
    start: Path | None = None,
) -> dict[str, float]:
    """Fit a network to the data sets in `data`, into `out` (module docstring); the best epoch's metrics.

    `made` goes into the policy's metadata (how it was made); `progress(what, done, total)`
    is told of the feature computation and the epochs. `start`: a saved policy to start
    from (its width and menu must be the plan's and the data's).
    """
    started = time.perf_counter()
    train, held, menu = load_examples(
        data, None if progress is None else lambda d, t: progress("features", d, t), plan.validation_every
    )
    steps_per_epoch = max(len(train) // plan.batch, 1)
    optimizer = _optimizer(plan, plan.epochs * steps_per_epoch)
    key = jax.random.PRNGKey(plan.seed)
    params = scorer.init_params(plan.width, train.values.shape[1], key)
    if start is not None:
        params = _started(params, start, plan, menu)
    run = {
        "params": params,
        "opt": optimizer.init(params),
        "epoch": jnp.int32(0),
        "best": jnp.float32(np.inf),
    }
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "distill-checkpoint.npz"
    if checkpoint.exists():
        with np.load(checkpoint, allow_pickle=False) as saved:
            run = _filled(run, dict(saved), checkpoint)

    @jax.jit
    def step(params: Any, opt: Any, batch: Examples) -> tuple[Any, Any, dict[str, Any]]:
        grads, parts = jax.grad(losses, has_aux=True)(params, batch, plan)
        updates, opt = optimizer.update(grads, opt, params)
        return optax.apply_updates(params, updates), opt, parts

    evaluate = jax.jit(lambda params, batch: losses(params, batch, plan)[1])
    logger = configure(str(out / "tensorboard"), ["tensorboard"])
    for epoch in range(int(run["epoch"]), plan.epochs):
        order = np.random.default_rng([plan.seed, epoch]).permutation(len(train))
        params, opt = run["params"], run["opt"]
        sums: dict[str, float] = {}
        for i in range(steps_per_epoch):
            params, opt, parts = step(params, opt, train.rows(order[i * plan.batch : (i + 1) * plan.batch]))
            for name, v in parts.items():
                sums[name] = sums.get(name, 0.0) + float(v)
        held_parts = [
            evaluate(params, held.rows(np.arange(s, min(s + 1024, len(held)))))
            for s in range(0, len(held), 1024)
        ]
        weights = np.diff([*range(0, len(held), 1024), len(held)])
        metrics = {
            f"validation/{n}": float(np.average([float(p[n]) for p in held_parts], weights=weights))
            for n in held_parts[0]
        }
        metrics.update({f"train/{n}": v / steps_per_epoch for n, v in sums.items()})
        for name, v in metrics.items():
            logger.record(name, v)
        if plan.match_every and ((epoch + 1) % plan.match_every == 0 or epoch + 1 == plan.epochs):
            for name in plan.opponents:
                opponent = make_bot(name, MATCH_NOISE)
                rate = win_rate(params, plan.width, menu, opponent, plan.match_games, plan.seed)
                metrics[f"match/win_rate_{name}"] = rate
                logger.record(f"match/win_rate_{name}", rate)
        logger.record("time/hours", (time.perf_counter() - started) / 3600.0)
        logger.dump((epoch + 1) * steps_per_epoch * plan.batch)
        better = metrics["validation/loss"] < float(run["best"])
        run = {
            "params": params,
            "opt": opt,
            "epoch": jnp.int32(epoch + 1),
            "best": jnp.float32(min(metrics["validation/loss"], float(run["best"]))),
        }
        if better:
            meta = {
                "width": plan.width,
                "slots": menu.size,
                "menu": list(astuple(menu)),
                "epoch": epoch + 1,
                "hours": round((time.perf_counter() - started) / 3600.0, 3),
                "metrics": metrics,
                "plan": asdict(plan),
                "made": made or {},
            }
            scorer.save(out / "policy.npz", params, meta)
        write_atomic(checkpoint, npz_bytes({"run" + k: v for k, v in flat_arrays(run).items()}))
        if progress is not None:
            progress("epochs", epoch + 1, plan.epochs)
    return dict(scorer.load(out / "policy.npz")[1]["metrics"])
