"""Matches between bots (`evaluation.arena`) and the option lists of the match scripts."""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.agents import GreedyAgent, RandomAgent
from piramida.evaluation.arena import bucket, head_to_head, jitter_racks
from piramida.evaluation.settings import parse_noise, parse_variants
from piramida.physics.noise import LEVELS
from piramida.rules import ids
from piramida.rules import state as st

R = st.DEFAULT_DIMS.R


def test_bucket_pads_to_the_next_quarter_of_the_batch_in_multiples_of_the_envs_batch() -> None:
    # 200 / 4 = 50 tables, rounded up to core.PAD = 8: 56.
    counts = (1, 56, 57, 112, 113, 168, 169, 200)
    assert [bucket(n, 200) for n in counts] == [56, 56, 112, 112, 168, 168, 200, 200]
    assert [bucket(n, 8, buckets=1) for n in (1, 8)] == [8, 8]
    assert [bucket(n, 3) for n in (1, 3)] == [8, 8]  # an env's batch: a multiple of 8


def test_settings_lists_are_checked() -> None:
    assert parse_variants("all") == [0, 1, 2, 3]
    assert parse_variants("classic, free") == [ids.CLASSIC, ids.FREE]
    assert parse_noise("none,pro,amateur,0.3") == [0.0, LEVELS["pro"], LEVELS["amateur"], 0.3]
    for bad, parse, words in [
        ("snooker", parse_variants, "unknown variant 'snooker'"),
        ("", parse_variants, "empty variant list"),
        ("expert", parse_noise, "unknown level 'expert'"),
        ("-0.1", parse_noise, "must be a number >= 0"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=words):
            parse(bad)


def test_jittered_racks_differ_by_a_hair_and_never_overlap() -> None:
    games = 6
    variants = jnp.asarray([ids.FREE, ids.CLASSIC] * 3, jnp.int32)
    states = st.new_games(variants, jax.random.split(jax.random.PRNGKey(0), games), jnp.zeros(games))
    moved = jitter_racks(states, jax.random.PRNGKey(1))
    on = np.asarray(states.on_table)
    before, after = np.asarray(states.positions), np.asarray(moved.positions)
    shift = np.linalg.norm(after - before, axis=-1)[on]
    assert 0.0 < shift.max() < 1e-3  # under a millimetre
    assert not np.allclose(after[0], after[2])  # same variant, different racks
    for k in range(games):
        xy = after[k][on[k]]
        gaps = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(len(xy))
        assert gaps.min() >= 2 * R - 1e-12
    assert np.array_equal(np.asarray(moved.on_table), on)


def test_head_to_head_counts_every_frame_and_shot() -> None:
    games = 8
    result = head_to_head((("greedy", GreedyAgent()), ("random", RandomAgent())), ids.FREE, 0.15, games, 6, 0)
    assert result["agents"] == ["greedy", "random"]
    assert sum(result["wins"].values()) + result["draws"] + result["unfinished"] == games
    assert result["steps"] <= 6
    bots = result["bots"]
    # Every step is one move per live table: a judged shot, a refused one, or a decision.
    moves = sum(b["shots"] + b["invalid"] + b["decisions"] for b in bots.values())
    assert 0 < moves <= games * result["steps"]
    assert bots["greedy"]["shots"] > 0 and bots["random"]["shots"] > 0
    assert bots["greedy"]["pot_rate"] > bots["random"]["pot_rate"]
    again = head_to_head((("greedy", GreedyAgent()), ("random", RandomAgent())), ids.FREE, 0.15, games, 6, 0)
    assert again["wins"] == result["wins"] and again["bots"]["random"]["shots"] == bots["random"]["shots"]
