"""A game between a human and a bot: whose move it is, the moves, the shot clock, the record.

Every request is checked before anything changes (`PlayError` carries the HTTP status and
a message naming what is wrong), then the move is played (`engine`), and the game is
saved (`store`) before the answer goes out, so a crash, a bot error or a restart never
loses a move that was answered. A game is a JSON dict:

    {"id", "version", "settings": {variant, bot, level, noise, human, shot_clock, practice},
     "seed", "seq" (changes so far: moves and take-backs), "state" (`rules.codec` state JSON),
     "record" (the match record's entries), "log" (each move's headline and rule sentences,
     and the record's length after it: "moves"),
     "clock" {"started", "extended", "extensions"}, "bot_error"}

The bot moves only when asked (`bot_move`): the page asks while it shows the thinking
indicator, one move per request, so every move comes back with its own animation and the
seconds it took. Each bot is made once per settings, with a lock that the warm-up's first
move (`first_move`) shares, so a program never compiles twice at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import jax
import numpy as np

import piramida.physics as ph
from piramida.agents.protocol import Agent
from piramida.agents.random_agent import RandomAgent
from piramida.physics import noise
from piramida.physics.fields import FieldError, read_bool, read_int, read_number, read_object, shown
from piramida.play import clock, engine, words
from piramida.play.replay import replay
from piramida.play.store import Store, StoreError, UnknownGameError
from piramida.play.warmup import after_break
from piramida.rules import codec, ids, match
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.decisions import Decision
from piramida.rules.game import strike_of
from piramida.training.players import make_player

VERSION = 1
GAME_FIELDS = ("id", "version", "settings", "seed", "seq", "state", "record", "log", "clock", "bot_error")
BOTS = ("search", "greedy", "casual", "random", "trained", "trained:policy")
LEVELS = ("easy", "medium", "strong", "strongest")
SHOOTING = (st.BREAK, st.NORMAL, st.IN_HAND)
LOG_SHOWN = 40  # the last moves a game's view carries
SLOW_PLAY = 1 << vd.FOUL_NAMES.index("slow-play")
log = logging.getLogger(__name__)


class PlayError(Exception):
    """A request that cannot be played: the HTTP status and what is wrong."""

    def __init__(self, status: int, message: str) -> None:
        """Status 404 (no such game), 409 (not now: out of turn, stale), 422 (bad field), 503 (bot)."""
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Settings:
    """What a game is played with; the page and `piramida play` set it."""

    variant: str = "free"
    bot: str = "search"  # the page's default level, `levels.DEFAULT`
    level: str = "medium"
    noise: str = "amateur"
    human: int = 0
    shot_clock: bool = False
    practice: bool = False  # the human may take shots back and ask for hints

    @staticmethod
    def from_json(value: Any, defaults: Settings) -> Settings:
        """Settings from a request, each field checked; missing ones from `defaults`."""
        fields = read_object(value, "settings", tuple(asdict(defaults)))
        out = asdict(defaults) | fields
        _choice(out["variant"], "settings.variant", ids.VARIANT_NAMES)
        # A saved policy only as the server's own bot: a page never names a file to load.
        _choice(out["bot"], "settings.bot", BOTS if defaults.bot in BOTS else (*BOTS, defaults.bot))
        _choice(out["level"], "settings.level", LEVELS)
        _choice(out["noise"], "settings.noise", tuple(noise.LEVELS))
        read_int(out["human"], "settings.human", 0, 1)
        read_bool(out["shot_clock"], "settings.shot_clock")
        read_bool(out["practice"], "settings.practice")
        return Settings(**out)

    def bot_key(self) -> tuple[str, str, str]:
        """What makes the bot (`_agent_of`): games that differ in nothing else share one bot."""
        return self.bot, self.level, self.noise


def _choice(value: Any, path: str, names: tuple[str, ...]) -> str:
    if value not in names:
        raise FieldError(f"{path}: expected one of {', '.join(names)}, got {shown(value)}")
    return str(value)


def _agent_of(settings: Settings) -> Agent:
    name = f"search:{settings.level}" if settings.bot == "search" else settings.bot
    return make_player(name, noise.level(settings.noise))


class Games:
    """The games of one server: create, look at, and move in them."""

    def __init__(
        self,
        store: Store,
        defaults: Settings = Settings(),
        agent_of: Callable[[Settings], Agent] = _agent_of,
    ) -> None:
        """Games kept in `store`; new games take `defaults` for what the page leaves out."""
        self.store = store
        self.defaults = defaults
        self._agent_of = agent_of
        self._agents: dict[tuple[str, str, str], tuple[Agent, threading.Lock]] = {}
        self._guard = threading.Lock()
        # A bot's first move compiles its programs (up to minutes): the page says so while it does.
        self._ready: set[tuple[str, str, str]] = set()  # bots that have moved on this server
        self._preparing: dict[tuple[str, str, str], float] = {}  # bots compiling now: since when

    # --- looking ------------------------------------------------------------------------

    def load(self, game_id: str) -> dict[str, Any]:
        """A saved game, checked field by field (`read_game`); 404 if there is none, 422 if it is no game."""
        try:
            value = self.store.load(game_id)
            return read_game(value, game_id, self.defaults)
        except UnknownGameError:
            raise PlayError(404, f"game {game_id!r}: no such game") from None
        except FieldError as err:
            raise PlayError(422, f"game file {self.store.path(game_id).name}: {err}") from err
        except StoreError as err:
            raise PlayError(err.status, str(err)) from err

    def _save(self, game: dict[str, Any]) -> None:
        """Save a game (`Store.save`); 507 for a full disk, 503 for another failure; the file as it was."""
        try:
            self.store.save(game)
        except StoreError as err:
            raise PlayError(err.status, str(err)) from err

    def get(self, game_id: str) -> dict[str, Any]:
        """A game as the page shows it."""
        return self.view(self.load(game_id))

    def view(self, game: dict[str, Any]) -> dict[str, Any]:
        """What the page shows: the state, whose move, the pending decision, the clock, the log."""
        state = _state(game)
        settings = game["settings"]
        phase = int(state.phase)
        human = settings["human"]
        placing = phase in (st.BREAK, st.IN_HAND)
        return {
            "id": game["id"],
            "settings": settings,
            "seq": game["seq"],
            "state": game["state"],
            "to_move": "over" if phase == st.OVER else "human" if int(state.turn) == human else "bot",
            "region": ids.REGION_NAMES[int(codec.hand_region(state, engine.DIMS))] if placing else None,
            "pending": codec.pending_json(state, engine.DIMS),
            "own_ball": None if int(state.own_ball) < 0 else int(state.own_ball),
            "clock": clock.view(game["clock"], settings["shot_clock"], human),
            "log": game["log"][-LOG_SHOWN:],
            "log_from": max(0, len(game["log"]) - LOG_SHOWN),  # the number of moves before the first shown
            "bot_error": game.get("bot_error"),
            "bot": self.bot_status(Settings(**settings)),
            "server_time": time.time(),
        }

    def record(self, game_id: str) -> str:
        """The match record as JSON Lines (`rules.match`)."""
        game = self.load(game_id)
        variant = ids.VARIANT_NAMES.index(game["settings"]["variant"])
        return match.MatchRecord(variant, engine.DIMS, list(game["record"])).dumps()

    def replay(self, game_id: str) -> dict[str, Any]:
        """The frame so far as `replay.replay` shows a record: what a replay link opens."""
        game = self.load(game_id)
        names = ("The player", "The bot") if game["settings"]["human"] == 0 else ("The bot", "The player")
        return replay(self.record(game_id), names)

    # --- starting -----------------------------------------------------------------------

    def create(self, body: Any) -> dict[str, Any]:
        """A new game from `{"settings": {...}, "state": {...}?, "seed": n?}`.

        With `state` (the `rules.codec` JSON, e.g. a saved position or one near the end
        of a frame) the game starts there; otherwise from a fresh rack, the human breaking.
        """
        fields = read_object(
            body if body is not None else {}, "body", ("settings", "state", "seed", "breaker")
        )
        given = fields.get("settings", {})
        start = fields.get("state")
        if (
            isinstance(given, dict)
            and isinstance(start, dict)
            and "variant" not in given
            and "variant" in start
        ):
            given = given | {"variant": start["variant"]}  # a position names its own variant
        settings = Settings.from_json(given, self.defaults)
        seed = read_int(
            fields.get("seed", int(np.random.default_rng().integers(2**31))), "seed", 0, 2**31 - 1
        )
        variant = ids.VARIANT_NAMES.index(settings.variant)
        if start is not None:
            state = engine.read_state(start, variant)
        else:
            breaker = read_int(fields.get("breaker", settings.human), "breaker", 0, 1)
            state = engine.new_game(variant, jax.random.PRNGKey(seed), breaker, engine.DIMS)
        game = {
            "id": self.store.new_id(),
            "version": VERSION,
            "settings": asdict(settings),
            "seed": seed,
            "seq": 0,
            "state": codec.state_to_json(state),
            "record": [],
            "log": [],
            "clock": clock.new_clock(),
            "bot_error": None,
        }
        self._restart_clock(game, state, 0.0)
        self._save(game)
        return self.view(game)

    def rematch(self, game_id: str) -> dict[str, Any]:
        """A new frame with the same settings, the other player breaking (G13).

        Its seed follows from this frame's, so a match replays from its first frame's seed.
        """
        game = self.load(game_id)
        breaker = 1 - int(game["state"]["breaker"])
        seed = int(np.random.default_rng(int(game["seed"])).integers(2**31))
        return self.create({"settings": game["settings"], "breaker": breaker, "seed": seed})

    # --- moving -------------------------------------------------------------------------

    def shoot(self, game_id: str, body: Any) -> dict[str, Any]:
        """The human's shot: `{"seq"?, "ball", "speed", "phi", "a"?, "b"?, "place"?: {x, y}, "call"?}`."""
        with self.store.lock(game_id):
            game = self.load(game_id)
            state, fields, strike, place = self._human_strike(game, body, "call")
            call = None if fields.get("call") is None else codec.call_from_json(fields["call"])
            engine.check_shot(state, strike, place, call)
            declared = SLOW_PLAY if clock.timed_out(game["clock"]) else 0
            played = engine.simulate_shot(state, strike, place, call, declared)
            return self._after_shot(game, played, by=game["settings"]["human"])

    def _human_strike(
        self, game: dict[str, Any], body: Any, extra: str
    ) -> tuple[st.GameState, dict[str, Any], ph.Strike, tuple[float, float] | None]:
        """The human's strike in `body` (its fields, and `extra`), checked to be theirs to play now."""
        state = _state(game)
        fields = read_object(body, "body", ("seq", "ball", "speed", "phi", "theta", "a", "b", "place", extra))
        self._check_turn(game, state, fields, human=True, shot=True)
        place = None if fields.get("place") is None else _xy(fields["place"], "place")
        return state, fields, _strike(fields), place

    def aim(self, game_id: str, body: Any) -> dict[str, Any]:
        """The aiming line: the shot the page would send (and `contacts`?), simulated but not played.

        `{"paths": engine.aim_paths(...), "ms"}`; nothing is saved, so no lock is taken.
        """
        started = time.perf_counter()
        game = self.load(game_id)
        state, fields, strike, place = self._human_strike(game, body, "contacts")
        contacts = read_int(
            fields.get("contacts", engine.AIM_CONTACTS), "contacts", 1, engine.AIM_MAX_CONTACTS
        )
        engine.check_shot(state, strike, place, None)
        paths = engine.aim_paths(state, strike, place, contacts)
        return {"paths": paths, "ms": round(1000 * (time.perf_counter() - started), 1)}

    def decide(self, game_id: str, body: Any) -> dict[str, Any]:
        """The human's decision: `{"seq"?, "option"?, "ball"?}` (G6, G12.2, DYN-7, penalty ball, exchange)."""
        with self.store.lock(game_id):
            game = self.load(game_id)
            state = _state(game)
            fields = read_object(body, "body", ("seq", "option", "ball"))
            self._check_turn(game, state, fields, human=True, shot=False)
            decision = codec.decision_from_json({k: v for k, v in fields.items() if k != "seq"}, state)
            return self._after_decision(game, state, decision)

    def bot_move(self, game_id: str, body: Any = None) -> dict[str, Any]:
        """The bot's next move (a shot or a decision), played and saved; 503 if the bot fails.

        `{"seq"?, "frozen_warned"?}`: whether the human warned the bot, before its stroke,
        that each ball found against a cushion will touch it (G20-N2); default true, the
        page playing as warned. The bot warns the human before each of his shots.
        """
        with self.store.lock(game_id):
            game = self.load(game_id)
            state = _state(game)
            fields = read_object(body if body is not None else {}, "body", ("seq", "frozen_warned"))
            frozen_warned = read_bool(fields.get("frozen_warned", True), "frozen_warned")
            self._check_turn(game, state, fields, human=False, shot=None)
            settings = Settings(**game["settings"])
            # A refused shot leaves `seq` as it was but adds to the log: the next try differs.
            key = jax.random.fold_in(
                jax.random.fold_in(jax.random.PRNGKey(game["seed"]), game["seq"]), len(game["log"])
            )
            started = time.monotonic()
            try:
                with self._playing(settings) as agent:
                    if int(state.phase) == st.DECISION:
                        move = engine.bot_move(agent, state, key)
                        decision = Decision(option=int(move.option), ball=int(move.take))
                        return self._after_decision(game, state, decision, time.monotonic() - started)
                    played = _bot_shot(agent, state, key, settings, frozen_warned)
                    if played.entry is None:  # refused (an event-log overflow): a random shot, as the envs do
                        played = _bot_shot(
                            RandomAgent(engine.SETUP),
                            state,
                            jax.random.fold_in(key, 2),
                            settings,
                            frozen_warned,
                        )
                return self._after_shot(game, played, 1 - settings.human, time.monotonic() - started)
            except PlayError:
                raise
            except Exception as err:  # any bot failure: the game stays as saved
                log.exception("bot failed in game %s", game_id)
                game["bot_error"] = f"{type(err).__name__}: {err}"
                self._save(game)
                raise PlayError(
                    503, f"the bot failed ({type(err).__name__}: {err}); the game is saved, ask again"
                ) from err

    def extension(self, game_id: str) -> dict[str, Any]:
        """G26: another 45 s for the human's shot (one per match; two in a level deciding frame, A-35)."""
        with self.store.lock(game_id):
            game = self.load(game_id)
            problem = clock.extend(game["clock"], game["settings"]["human"])
            if problem:
                raise PlayError(409, problem)
            self._save(game)
            return self.view(game)

    # --- practice -----------------------------------------------------------------------

    def _practice(self, game: dict[str, Any], what: str) -> None:
        """409 unless `game` is a practice game: a match's shots stand as played."""
        if not game["settings"]["practice"]:
            raise PlayError(409, f"{what} only in a practice game: start a new game with practice on")

    def undo(self, game_id: str, body: Any = None) -> dict[str, Any]:
        """`{"seq"?}`: take back the human's last shot, and the moves after it (practice games only)."""
        with self.store.lock(game_id):
            game = self.load(game_id)
            self._practice(game, "shots are taken back")
            fields = read_object(body if body is not None else {}, "body", ("seq",))
            if "seq" in fields and read_int(fields["seq"], "seq", 0, 10**9) != game["seq"]:
                raise PlayError(409, f"seq: the game has moved on (move {game['seq']}): reload")
            human = game["settings"]["human"]
            mine = [
                k
                for k, entry in enumerate(game["record"])
                if entry["kind"] == "shot" and entry["state"]["turn"] == human
            ]
            if not mine:
                raise PlayError(409, "nothing to take back: you have not shot in this frame")
            k = mine[-1]
            game["state"] = game["record"][k]["state"]
            del game["record"][k:]
            game["log"] = [entry for entry in game["log"] if entry.get("moves", 0) <= k]
            game["seq"] += 1
            state = _state(game)
            self._restart_clock(game, state, 0.0)
            move = {
                "by": human,
                "kind": "undo",
                "headline": "You took back your last shot: play it again.",
                "words": ["The balls are back where they were before your last shot (practice)."],
            }
            return self._commit(game, move, engine.still(state), None)

    def layout(self, game_id: str, body: Any) -> dict[str, Any]:
        """`{"seq"?, "balls": [{id, x, y}]}`: the balls on the table placed anew (practice games only).

        Only where the human is to shoot from where the balls lie, and only the balls on the
        table, each placed where a shot can start (`engine.read_state`). The frame's record
        starts again from the new position, so it still replays move by move.
        """
        with self.store.lock(game_id):
            game = self.load(game_id)
            self._practice(game, "balls are placed freely")
            state = _state(game)
            fields = read_object(body, "body", ("seq", "balls"))
            self._check_turn(game, state, fields, human=True, shot=True)
            if int(state.phase) != st.NORMAL:
                raise PlayError(409, "balls are placed only when you shoot from where they lie")
            balls = fields.get("balls")
            if not isinstance(balls, list):
                raise FieldError("balls: expected a list of {id, x, y}")
            on_table = sorted(ball["id"] for ball in game["state"]["balls"])
            if sorted(_ball_id(ball, f"balls[{k}]") for k, ball in enumerate(balls)) != on_table:
                raise FieldError(f"balls: expected the balls on the table, each once: ids {on_table}")
            placed = engine.read_state(game["state"] | {"balls": balls}, int(state.variant), "layout")
            game["state"] = codec.state_to_json(placed)
            game["record"] = []
            game["log"] = []
            game["seq"] += 1
            self._restart_clock(game, placed, 0.0)
            move = {
                "by": game["settings"]["human"],
                "kind": "layout",
                "headline": "You placed the balls: play from here.",
                "words": ["The balls stand where you placed them (practice); the record starts here."],
            }
            return self._commit(game, move, engine.still(placed), None)

    def hint(self, game_id: str, body: Any = None) -> dict[str, Any]:
        """`{"seq"?}`: the shot the bot would play in the human's place, unplayed, with its paths.

        `{"strike": {...}, "place": {x, y} | None, "call": {ball, pocket} | None, "paths"}`:
        the bot's intended strike (no execution noise), for the page to aim with (practice games only).
        """
        game = self.load(game_id)
        self._practice(game, "hints are given")
        state = _state(game)
        fields = read_object(body if body is not None else {}, "body", ("seq",))
        self._check_turn(game, state, fields, human=True, shot=True)
        settings = Settings(**game["settings"])
        # a key no move of the bot's uses (theirs fold in the move number alone)
        key = jax.random.fold_in(jax.random.PRNGKey(game["seed"]), 10**6 + game["seq"])
        with self._playing(settings) as agent:
            move = engine.bot_move(agent, state, key)
        strike = jax.tree_util.tree_map(lambda x: np.asarray(x).item(), strike_of(move))  # no cue noise
        place = (float(move.place[0]), float(move.place[1])) if int(state.phase) != st.NORMAL else None
        call = None
        if int(state.variant) == ids.CLASSIC and int(move.call_ball) >= 0:
            call = {"ball": int(move.call_ball), "pocket": ph.POCKET_NAMES[int(move.call_pocket)]}
        engine.check_shot(state, strike, place, None)
        return {
            "strike": engine.strike_json(strike),
            "place": None if place is None else {"x": place[0], "y": place[1]},
            "call": call,
            "paths": engine.aim_paths(state, strike, place, engine.AIM_CONTACTS),
        }

    def first_move(self, settings: Settings, state: st.GameState) -> None:
        """Play the bot of `settings` once on `state` and forget the move: its programs compile now."""
        with self._playing(settings) as agent:
            _bot_shot(agent, state, jax.random.PRNGKey(0), settings)

    # --- the bot's readiness --------------------------------------------------------------

    def bot_status(self, settings: Settings) -> dict[str, Any]:
        """`{"state": "ready" | "preparing" | "cold", "seconds"?}`: whether the bot's next move compiles.

        "cold": it has not moved on this server, so its first move compiles (or loads its
        programs from the compile cache); "preparing": that is under way, for `seconds`.
        """
        key = settings.bot_key()
        if key in self._ready:
            return {"state": "ready"}
        since = self._preparing.get(key)
        if since is None:
            return {"state": "cold"}
        return {"state": "preparing", "seconds": round(time.monotonic() - since, 1)}

    def game_bot(self, game_id: str) -> dict[str, Any]:
        """`bot_status` of a game's bot: the page asks while the bot thinks."""
        return self.bot_status(Settings(**self.load(game_id)["settings"]))

    def warm(self, body: Any) -> dict[str, Any]:
        """`{"settings"}`: compile that bot in the background now (a level the player picked); its status."""
        fields = read_object(body if body is not None else {}, "body", ("settings",))
        settings = Settings.from_json(fields.get("settings", {}), self.defaults)
        key = settings.bot_key()
        with self._guard:
            start = key not in self._ready and key not in self._preparing
            if start:
                self._preparing[key] = time.monotonic()
        if start:
            threading.Thread(target=self._warm, args=(settings,), name="piramida-warm", daemon=True).start()
        return self.bot_status(settings)

    def _warm(self, settings: Settings) -> None:
        """One move of the bot on a broken rack, forgotten; a failure only costs the time (logged)."""
        try:
            self.first_move(settings, after_break(ids.VARIANT_NAMES.index(settings.variant)))
        except Exception:
            log.exception("warming the bot %s failed", settings.bot_key())
            self._preparing.pop(settings.bot_key(), None)

    @contextmanager
    def _playing(self, settings: Settings) -> Iterator[Agent]:
        """The bot of `settings` under its lock, marked preparing until its first move has been made.

        The lock is shared with every game and warm-up of the same bot, so its programs never
        compile twice at once.
        """
        key = settings.bot_key()
        with self._guard:
            if key not in self._agents:
                self._agents[key] = (self._agent_of(settings), threading.Lock())
            agent, lock = self._agents[key]
            if key not in self._ready:
                self._preparing.setdefault(key, time.monotonic())
        with lock:
            try:
                yield agent
            except BaseException:
                self._preparing.pop(key, None)  # the next try compiles again, and says so
                raise
            self._ready.add(key)
            self._preparing.pop(key, None)

    # --- helpers ------------------------------------------------------------------------

    def _check_turn(
        self,
        game: dict[str, Any],
        state: st.GameState,
        fields: dict[str, Any],
        human: bool,
        shot: bool | None,
    ) -> None:
        """409 for a move out of turn or from a stale page; the game is left as it is."""
        if "seq" in fields and read_int(fields["seq"], "seq", 0, 10**9) != game["seq"]:
            raise PlayError(
                409, f"seq: the game has moved on (move {game['seq']}, the page sent {fields['seq']}): reload"
            )
        phase = int(state.phase)
        if phase == st.OVER:
            raise PlayError(409, "the frame is over: start a rematch")
        mine = int(state.turn) == game["settings"]["human"]
        if human and not mine:
            raise PlayError(409, f"not your turn: the bot (player {int(state.turn)}) is to move")
        if not human and mine:
            raise PlayError(409, f"not the bot's turn: you (player {int(state.turn)}) are to move")
        if shot is True and phase == st.DECISION:
            raise PlayError(409, "a decision is pending: send a decision, not a shot")
        if shot is False and phase != st.DECISION:
            raise PlayError(409, f"no decision is pending: it is a shot ({st.PHASE_NAMES[phase]} phase)")

    def _names(self, game: dict[str, Any]) -> tuple[str, str]:
        human = game["settings"]["human"]
        return ("You", "The bot") if human == 0 else ("The bot", "You")

    def _after_shot(
        self, game: dict[str, Any], played: engine.ShotPlayed, by: int, seconds: float | None = None
    ) -> dict[str, Any]:
        names = self._names(game)
        if played.entry is not None:
            game["record"].append(played.entry)
            game["state"] = played.verdict["state"]
            game["seq"] += 1
        self._restart_clock(game, played.state, played.animation["duration"])
        move = {
            "by": by,
            "kind": "shot",
            "headline": words.shot_headline(played.verdict, names, by),
            "words": words.shot_words(played.verdict, names),
            "verdict": played.verdict,
        }
        return self._commit(game, move, played.animation, seconds)

    def _after_decision(
        self, game: dict[str, Any], state: st.GameState, decision: Decision, seconds: float | None = None
    ) -> dict[str, Any]:
        entry, outcome, nxt = engine.apply_decision(state, decision)
        game["record"].append(entry)
        game["state"] = outcome["state"]
        game["seq"] += 1
        self._restart_clock(game, nxt, 0.0)
        names = self._names(game)
        move = {
            "by": int(state.turn),
            "kind": "decision",
            "headline": words.decision_headline(outcome, names),
            "words": words.decision_words(outcome, names),
            "outcome": outcome,
        }
        return self._commit(game, move, engine.still(nxt), seconds)

    def _commit(
        self, game: dict[str, Any], move: dict[str, Any], animation: dict[str, Any], seconds: float | None
    ) -> dict[str, Any]:
        """Save the move; the answer carries its animation and, for the bot's, how long it took."""
        if seconds is not None:
            move["seconds"] = round(seconds, 3)
        # "moves": the record's length after this move, so a take-back knows which lines go with it
        line = {key: move[key] for key in ("by", "headline", "words")}
        game["log"].append(line | {"moves": len(game["record"])})
        game["bot_error"] = None
        self._save(game)
        return {"game": self.view(game), "move": move | {"animation": animation}}

    def _restart_clock(self, game: dict[str, Any], state: st.GameState, delay: float) -> None:
        """Run the clock for the human's shots only (the bot is not timed)."""
        settings = game["settings"]
        human_shoots = int(state.turn) == settings["human"] and int(state.phase) in SHOOTING
        clock.restart(game["clock"], settings["shot_clock"] and human_shoots, delay)


def _bot_shot(
    agent: Agent, state: st.GameState, key: Any, settings: Settings, frozen_warned: bool = True
) -> engine.ShotPlayed:
    """The bot's shot, with its execution noise, played like the human's (warned or not, G20-N2)."""
    move = engine.bot_move(agent, state, key)
    magnitude = noise.level(settings.noise)
    return engine.play_shot(state, move, jax.random.fold_in(key, 1), magnitude, frozen_warned=frozen_warned)


def _state(game: dict[str, Any]) -> st.GameState:
    """A checked game's state (`read_game` read it once; this rebuilds it for the move)."""
    variant = ids.VARIANT_NAMES.index(game["settings"]["variant"])
    return engine.read_state(game["state"], variant)


def read_game(value: Any, game_id: str, defaults: Settings) -> dict[str, Any]:
    """A saved game (`Store.load`) whose every field is as `Games` writes it; else `FieldError` naming one.

    A game's file is data like a request: edited, cut short or written by another version,
    it is refused with the field named, never half-read. Its settings are read as a new
    game's (`Settings.from_json`: no bot but the server's own), its state as a starting
    position (`engine.read_state`), its record's entries as `rules.match` reads them.
    """
    if not isinstance(value, dict):
        raise FieldError(f"expected a game (an object), got {type(value).__name__}")
    fields = read_object(value, "", GAME_FIELDS)
    for name in GAME_FIELDS:
        if name not in fields:
            raise FieldError(f"{name}: missing")
    if fields["id"] != game_id:
        raise FieldError(f"id: {shown(fields['id'])} is not the file's game {game_id}")
    if fields["version"] != VERSION:
        raise FieldError(f"version: expected {VERSION}, got {shown(fields['version'])}")
    settings = Settings.from_json(fields["settings"], defaults)
    read_int(fields["seed"], "seed", 0, 2**31 - 1)
    read_int(fields["seq"], "seq", 0, 10**9)
    engine.read_state(fields["state"], ids.VARIANT_NAMES.index(settings.variant))
    for name, kinds in (("record", ("shot", "decision")), ("log", None)):
        entries = fields[name]
        if not isinstance(entries, list):
            raise FieldError(f"{name}: expected a list")
        for k, entry in enumerate(entries):
            if not isinstance(entry, dict) or (kinds is not None and entry.get("kind") not in kinds):
                kind = f" of kind {' or '.join(kinds)}" if kinds else ""
                raise FieldError(f"{name}[{k}]: expected an object{kind}")
    clock.read_clock(fields["clock"], "clock")
    if fields["bot_error"] is not None and not isinstance(fields["bot_error"], str):
        raise FieldError(f"bot_error: expected text or null, got {shown(fields['bot_error'])}")
    return fields | {"settings": asdict(settings)}


def _ball_id(value: Any, path: str) -> int:
    """A placed ball's id (`{id, x, y}`; the codec reads its place)."""
    return read_int(read_object(value, path, ("id", "x", "y")).get("id"), f"{path}.id", 0, ids.N_BALLS - 1)


def _strike(fields: dict[str, Any]) -> ph.Strike:
    for name in ("ball", "speed", "phi"):
        if name not in fields:
            raise FieldError(f"{name}: missing")
    return ph.Strike(
        ball=read_int(fields["ball"], "ball", 0, ids.N_BALLS - 1),
        speed=read_number(fields["speed"], "speed", positive=True),
        phi=read_number(fields["phi"], "phi"),
        theta=read_number(fields.get("theta", 0.0), "theta"),
        a=read_number(fields.get("a", 0.0), "a"),
        b=read_number(fields.get("b", 0.0), "b"),
    )


def _xy(value: Any, path: str) -> tuple[float, float]:
    fields = read_object(value, path, ("x", "y"))
    if "x" not in fields or "y" not in fields:
        raise FieldError(f"{path}: expected {{x, y}}")
    return read_number(fields["x"], f"{path}.x"), read_number(fields["y"], f"{path}.y")
