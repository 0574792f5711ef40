"""Ball, cloth, cushion and cue constants, and the models that use them.

Constants and state are separate (STYLE habit 2): `PhysicsParams` is a pytree of floats
passed next to the ball state, so domain randomisation is a `vmap` over params. The
model choice is static (`Models`): each model compiles to different code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

import jax

from piramida.physics.fields import shown

BallBallModel = Literal["frictional_inelastic", "frictionless_elastic"]
CushionModel = Literal["han_2005", "stronge_compliant"]
CushionContact = Literal["nose", "equator"]

BALL_BALL_MODELS: tuple[str, ...] = ("frictional_inelastic", "frictionless_elastic")
CUSHION_MODELS: tuple[str, ...] = ("han_2005", "stronge_compliant")
CUSHION_CONTACTS: tuple[str, ...] = ("nose", "equator")


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class PhysicsParams:
    """Physical constants of balls, cloth, cushions and cue (SI units).

    Attributes:
        R: ball radius (m).
        m: ball mass (kg).
        u_s: ball-cloth sliding friction.
        u_r: ball-cloth rolling resistance.
        u_sp: ball-cloth spinning friction (absolute; pooltool stores u_sp / R).
        e_b: ball-ball restitution.
        u_b: ball-ball friction (the `frictional_inelastic` model's constant-friction
            variant; the default Alciatore fit ignores it).
        e_c: ball-cushion restitution.
        f_c: ball-cushion friction.
        g: gravity (m/s^2).
        cue_mass: mass of the cue (kg), for the strike model.

    """

    R: Any = 0.034
    m: Any = 0.285
    u_s: Any = 0.2
    u_r: Any = 0.01
    u_sp: Any = 0.0151
    e_b: Any = 0.95
    u_b: Any = 0.05
    e_c: Any = 0.85
    f_c: Any = 0.2
    g: Any = 9.81
    cue_mass: Any = 0.7

    def replace(self, **changes: Any) -> PhysicsParams:
        """A copy with some constants changed."""
        return dataclasses.replace(self, **changes)


PARAM_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(PhysicsParams))

# The Russian pyramid preset. Figures from docs/rules/specification.md Part V (S14-S16)
# where the rules' sources give one, otherwise the literature the value comes from.
PYRAMID_PARAMS = PhysicsParams(
    R=0.034,  # 68 mm ball (S15; S14 gives 68-68.5 mm)
    m=0.285,  # about 285 g (S14)
    u_s=0.2,  # sliding friction on cloth: Han 2005; pooltool's default
    u_r=0.01,  # rolling resistance: Leckie & Greenspan 2005; pooltool's default
    # spinning friction: pooltool's u_sp / R = 10 * 2 / 5 / 9 (= 0.444) times R
    u_sp=(10 * 2 / 5 / 9) * 0.034,
    e_b=0.95,  # ball-ball restitution of phenolic balls: Alciatore; pooltool's default
    u_b=0.05,  # constant ball-ball friction (Alciatore TP A-14 range 0.03-0.08)
    # Ball-cushion restitution: S16 gives the pyramid rubber's rebound elasticity as
    # 55 % (GOST 27110-86), an energy ratio, so e_c = sqrt(0.55).
    e_c=0.55**0.5,
    f_c=0.2,  # ball-cushion friction: Han 2005; pooltool's default
    g=9.81,
    cue_mass=0.7,  # pyramid cues weigh 680-750 g; pool cues (pooltool) 567 g
)

# pooltool-billiards 0.6.0's BallParams defaults, for shot-for-shot cross-checks.
POOLTOOL_PARAMS = PhysicsParams(
    R=0.028575,
    m=0.170097,
    u_s=0.2,
    u_r=0.01,
    u_sp=(10 * 2 / 5 / 9) * 0.028575,
    e_b=0.95,
    u_b=0.05,
    e_c=0.85,
    f_c=0.2,
    g=9.81,
    cue_mass=0.567,
)


@dataclass(frozen=True)
class Models:
    """Static model choices (each compiles to its own program).

    Attributes:
        ball_ball: `frictional_inelastic` (pooltool's default: restitution plus
            ball-ball friction with Alciatore's speed-dependent fit, so cut shots throw)
            or `frictionless_elastic` (restitution only, for closed-form checks).
        cushion: `han_2005` (Han 2005 impulse model) or `stronge_compliant` (pooltool's
            default: Stronge's compliant-contact model).
        contact: where a ball meets a cushion nose. `nose`: at the nose height h, where the
            ball's horizontal half-width is R cos(theta), sin(theta) = h/R - 1 (about 0.96 R
            on the pyramid preset); this decides whether a ball fits a pyramid mouth only a
            few mm wider than itself. `equator`: at distance R, pooltool's convention.
        alciatore_friction: use Alciatore's u_b(v) fit (True) or the constant `u_b`.

    """

    ball_ball: BallBallModel = "frictional_inelastic"
    cushion: CushionModel = "stronge_compliant"
    contact: CushionContact = "nose"
    alciatore_friction: bool = True

    def __post_init__(self) -> None:
        """Reject unknown model names early, naming the field."""
        for name, allowed in (
            ("ball_ball", BALL_BALL_MODELS),
            ("cushion", CUSHION_MODELS),
            ("contact", CUSHION_CONTACTS),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"models.{name}: unknown model {shown(value)}; choose from {allowed}")


POOLTOOL_MODELS = Models(contact="equator")
