"""What each variant makes of a shot: scoring, respotting, the turn, fouls' consequences.

The shared facts of the shot (contact, break and G20 legality, pocketed and jumped balls,
the fouls) are worked out once by `referee.adjudicate` into a `Context`; each variant
then rules with its own function (`free`, `combined`, `dynamic`, `classic`), following
docs/rules/specification.md Part IV's tables row by row. All four return a `Ruling` of the same shape,
so a batch may mix variants: the referee picks each table's ruling by its variant.
Everything is JAX on one table, no Python branching on values.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.verdict import Cites

BALLS = np.arange(ids.N_BALLS)  # numpy: canonicalised to the caller's int width where it is used
# CLS-5.1: a ball scores its number, ball 1 scores 11 (ball 0 is the own ball, never scored).
CLASSIC_VALUES = np.asarray([0, 11, *range(2, 16)], np.int32)
CLASSIC_LAST_BALL_BONUS = 10  # CLS-5.1, A-14: on top of the last ball's own value
CLASSIC_FOUL_POINTS = 5  # CLS-5.6


class Context(NamedTuple):
    """The facts of one shot every variant rules on (one table)."""

    state: st.GameState
    shooter: Any
    opponent: Any
    own: Any  # the struck ball
    own_mask: Any  # (16,)
    objects: Any  # (16,) object balls on the table at shot start (G4.4)
    pocketed: Any  # (16,)
    pocket_of: Any  # (16,) pocket id or -1
    jumped: Any  # (16,) G24.1, G24.2
    is_break: Any
    failed_break: Any  # G12.1 not met (A-21: G12.2's options follow)
    foul_in_shot: Any  # a rule broken between the start and the end of the shot (G22.3)
    late: Any  # a declared foul after the shot ended (G22.3 second sentence)
    left_on: Any  # (16,) on the table after the shot, before any respot
    last_pocketed: Any  # the ball pocketed last in this shot, or -1
    lot: Any  # a fair coin for the CLS-5.7 lot

    @property
    def gone(self) -> Any:
        """(16,) balls that left the bed (pocketed or jumped)."""
        return self.pocketed | self.jumped

    @property
    def own_pocketed(self) -> Any:
        """The own ball fell into a pocket."""
        return jnp.any(self.pocketed & self.own_mask)

    @property
    def own_gone(self) -> Any:
        """The own ball is pocketed or off the table."""
        return jnp.any(self.gone & self.own_mask)


class Ruling(NamedTuple):
    """One variant's ruling on a shot (one table); `referee` turns it into state and verdict."""

    scored: Any  # (16,) to the shooter's shelf
    points: Any  # (2,) score change from the shot
    respot: Any  # (16,) balls to spot (G25)
    to_hand: Any  # (16,) the own ball to hand
    unshelve: Any  # (16,) a shelf ball put back on the table (CLS-5.7)
    penalty: Any  # () a penalty is imposed (one, G29.2)
    turn: Any  # () who moves next
    phase: Any
    region: Any  # the from-hand region, now or after the pending decision
    decision: Any
    options: Any
    late_penalty: Any  # () a late foul's penalty waits behind the pending exchange (G22.3)
    object_only: Any
    playoff: Any
    winner: Any  # -1 while the frame goes on
    cited: Any  # (len(RULE_IDS),)


def _pick(cases: list[tuple[Any, Any]], default: Any) -> Any:
    """The value of the first case whose condition holds (like `jnp.select`, for scalars)."""
    out = jnp.asarray(default)
    for condition, value in reversed(cases):
        out = jnp.where(condition, value, out)
    return out


def _shelf_total(ctx: Context, scored: Any) -> Any:
    """Balls on the shooter's shelf after this shot's legal pots."""
    return jnp.sum(ctx.state.shelf == ctx.shooter) + jnp.sum(scored)


def _points_to(player: Any, amount: Any) -> Any:
    return jnp.where(jnp.arange(2) == player, amount, 0).astype(jnp.int32)


def _common_cites(cite: Cites, ctx: Context, penalty: Any, foul_shot: Any, legal_pot: Any) -> None:
    """The general rules every variant cites; `legal_pot`: some ball was pocketed legally (G22.1)."""
    cite("G22.3", foul_shot & jnp.any(ctx.pocketed))  # every ball of a foul shot is illegal
    cite("G22.4", foul_shot & jnp.any(ctx.pocketed))
    cite("G24.4", jnp.any(ctx.jumped))
    cite("G25.1", foul_shot & jnp.any(ctx.gone))
    cite("G29.2", penalty)  # one penalty, however many rules were broken
    cite("G22.1", legal_pot)
    cite("G22.2", legal_pot)


def _late_penalty(ctx: Context, won: Any, cite: Cites) -> Any:
    """A late foul draws a penalty unless the shot decided the frame (G22.3-N, A-31)."""
    cite("G22.3", ctx.late & ~won)
    cite("G22.3-N", ctx.late & won)
    cite("A-31", ctx.late & won)
    return ctx.late & ~won


def _penalty_decision(ctx: Context, normal_kind: Any, normal_options: Any, cite: Cites) -> tuple[Any, Any]:
    """The decision after a foul: G12.2's four options after a failed break (A-21)."""
    cite("G12.2", ctx.failed_break)
    kind = jnp.where(ctx.failed_break, st.G12_2, normal_kind)
    options = jnp.where(ctx.failed_break, 0b1111, normal_options)
    return kind, options


def free(ctx: Context) -> Ruling:
    """FREE PYRAMID (docs/rules/specification.md IV.2)."""
    cite = Cites()
    foul_shot = ctx.foul_in_shot
    # FREE-5.4, FREE-5.5: on a legal shot every ball that fell counts, the own ball too.
    scored = ctx.pocketed & ~foul_shot
    count = jnp.sum(scored)
    won = _shelf_total(ctx, scored) >= st.FREE_TARGET  # FREE-1 (A-13: shelf count)
    penalty = foul_shot | _late_penalty(ctx, won, cite)
    # G22.3, G24.4, FREE-8, A-30: after a foul every pocketed or jumped ball is spotted,
    # the coloured ball and the ball just used as the own ball included.
    respot = ctx.gone & foul_shot
    kind, options = _penalty_decision(ctx, st.G6, 0b11, cite)
    turn = _pick([(won, ctx.shooter), (penalty, ctx.opponent), (count > 0, ctx.shooter)], ctx.opponent)
    phase = _pick([(won, st.OVER), (penalty, st.DECISION)], st.NORMAL)
    _common_cites(cite, ctx, penalty, foul_shot, ~foul_shot & jnp.any(ctx.pocketed))
    cite("FREE-5.4", ~foul_shot & ctx.own_pocketed)
    cite("FREE-5.5", ~foul_shot & (count > 0))
    cite("FREE-6", (~foul_shot & (count > 0)) | penalty)
    cite("FREE-5.2", ~penalty & ~won & (count > 0))
    cite("FREE-5.3", ~penalty & ~won & (count == 0))
    cite("FREE-5.3", penalty)
    cite("FREE-6", penalty)
    cite("FREE-7", penalty)
    cite("FREE-8", respot.any())
    cite("G6", penalty & ~ctx.failed_break)
    cite("A-13", penalty | won)
    cite("FREE-1", won)
    return Ruling(
        scored=scored,
        points=_points_to(ctx.shooter, count),
        respot=respot,
        to_hand=jnp.zeros(ids.N_BALLS, bool),
        unshelve=jnp.zeros(ids.N_BALLS, bool),
        penalty=penalty,
        turn=turn,
        phase=phase,
        region=jnp.int32(ids.HOUSE),
        decision=jnp.where(penalty & ~won, kind, st.NO_DECISION),
        options=jnp.where(penalty & ~won, options, 0),
        late_penalty=jnp.bool_(False),
        object_only=jnp.bool_(False),
        playoff=jnp.bool_(False),
        winner=jnp.where(won, ctx.shooter, -1),
        cited=cite.array(),
    )


def _exchange_variant(ctx: Context, dynamic: bool) -> Ruling:
    """COMBINED and DYNAMIC PYRAMID (IV.3, IV.4): the coloured ball is the own ball."""
    name = "DYN" if dynamic else "COMB"
    cite = Cites()
    foul_shot = ctx.foul_in_shot
    # COMB-6 / DYN-6, A-09: object balls legally pocketed score one each; the own ball never.
    scored = ctx.pocketed & ctx.objects & ~foul_shot
    count = jnp.sum(scored)
    won = _shelf_total(ctx, scored) >= st.FREE_TARGET  # COMB-1, DYN-1
    respot = ctx.gone & ctx.objects & foul_shot  # G22.3, G24.4, COMB-8 / DYN-8
    # The own ball is never spotted: it goes to hand (COMB-5.2, COMB-7, DYN-5.2, A-11, A-30).
    to_hand = ctx.own_mask & ctx.gone
    # G22.3: a foul after the shot's end leaves the own ball legally pocketed, exchange and all.
    own_pot = ctx.own_pocketed & ~foul_shot
    own_foul = ctx.own_gone & foul_shot  # COMB-7: "įmuštas neteisingai ar iššoko"
    restricted = ctx.state.object_only if dynamic else jnp.bool_(False)
    # DYN-5.2, A-10(3): on the restricted shot the own ball falls without counting or a
    # foul; the turn passes and the opponent plays from hand anywhere.
    free_fall = own_pot & restricted
    exchange = own_pot & ~restricted & jnp.any(ctx.left_on & ctx.objects)
    # G22.3-N, A-31: an exchange ball that is the shooter's eighth decides the frame too.
    decisive = won | (exchange & (_shelf_total(ctx, scored) + 1 >= st.FREE_TARGET))
    penalty = foul_shot | _late_penalty(ctx, decisive, cite)
    hand_now = own_pot & ~restricted & ~exchange  # nothing left to take
    region = ids.ANYWHERE if dynamic else ids.HOUSE  # DYN-5.2 / DYN-7(2); G21.1, G11
    if dynamic:
        # DYN-7: option (1) needs the own ball on the table, option (2) always.
        normal_kind = jnp.int32(st.DYN7)
        normal_options = jnp.where(ctx.own_gone, 0b10, 0b11)
    else:
        # COMB-7, A-12: after an own-ball foul only the penalty ball and a shot from the
        # house; otherwise the penalty ball and G6's choice.
        normal_kind = jnp.where(own_foul, st.PENALTY_BALL, st.G6)
        normal_options = jnp.where(own_foul, 0, 0b11)
    kind, options = _penalty_decision(ctx, normal_kind, normal_options, cite)
    # A late penalty waits behind the exchange: the shooter takes his ball first (`decisions`).
    decision = _pick([(won, st.NO_DECISION), (exchange, st.EXCHANGE), (penalty, kind)], st.NO_DECISION)
    continues = (count > 0) & ~free_fall
    turn = _pick(
        [
            (won | exchange, ctx.shooter),
            (penalty, ctx.opponent),
            (free_fall, ctx.opponent),
            (own_pot, ctx.shooter),
        ],
        jnp.where(continues, ctx.shooter, ctx.opponent),
    )
    phase = _pick(
        [(won, st.OVER), (penalty | exchange, st.DECISION), (free_fall | hand_now, st.IN_HAND)], st.NORMAL
    )
    _common_cites(cite, ctx, penalty, foul_shot, ~foul_shot & jnp.any(ctx.pocketed))
    cite(f"{name}-5.1", ~foul_shot & jnp.any(ctx.pocketed))
    cite(f"{name}-5.3", ~foul_shot & (count > 0))
    cite(f"{name}-6", (~foul_shot & (count > 0)) | penalty)
    cite("A-32", ~penalty & ~won & ~own_pot)
    cite(f"{name}-5.2", own_pot)
    cite("A-09", own_pot)
    cite(f"{name}-7", penalty)
    cite(f"{name}-8", respot.any())
    cite("A-13", penalty | won)
    cite(f"{name}-1", won)
    cite("A-30", own_foul)
    if dynamic:
        cite("A-10", free_fall | (restricted & ~penalty))
        cite("A-11", penalty & ~ctx.failed_break)
    else:
        cite("G21.1", own_pot | own_foul)
        cite("A-12", own_foul & ~ctx.failed_break)
        cite("G6", penalty & ~own_foul & ~ctx.failed_break)
    return Ruling(
        scored=scored,
        points=_points_to(ctx.shooter, count),
        respot=respot,
        to_hand=to_hand,
        unshelve=jnp.zeros(ids.N_BALLS, bool),
        penalty=penalty,
        turn=turn,
        phase=phase,
        region=jnp.int32(region),
        decision=decision,
        options=jnp.where(decision == kind, options, 0),
        late_penalty=exchange & penalty & ~won,
        object_only=jnp.bool_(False),
        playoff=jnp.bool_(False),
        winner=jnp.where(won, ctx.shooter, -1),
        cited=cite.array(),
    )


def combined(ctx: Context) -> Ruling:
    """COMBINED PYRAMID (docs/rules/specification.md IV.3)."""
    return _exchange_variant(ctx, dynamic=False)


def dynamic(ctx: Context) -> Ruling:
    """DYNAMIC PYRAMID (docs/rules/specification.md IV.4)."""
    return _exchange_variant(ctx, dynamic=True)


def classic(ctx: Context) -> Ruling:
    """CLASSIC PYRAMID (docs/rules/specification.md IV.5)."""
    cite = Cites()
    s = ctx.state
    foul_shot = ctx.foul_in_shot
    call_ok = (s.call_ball >= 0) & (s.call_pocket >= 0)
    call_ball = jnp.maximum(s.call_ball, 0)
    # CLS-5.2, CLS-5.3, A-33: the shot scores when the called ball fell into the called pocket.
    called = call_ok & ctx.pocketed[call_ball] & (ctx.pocket_of[call_ball] == s.call_pocket)
    scoring = called & ~foul_shot
    scored = ctx.pocketed & ctx.objects & scoring
    uncalled = ctx.pocketed & ctx.objects & ~foul_shot & ~called  # CLS-5.4
    # CLS-6: illegally pocketed, uncalled and jumped object balls are spotted.
    returning = (ctx.gone & ctx.objects & foul_shot) | uncalled
    # Whether an object ball is left counts the balls this shot spots again: an uncalled
    # last ball comes back and play goes on (CLS-5.4); the frame is won at 71 (CLS-1).
    table_cleared = ~jnp.any((ctx.left_on | returning) & ctx.objects)
    # CLS-5.1, A-14: the ball's number (ball 1: 11), plus 10 for the last ball on the table.
    bonus = jnp.where(jnp.any(scored) & table_cleared, CLASSIC_LAST_BALL_BONUS, 0)
    value = jnp.sum(jnp.where(scored, CLASSIC_VALUES, 0)) + bonus
    after_pots = s.score + _points_to(ctx.shooter, value)
    won_by_pot = after_pots[ctx.shooter] >= st.CLASSIC_TARGET
    penalty = foul_shot | _late_penalty(ctx, won_by_pot, cite)
    # CLS-5.6: 5 points from the offender to the opponent (negative scores allowed, A-15).
    fine = _points_to(ctx.opponent, CLASSIC_FOUL_POINTS) - _points_to(ctx.shooter, CLASSIC_FOUL_POINTS)
    points = _points_to(ctx.shooter, value) + jnp.where(penalty, fine, 0)
    score = s.score + points
    reached = score >= st.CLASSIC_TARGET
    won = jnp.any(reached)  # CLS-1: 71 or more, points from a foul included
    winner = jnp.where(won, jnp.argmax(reached), -1)
    # CLS-5.7, A-15: 70:70 (only possible once every ball is pocketed): the last pocketed
    # ball goes back on the back spot, a lot decides who plays, from hand in the house.
    tie = ~won & jnp.all(score == st.CLASSIC_TIE) & table_cleared & ~penalty
    # Defensive: an empty table without 71 or a tie cannot happen (140 points in all).
    stuck = ~won & ~tie & table_cleared & ~penalty
    winner = jnp.where(stuck, jnp.argmax(score), winner)
    won = won | stuck
    last = jnp.where(ctx.last_pocketed >= 0, ctx.last_pocketed, s.last_pocketed)
    unshelve = tie & (last == BALLS)
    respot = returning | unshelve
    own_out = ctx.own_gone  # CLS-5.5: always a foul
    to_hand = ctx.own_mask & (own_out | tie)
    kind, options = _penalty_decision(ctx, st.G6, 0b11, cite)
    g6 = penalty & ~own_out  # G6 without a penalty ball
    decision = jnp.where(~won & ~tie & (g6 | (penalty & ctx.failed_break)), kind, st.NO_DECISION)
    lot_player = jnp.where(ctx.lot, 1, 0)
    turn = _pick(
        [
            (won, ctx.shooter),
            (tie, lot_player),
            (penalty, ctx.opponent),
            (jnp.any(scored), ctx.shooter),
        ],
        ctx.opponent,
    )
    phase = _pick(
        [
            (won, st.OVER),
            (tie, st.IN_HAND),
            (decision != st.NO_DECISION, st.DECISION),
            (penalty & own_out, st.IN_HAND),
        ],
        st.NORMAL,
    )
    _common_cites(cite, ctx, penalty, foul_shot, jnp.any(scored))
    cite("CLS-5.2", call_ok | jnp.any(ctx.pocketed & ctx.objects))
    cite("A-33", jnp.any(ctx.pocketed & ctx.objects) & ~called)
    cite("CLS-5.3", scoring)
    cite("CLS-5.1", jnp.any(scored))
    cite("A-14", bonus > 0)
    cite("CLS-5.4", jnp.any(uncalled))
    cite("CLS-6", jnp.any(respot & ~unshelve))
    cite("A-32", ~penalty & ~won & ~tie)
    cite("CLS-5.6", penalty)
    cite("CLS-5.5", own_out)
    cite("G21.1", penalty & own_out & ~won)
    cite("A-05", g6 & ~won)
    cite("G6", g6 & ~won & ~ctx.failed_break)
    cite("CLS-1", won)
    cite("CLS-5.7", tie | s.playoff)
    cite("A-15", tie | (s.playoff & won))
    return Ruling(
        scored=scored,
        points=points.astype(jnp.int32),
        respot=respot,
        to_hand=to_hand,
        unshelve=unshelve,
        penalty=penalty,
        turn=turn,
        phase=phase,
        region=jnp.int32(ids.HOUSE),
        decision=decision,
        options=jnp.where(decision != st.NO_DECISION, options, 0),
        late_penalty=jnp.bool_(False),
        object_only=jnp.bool_(False),
        playoff=(s.playoff | tie) & ~won,
        winner=winner,
        cited=cite.array(),
    )


RULINGS = (free, combined, dynamic, classic)  # indexed by `ids.FREE` ... `ids.CLASSIC`


def rule(ctx: Context) -> Ruling:
    """The outcome for the table's variant (all four are computed; one is kept)."""
    outcomes = [f(ctx) for f in RULINGS]
    variant = jnp.clip(ctx.state.variant, 0, len(RULINGS) - 1)
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs])[variant], *outcomes)
