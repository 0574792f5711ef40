"""The Gymnasium environments: API conformance, seeding, vector env, masks, rendering, errors.

Every env here runs on the engine's padded batch of 8 tables, and the variant, noise and
shot limit are traced, so the whole file compiles `play` once per action mode.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import piramida.envs
from piramida.agents import SearchAgent
from piramida.envs import actions as act
from piramida.envs import core, tables
from piramida.envs import observation as encoding
from piramida.envs.pyramid_env import PyramidEnv
from piramida.envs.vector_env import MOVE_INFO, PyramidVectorEnv
from piramida.physics.noise import LEVELS
from piramida.rules.game import play

VARIANT_IDS = list(piramida.envs.ENV_IDS.values())


def _play(env: gym.Env, seed: int, steps: int) -> list[np.ndarray]:
    """Observations of a short game with actions from a seeded action space."""
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    seen = [obs]
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        seen.append(obs)
        if terminated or truncated:
            break
    return seen


@pytest.mark.parametrize("env_id", VARIANT_IDS)
def test_check_env_passes_for_every_variant_in_raw_mode(env_id: str) -> None:
    env = gym.make(env_id).unwrapped
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("env_id", [VARIANT_IDS[0], VARIANT_IDS[3]])
def test_check_env_passes_in_assisted_mode_with_dict_observations(env_id: str) -> None:
    env = gym.make(env_id, action_mode="assisted", observation="dict").unwrapped
    check_env(env, skip_render_check=True)
    assert env.action_masks().shape == (sum(act.ASSISTED_NVEC),)


@pytest.mark.filterwarnings("ignore:.*not having a spec:UserWarning")  # the class itself: no other modes
def test_check_env_passes_with_its_render_checks_on_a_machine_without_a_display(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `human` was offered everywhere: check_env made an env per offered mode and failed headless.
    monkeypatch.delenv("DISPLAY", raising=False)
    made = gym.make(VARIANT_IDS[0]).unwrapped
    assert made.metadata["render_modes"] == ["rgb_array", "ansi"]
    check_env(made)  # renders every offered mode through env.spec.make
    check_env(PyramidEnv("classic", render_mode="rgb_array"))  # the class itself: no spec, its own mode
    headless = r"render_mode='human' needs a display \(DISPLAY is not set\); use render_mode='rgb_array'"
    with pytest.raises(ValueError, match=headless):
        PyramidEnv(render_mode="human")
    with pytest.raises(ValueError, match=headless):  # not Gymnasium's pygame fallback: the class offers it
        gym.make(VARIANT_IDS[0], render_mode="human")
    monkeypatch.setenv("DISPLAY", ":0")
    has_tk = importlib.util.find_spec("tkinter") is not None
    assert ("human" in PyramidEnv().metadata["render_modes"]) == has_tk


def test_the_old_v0_ids_are_refused_naming_the_v1_id() -> None:
    for variant, env_id in piramida.envs.ENV_IDS.items():
        assert env_id.endswith("-v1")
        old = env_id.replace("-v1", "-v0")
        refusal = rf"^Environment version v0 for `.*` is deprecated\. Please use `{env_id}` instead\.$"
        out_of_date = pytest.warns(DeprecationWarning, match="upgrading to version `v1`")
        with out_of_date, pytest.raises(gym.error.DeprecatedEnv, match=refusal):
            gym.make(old)
        with pytest.warns(DeprecationWarning), pytest.raises(gym.error.DeprecatedEnv, match=env_id):
            gym.make_vec(old, num_envs=2, vectorization_mode="vector_entry_point")
        assert gym.spec(env_id).kwargs == {"variant": variant}


def test_the_spec_says_the_shot_limit_the_env_truncates_at_and_no_time_limit_is_added() -> None:
    assert gym.spec(VARIANT_IDS[0]).max_episode_steps is None  # else gym.make adds a TimeLimit
    default = gym.make(VARIANT_IDS[0])
    assert default.spec is not None and default.spec.max_episode_steps == core.Settings().shot_limit
    env = gym.make(VARIANT_IDS[0], shot_limit=3)
    assert env.spec is not None and env.spec.max_episode_steps == 3
    assert env.unwrapped.spec is not None and env.unwrapped.spec.max_episode_steps == 3
    assert not any(isinstance(layer, gym.wrappers.TimeLimit) for layer in _layers(env))
    vector = gym.make_vec(VARIANT_IDS[0], num_envs=2, vectorization_mode="vector_entry_point", shot_limit=5)
    assert vector.spec is not None and vector.spec.max_episode_steps == 5
    assert vector.spec.id == VARIANT_IDS[0]
    env.reset(seed=0)
    env.action_space.seed(0)
    for move in range(1, 4):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated:
            break
        assert truncated == (move == 3)


def _layers(env: gym.Env) -> list[gym.Env]:
    """The env and every wrapper around it, outermost first."""
    layers = [env]
    while isinstance(layers[-1], gym.Wrapper):
        layers.append(layers[-1].env)
    return layers


def _same_fields(reset: dict, step: dict, leading: tuple[int, ...]) -> None:
    """The two infos have the same keys, and each value the same shape and dtype."""
    assert set(reset) == set(step)
    for name, value in reset.items():
        assert np.shape(value) == np.shape(step[name]), name
        assert np.asarray(value).dtype == np.asarray(step[name]).dtype, name
    for name, (shape, _) in MOVE_INFO.items():
        assert np.shape(reset[name]) == (*leading, *shape) and not np.any(reset[name]), name


def test_reset_and_step_infos_have_the_same_keys_in_the_single_and_the_vector_env() -> None:
    env = gym.make(VARIANT_IDS[3]).unwrapped
    _, at_reset = env.reset(seed=1)
    _, _, _, _, at_step = env.step(env.action_space.sample())
    _same_fields(at_reset, at_step, ())
    envs = PyramidVectorEnv(3, variant="classic", shot_limit=5)
    _, at_reset = envs.reset(seed=1)
    _, _, _, _, at_step = envs.step(envs.action_space.sample())
    ended = {"final_obs", "_final_obs"}  # only on a step where a table's frame ended (Gymnasium's)
    _same_fields(at_reset, {k: v for k, v in at_step.items() if k not in ended}, (3,))


def test_the_menu_observation_is_the_trained_bots_view_of_the_slots_the_actions_pick() -> None:
    """Per slot of the assisted actions' menu, the features a policy scores."""
    from piramida.agents.menu import shot_menu
    from piramida.agents.slots import SLOT_SIZE, observe_slots
    from piramida.rules import state as st

    env = gym.make(
        "piramida/FreePyramid-v1", action_mode="assisted", observation="menu", noise="pro"
    ).unwrapped
    obs, _ = env.reset(seed=4)
    for _ in range(6):
        assert env.observation_space.contains(obs)
        assert obs["slots"].shape == (act.K, SLOT_SIZE) and obs["legal"].shape == (act.K,)
        states = env.core.states
        one = jax_take_first(states)
        view = observe_slots(one, shot_menu(one, act.MENU), LEVELS["pro"], act.MENU)
        np.testing.assert_allclose(obs["slots"], np.asarray(view.slots[0]), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(obs["legal"] > 0.5, np.asarray(view.legal[0]))
        if int(states.phase[0]) in (st.NORMAL, st.IN_HAND) and obs["legal"].any():
            # The slots the menu holds are the slots the action mask allows.
            np.testing.assert_array_equal(env.action_masks()[: act.K], obs["legal"] > 0.5)
        slot = int(np.flatnonzero(env.action_masks()[: act.K])[0])
        obs, *_ = env.step(np.array([slot, 10, 4, 2, 2]))


def jax_take_first(states: object) -> object:
    """Table 0 of a padded batch of states, as a batch of one."""
    import jax

    return jax.tree_util.tree_map(lambda x: x[:1], states)


def test_the_same_seed_gives_the_same_game_and_another_seed_another() -> None:
    env = gym.make("piramida/CombinedPyramid-v1", opponent="greedy", noise="pro")
    first, again = _play(env, 11, 6), _play(env, 11, 6)
    other = _play(env, 12, 6)
    assert len(first) == len(again)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other, strict=False))


def test_observations_stay_in_their_box_over_a_game() -> None:
    env = gym.make("piramida/ClassicPyramid-v1", shot_limit=30)
    for obs in _play(env, 5, 30):
        assert obs.shape == (encoding.FLAT_SIZE,)
        assert env.observation_space.contains(obs)


def test_assisted_masks_allow_only_decoded_legal_choices() -> None:
    env = gym.make("piramida/FreePyramid-v1", action_mode="assisted", opponent="random").unwrapped
    env.reset(seed=2)
    for _ in range(8):
        mask = env.action_masks()
        slots = mask[: act.K]
        assert slots.any()
        rng = np.random.default_rng(0)
        action = np.array([rng.choice(np.flatnonzero(slots)), 10, 5, 2, 2])
        _, _, terminated, truncated, info = env.step(action)
        # A masked-legal action is never refused by the referee (verdict.invalid == 0).
        assert info["invalid"] == 0 and info["decision_invalid"] == 0
        if terminated or truncated:
            break


def test_vector_env_steps_every_table_and_resets_ended_frames_in_the_same_step() -> None:
    envs = gym.make_vec(
        "piramida/DynamicPyramid-v1", num_envs=6, vectorization_mode="vector_entry_point", shot_limit=2
    )
    assert isinstance(envs.unwrapped, PyramidVectorEnv)
    obs, info = envs.reset(seed=4)
    assert obs.shape == (6, encoding.FLAT_SIZE) and obs.dtype == np.float32
    envs.action_space.seed(4)
    ended = np.zeros(6, bool)
    for _ in range(3):
        obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
        assert reward.shape == terminated.shape == truncated.shape == (6,)
        assert set(info) >= {"legal", "fouls", "points", "score"}
        done = terminated | truncated
        if done.any():
            assert info["_final_obs"].tolist() == done.tolist()
            assert info["final_obs"].shape == (6, encoding.FLAT_SIZE)
            # The returned observation is the fresh frame's, the final one is kept aside.
            assert np.any(info["final_obs"][done] != obs[done], axis=1).all()
            assert (envs.unwrapped.core.learner_moves[done] == 0).all()
        ended |= done
    assert ended.all(), "shot_limit=2 truncates every frame by the second learner move"


def test_a_batch_played_in_chunks_is_the_batches_of_its_chunks_played_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Above `chunk_limit()` tables the env plays chunks one after another with the programs of
    # one chunk; each table's game depends on its own seed and actions only, so 16 tables in
    # chunks of 8 are two 8-table envs, bit for bit: restarts, infos, masks, a checkpoint's views.
    seeds = list(range(100, 116))
    options: dict = {"variant": "combined", "action_mode": "assisted", "shot_limit": 3}
    monkeypatch.setattr(tables, "chunk_limit", lambda: 8)
    whole = PyramidVectorEnv(num_envs=16, **options)
    assert (whole.core.chunk, whole.core.size) == (8, 16)
    halves = [PyramidVectorEnv(num_envs=8, **options) for _ in range(2)]

    def joined(results: list) -> object:
        return jax.tree_util.tree_map(lambda *xs: np.concatenate(xs), *results)

    def same(a: object, b: object) -> None:
        jax.tree_util.tree_map(np.testing.assert_array_equal, a, b)

    same(
        whole.reset(seed=seeds),
        joined([h.reset(seed=seeds[8 * k : 8 * k + 8]) for k, h in enumerate(halves)]),
    )
    whole.action_space.seed(3)
    ended = 0
    for _ in range(4):
        masks = whole.action_masks()
        same(masks, np.concatenate([h.action_masks() for h in halves]))
        actions = whole.action_space.sample()
        actions[:, 0] = np.argmax(masks[:, : act.K], axis=1)  # a legal slot, where there is one
        out = whole.step(actions)
        apart = joined([h.step(actions[8 * k : 8 * k + 8]) for k, h in enumerate(halves)])
        same(out[:4], apart[:4])
        assert set(out[4]) == set(apart[4])
        same(out[4], apart[4])
        ended += int((out[2] | out[3]).sum())
    assert ended > 0  # a shot limit of 3: frames restarted within the steps
    same(whole.core.learner_moves, np.concatenate([h.core.learner_moves for h in halves]))
    same(whole.core.keys, np.concatenate([np.asarray(h.core.keys) for h in halves]))
    games, moves = whole.core.states, whole.core.learner_moves
    whole.core.states, whole.core.learner_moves = games, moves  # what a resumed run sets: split again
    same(whole.core.states, games)


def test_reward_is_the_score_difference_and_the_win_reward() -> None:
    env = gym.make("piramida/FreePyramid-v1", opponent="greedy", win_reward=5.0).unwrapped
    env.reset(seed=9)
    total = 0.0
    for _ in range(200):
        _, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        if terminated or truncated:
            break
    score = info["score"]
    expected = float(score[0] - score[1])
    if terminated:
        expected += 5.0 if info["winner"] == 0 else -5.0
    assert total == pytest.approx(expected)


def test_rgb_and_ansi_rendering_show_the_table() -> None:
    env = gym.make("piramida/ClassicPyramid-v1", render_mode="rgb_array")
    env.reset(seed=1)
    env.step(env.action_space.sample())
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    assert image.std() > 10  # a picture, not a blank canvas
    text = gym.make("piramida/ClassicPyramid-v1", render_mode="ansi")
    text.reset(seed=1)
    assert "classic" in text.render() and "ball  0 (coloured)" in text.render()


def test_the_rendered_shot_is_the_learners_shot_replayed_bit_for_bit() -> None:
    # The renderer replays the learner's last move as struck (after the noise) through
    # `rules.game.play` with no noise: the same shot, so the same verdict to the last bit.
    env = PyramidEnv("free", noise="amateur", render_mode="rgb_array")
    env.reset(seed=3)
    action = env.action_space.sample()
    env.step(action)
    last = env.core.last
    assert last is not None and bool(np.asarray(last.shot)[0])
    actions = jnp.asarray(np.repeat(np.asarray(action)[None], env.core.size, axis=0))
    intended = core.decode_moves(last.before, actions, env.settings.action_mode)
    assert float(np.asarray(last.as_struck.phi)[0]) != float(np.asarray(intended.phi)[0])  # noise applied
    keys = np.zeros((env.core.size, 2), np.uint32)
    _, replayed = play(last.before, last.as_struck, keys, 0.0, record=True)
    assert last.verdict.cited is None  # the envs' record leaves the rule ids out
    same = jax.tree_util.tree_map(
        lambda a, b: bool(np.array_equal(np.asarray(a)[0], np.asarray(b)[0])),
        dataclasses.replace(replayed.verdict, cited=None),
        last.verdict,
    )
    assert all(jax.tree_util.tree_leaves(same)), same
    assert env.render().std() > 10


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"variant": "snooker"}, "variant"),
        ({"action_mode": "joystick"}, "action_mode"),
        ({"observation": "pixels"}, "observation"),
        ({"noise": "legend"}, "noise"),
        ({"noise": -1.0}, "noise"),
        ({"shot_limit": 0}, "shot_limit"),
        ({"opponent": "grandmaster"}, "unknown bot 'grandmaster'"),
        ({"render_mode": "movie"}, "render_mode"),
        ({"colour": "red"}, "unknown option"),
    ],
)
def test_bad_settings_get_an_error_naming_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        gym.make("piramida/FreePyramid-v1", **{"variant": "free", **kwargs})


def test_an_action_outside_the_space_is_refused() -> None:
    env = gym.make("piramida/FreePyramid-v1").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(np.full(act.RAW_SIZE, 3.0, np.float32))


def test_a_vector_env_names_the_table_whose_action_is_nan_and_a_wrong_shape_as_such() -> None:
    # NaN actions of the right shape were refused with "expected an array in Box(..., (2, 5)),
    # got shape (2, 5)": the right shape quoted as the wrong one.
    envs = PyramidVectorEnv(2, variant="free")
    envs.reset(seed=0)
    actions = np.zeros((2, act.RAW_SIZE), np.float32)
    actions[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^actions: table 1's action \[.*nan.*\] is outside Box\("):
        envs.step(actions)
    with pytest.raises(
        ValueError, match=rf"^actions: expected shape \(2, {act.RAW_SIZE}\), got \(3, {act.RAW_SIZE}\)$"
    ):
        envs.step(np.zeros((3, act.RAW_SIZE), np.float32))


def test_reset_refuses_options_rather_than_ignoring_them() -> None:
    # `reset(options={"variant": "classic"})` reset a Free frame, saying nothing. (The PettingZoo
    # env takes any: PettingZoo's own API test resets it with options of its own.)
    for env in (gym.make("piramida/FreePyramid-v1").unwrapped, PyramidVectorEnv(2)):
        with pytest.raises(
            ValueError, match=r"^reset: unknown option\(s\) \['variant'\]; this env takes none"
        ):
            env.reset(seed=0, options={"variant": "classic"})
        env.reset(seed=0, options={})


def test_self_play_needs_a_policy_and_then_plays_both_sides() -> None:
    env = gym.make("piramida/FreePyramid-v1", opponent="self").unwrapped
    calls: list[int] = []

    def policy(observations: np.ndarray) -> np.ndarray:
        calls.append(len(observations))
        return np.zeros((len(observations), act.RAW_SIZE), np.float32)

    with pytest.raises(RuntimeError, match="set_opponent_policy"):
        for seed in range(4):  # a seed where the opponent breaks first needs the policy at once
            env.reset(seed=seed)
            env.step(np.zeros(act.RAW_SIZE, np.float32))
    env.set_opponent_policy(policy)
    env.reset(seed=0)
    for _ in range(3):
        env.step(np.zeros(act.RAW_SIZE, np.float32))
    assert calls, "the opponent's moves went through the policy"


def test_installed_hook_registers_the_ids_when_gymnasium_is_imported_with_no_piramida_import() -> None:
    # A regular install puts piramida-gymnasium.pth in site-packages; it runs exactly this import
    # at start-up (an editable install does not process .pth files, so the test runs it itself).
    assert Path("piramida-gymnasium.pth").read_text().strip() == "import piramida_gymnasium_hook"
    code = (
        "import sys, piramida_gymnasium_hook, gymnasium as gym\n"
        "spec = gym.spec('piramida/DynamicPyramid-v1')\n"
        "assert 'jax' not in sys.modules  # registered lazily: nothing heavy imported\n"
        "print(spec.entry_point, spec.vector_entry_point, spec.kwargs)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "PyramidEnv" in out.stdout and "PyramidVectorEnv" in out.stdout and "dynamic" in out.stdout


@pytest.mark.slow
@pytest.mark.xdist_group("search-bot")  # tests/agents/test_agents.py, SEARCH_GROUP
def test_the_search_bot_plays_as_an_opponent_planning_for_the_env_noise() -> None:
    env = gym.make("piramida/FreePyramid-v1", opponent="search", noise="pro").unwrapped
    bot = env.core.opponent.__self__
    assert isinstance(bot, SearchAgent) and bot.magnitude == LEVELS["pro"]
    env.reset(seed=3)
    shots = int(env.core.states.shots[0])
    _, _, terminated, _, _ = env.step(env.action_space.sample())
    assert terminated or int(env.core.states.shots[0]) > shots  # the learner shot, then the bot replied


@pytest.mark.parametrize("on_device", [True, False])
def test_an_opponent_policy_gets_jax_arrays_only_when_it_asks(on_device: bool) -> None:
    import jax
    import jax.numpy as jnp

    from piramida.envs import core
    from piramida.envs.opponents import ObservationOpponent
    from piramida.rules import ids
    from piramida.rules import state as st

    seen: list[object] = []

    def policy(observations: object) -> object:
        seen.append(observations)
        return np.zeros((2, 11), np.float32)

    policy.on_device = on_device  # type: ignore[attr-defined]  # as jax-ppo's SavedPolicy says
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    states = st.new_games(jnp.asarray([ids.FREE] * 2), keys, jnp.zeros(2, jnp.int32))
    moves = ObservationOpponent(core.Settings(), policy)(states, keys)
    assert isinstance(seen[0], jax.Array if on_device else np.ndarray) and moves.ball.shape == (2,)
