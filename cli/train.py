"""`piramida train`: stable-baselines3 PPO, SAC or MaskablePPO, or a JAX-native PPO; checkpoints, resume.

Settings come from the defaults, then `--config FILE` (TOML, the flags' names), then a
resumed checkpoint's own config, then the flags given. Bad input (a bad flag value, a
config file that does not parse, a resume file that is not a checkpoint of this run) is
answered with a message naming the flag or the file and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from piramida.cli import options
from piramida.rules import ids

DEFAULT_OUT = "piramida-train"


HELP = (
    "train a policy (stable-baselines3 PPO, SAC, MaskablePPO, or JAX-native PPO): logs, checkpoints, resume"
)
DESCRIPTION = (
    "Train a policy on --tables tables stepped together, against a bot, a saved "
    "policy or a league. Writes TensorBoard logs (OUT/tensorboard), a checkpoint every "
    "--checkpoint-every learner moves (OUT/checkpoints/step-N.zip) and OUT/final.zip, which "
    "`piramida eval --agents OUT/final.zip,...` plays. Settings: defaults < --config < the "
    "resumed checkpoint's < flags."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
    add = parser.add_argument
    add(
        "--algo",
        help="ppo (default), sac (raw actions), maskable-ppo (assisted actions), or jax-ppo (policy, env "
        "and update in one jitted loop; either action mode; its opponents and league are bots; its tables "
        "split over every device (of every process joined by --coordinator), so --tables must be a "
        "multiple of their count)",
    )
    add("--action-mode", help="raw (default: 11 numbers in [-1, 1]) or assisted (ghost-ball candidates)")
    add("--variant", help=f"{', '.join(ids.VARIANT_NAMES)} (default: free)")
    add("--noise", help="execution noise for both players: none (default), pro, amateur or a magnitude")
    add("--tables", type=int, help="tables stepped together (default: 8)")
    add(
        "--opponent",
        help="random (default), greedy, search, search:easy|medium|strong|strongest, trained, "
        "or a saved policy's .zip (or a distilled policy.npz)",
    )
    add(
        "--league",
        help="comma-separated opponents drawn in turn, e.g. random,greedy,self; self is one of this "
        "run's past checkpoints (the current policy before the first); replaces --opponent",
    )
    add("--league-every", type=int, help="learner moves between league draws (default: one rollout)")
    add("--steps", type=int, help="learner moves (all tables) to train for (default: 100000)")
    add("--seed", type=int, help="seed of torch, numpy, the tables and the league (default: 0)")
    add("--device", help="torch device (jax-ppo: JAX's platform): cpu, cuda or auto (default: auto)")
    add(
        "--coordinator",
        metavar="HOST:PORT",
        help="jax-ppo over several processes or hosts: process 0's address (the same in every process; "
        "the tables split over every process's devices; process 0 alone writes OUT, which the others "
        "must see to resume or play self), or auto: JAX's detection of a cluster manager "
        "(SLURM, Open MPI...)",
    )
    add("--processes", type=int, help="with --coordinator HOST:PORT: how many processes join the run")
    add("--process-id", type=int, help="with --coordinator HOST:PORT: this process's index (0 to N - 1)")
    add("--checkpoint-every", type=int, help="learner moves between checkpoints (default: 10000)")
    add("--shot-limit", type=int, help="learner moves in a frame before it is cut (default: 200)")
    add(
        "--assisted-prior",
        type=float,
        help="assisted mode: the starting policy's probability of no aim, power or spin correction "
        "(each head; the rest spread evenly; 0 = uniform; default: 0.9)",
    )
    add(
        "--policy",
        help="jax-ppo's network: mlp (default: MLPs on the flat observation), slots (the trained bot's "
        "slot scorer on the menu observation, fresh), trained (that scorer from the shipped policy) "
        "or a policy .npz to start from; a scorer picks menu slots (--action-mode assisted) and "
        "writes OUT/policy.npz, which plays as a trained bot",
    )
    add("--out", help=f"output folder (default: {DEFAULT_OUT})")
    add(
        "--resume",
        nargs="?",
        const="",
        metavar="CHECKPOINT",
        help="continue a run from CHECKPOINT, or without one from the latest in OUT/checkpoints; "
        "the result is what the uninterrupted run would have given (raise --steps to go further)",
    )
    add(
        "--config",
        metavar="FILE",
        help="TOML file of settings (same names) and a [hyperparameters] table of the algorithm's own "
        "(SB3's keyword arguments, e.g. n_steps, batch_size, learning_rate, policy_kwargs.net_arch; "
        "jax-ppo's net_arch); a name the algorithm does not take is refused, listing those it takes",
    )
    add("--no-progress", action="store_true", help="no progress bar")
    options.add_trust_pickle(parser)


FLAGS = (
    "algo",
    "action_mode",
    "variant",
    "noise",
    "tables",
    "opponent",
    "league",
    "league_every",
    "steps",
    "seed",
    "device",
    "checkpoint_every",
    "shot_limit",
    "assisted_prior",
    "policy",
    "out",
)


def fail(message: str) -> int:
    """Print a usage error as argparse does and return its exit status."""
    print(f"piramida train: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Merge the settings, check them, train; exit status 2 for bad input (nothing written)."""
    from piramida.training import CheckpointError, ConfigError, config, hosts, train
    from piramida.training.runs import latest_checkpoint

    options.apply_trust_pickle(args)
    try:
        values: dict[str, Any] = config.read_toml(args.config) if args.config else {}
        given = {name: getattr(args, name) for name in FLAGS if getattr(args, name) is not None}
        if "league" in values | given and "opponent" in values | given:
            raise ConfigError("league: replaces --opponent (its members are drawn in turn); give one of them")
        out = config.read_out(given.pop("out", values.pop("out", DEFAULT_OUT)))
        resume = None
        if args.resume is not None:
            resume = Path(args.resume) if args.resume else latest_checkpoint(out)
            values |= saved_config(resume)
        settings = config.build(values | given)
        joined = (args.coordinator, args.processes, args.process_id)
        if joined != (None, None, None) and settings.algo != "jax-ppo":
            raise ConfigError("coordinator: only --algo jax-ppo trains over several processes")
        hosts.join(*joined)
        result = train(settings, out, resume, progress=not args.no_progress)  # it makes `out`
    except CheckpointError as error:
        return fail(f"--resume: {error}")
    except ConfigError as error:
        name, _, rest = str(error).partition(":")
        flag = name.replace("_", "-")
        if flag in _flag_names():
            return fail(f"--{flag}:{rest}")
        return fail(f"--config: {error}" if args.config else str(error))  # `[hyperparameters]`
    except OSError as error:
        return fail(f"--out: cannot write to {error.filename or ''} ({error.strerror or error})")
    devices = "" if result.devices is None else f" on {result.devices} device{'s' * (result.devices != 1)}"
    written = f"final checkpoint {result.final}" if hosts.writes() else "process 0 wrote the checkpoints"
    print(
        f"trained {result.moves} learner moves{devices} in {result.seconds:.1f} s "
        f"({result.moves_per_second:.1f} shots/s, compiles included); {result.steps} in all; {written}"
    )
    return 0


def saved_config(path: Path) -> dict[str, Any]:
    """A checkpoint's config as settings, read as any other config is: a mangled one names the field."""
    from piramida.training import CheckpointError, ConfigError, config, read_meta

    meta = read_meta(path) or {}
    try:
        return config.config_from_json(meta.get("config"), playing=True).to_json()
    except ConfigError as error:
        raise CheckpointError(f"{path}: config: {error}") from error


def _flag_names() -> set[str]:
    joining = {"coordinator", "processes", "process-id"}
    return {name.replace("_", "-") for name in FLAGS} | {"config", "resume"} | joining
