"""piramida.envs: Gymnasium environments of the four pyramid variants, batched in JAX.

    import gymnasium as gym  # a regular install registers the ids (piramida_gymnasium_hook)

    env = gym.make("piramida/FreePyramid-v1", opponent="greedy", noise="pro")
    envs = gym.make_vec("piramida/FreePyramid-v1", num_envs=4096, vectorization_mode="vector_entry_point")

    env, params = piramida.envs.make_jax("free", num_envs=4096)  # pure JAX: env.reset, env.step

`register_envs` is also the package's `gymnasium.envs` entry point (Gymnasium < 1.0) and
what the start-up hook calls; importing this package registers the ids too (editable
installs, which skip the hook's .pth file).

Versions: an id's `-vN` goes up whenever a policy trained on the old version would meet
another problem under the same id, settings and seed: what an observation or an action
means (a field, a slot of the assisted menu, a scale), how rewards are counted, when an
episode ends, or the game itself (the physics, the referee, a bot opponent's play).
Speed-ups with the same results, new options whose defaults keep the old behaviour and
new info keys keep it. Only the newest version is registered: Gymnasium refuses an older
one as deprecated and names the newest. v1: the assisted actions pick from the shot
menu (not the ghost-ball candidate list) and add their spin to the slot's own; `greedy`
chooses from that menu.
"""

from __future__ import annotations

from typing import Any

ENV_IDS: dict[str, str] = {
    "free": "piramida/FreePyramid-v1",
    "combined": "piramida/CombinedPyramid-v1",
    "dynamic": "piramida/DynamicPyramid-v1",
    "classic": "piramida/ClassicPyramid-v1",
}


def register_envs() -> None:
    """Register the four ids with Gymnasium (idempotent; nothing heavy is imported)."""
    from gymnasium.envs.registration import register, registry

    for variant, env_id in ENV_IDS.items():
        if env_id in registry:
            continue
        register(
            id=env_id,
            entry_point="piramida.envs.pyramid_env:PyramidEnv",
            vector_entry_point="piramida.envs.vector_env:PyramidVectorEnv",
            kwargs={"variant": variant},
        )


def make_jax(variant: str | int = "free", **options: Any) -> Any:
    """The pure-JAX env of a variant: `(env, params)` (`envs.jax_env.make`, its options).

    `env.reset(key, params)` and `env.step(key, state, action, params)` are pure functions
    over B tables (`num_envs`), for `jit` and `lax.scan`.
    """
    from piramida.envs.jax_env import make

    return make(variant, **options)


def pettingzoo_env(variant: str = "free", **options: Any) -> Any:
    """A PettingZoo AEC env of the variant: two agents, `player_0` and `player_1`."""
    from piramida.envs.pettingzoo_aec import PyramidAEC

    return PyramidAEC(variant, **options)


register_envs()

__all__ = ["ENV_IDS", "make_jax", "pettingzoo_env", "register_envs"]
