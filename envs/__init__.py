"""piramida.envs: Gymnasium environments of the four pyramid variants, batched in JAX.

    import gymnasium as gym  # a regular install registers the ids (piramida_gymnasium_hook)

    env = gym.make("piramida/FreePyramid-v0", opponent="greedy", noise="pro")
    envs = gym.make_vec("piramida/FreePyramid-v0", num_envs=4096, vectorization_mode="vector_entry_point")

    env, params = piramida.envs.make_jax("free", num_envs=4096)  # pure JAX: env.reset, env.step

`register_envs` is also the package's `gymnasium.envs` entry point (Gymnasium < 1.0) and
what the start-up hook calls; importing this package registers the ids too (editable
installs, which skip the hook's .pth file).
"""

from __future__ import annotations

from typing import Any

ENV_IDS: dict[str, str] = {
    "free": "piramida/FreePyramid-v0",
    "combined": "piramida/CombinedPyramid-v0",
    "dynamic": "piramida/DynamicPyramid-v0",
    "classic": "piramida/ClassicPyramid-v0",
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
