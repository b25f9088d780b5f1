"""Invariants of the MBS referee under random action sequences (Hypothesis).

From the opening kick-off and from a handful of mid-match positions, random actions of the side
to move (mostly flicks, also shots, keepers, placings, ready and ticks) are applied; refusals are
allowed, crashes are not. After every applied action: no two pieces overlap, no piece is off the
table, exactly one side is to move, the clock never goes back, the score changes only with a
goal event, and the state survives a JSON round trip."""
from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulation.actions import DeclareShot, Flick, Place, PlaceGoalkeeper, Ready, Tick
from simulation.rules import RuleViolation, make_referee
from simulation.state import MatchState
from simulation.table import SIDES, defended_end

REFEREE = make_referee("mbs", {"frames": False})
TABLE = REFEREE.table
OVERLAP_TOLERANCE_MM = 1.0


def _positions() -> list[MatchState]:
    start = REFEREE.initial_state()
    open_play = MatchState.from_json({
        "phase": "open_play", "to_move": "home", "clock_s": 600,
        "ball": [420, 60],
        "pieces": {"home": {"1": [360, 40], "2": [300, -120], "3": [100, 200], "4": [-300, 0], "gk": [-780, 0]},
                   "away": {"1": [520, 120], "2": [600, -60], "3": [700, 200], "4": [200, -300], "gk": [780, 0]}},
    })
    penalty_area = MatchState.from_json({
        "phase": "open_play", "to_move": "away", "clock_s": 1490, "period": "first_half",
        "ball": [-640, 30],
        "pieces": {"home": {"1": [-700, 0], "2": [-600, 120], "gk": [-790, 10]},
                   "away": {"1": [-590, 40], "2": [-650, -100], "3": [-500, 250], "gk": [780, 0]}},
        "expelled": {"home": ["5", "6", "7"], "away": []},
    })
    corner = MatchState.from_json({
        "phase": "corner_kick", "to_move": "home", "clock_s": 2980, "period": "second_half",
        "home_attacks": "-x", "restart": {"kind": "corner_kick", "side": "home", "at": [-830, 515]},
        "ball": [-830, 515],
        "pieces": {"home": {"1": [-700, 400], "2": [-600, 300], "gk": [780, 0]},
                   "away": {"1": [-760, 300], "2": [-650, 100], "gk": [-790, 0]}},
    })
    return [start, open_play, penalty_area, corner]


POSITIONS = _positions()


@st.composite
def action_for(draw, state: MatchState):
    side = state.to_move
    buttons = sorted(p for p in state.pieces.get(side, {}) if p != "gk") or ["1"]
    dt = draw(st.sampled_from([None, 0.0, 1.0, 5.0, 12.0, 31.0]))
    t = None if dt is None else state.clock_s + dt
    kind = draw(st.sampled_from(["flick"] * 8 + ["declare", "keeper", "place", "ready", "tick"]))
    if kind == "flick":
        piece = draw(st.sampled_from(buttons))
        p = state.pieces.get(side, {}).get(piece, (0.0, 0.0))
        towards = math.degrees(math.atan2(state.ball[1] - p[1], state.ball[0] - p[0]))
        angle = draw(st.one_of(st.floats(-180, 180), st.floats(-15, 15).map(lambda d: towards + d)))
        speed = draw(st.floats(1.0, 2600.0))
        return Flick(side=side, piece=piece, angle_deg=angle, speed_mm_s=speed, t=t)
    if kind == "declare":
        return DeclareShot(side=side, t=t)
    if kind == "keeper":
        s = 1 if defended_end(side, state.home_attacks) == "+x" else -1
        at = (s * draw(st.floats(700.0, 840.0)), draw(st.floats(-160.0, 160.0)))
        return PlaceGoalkeeper(side=side, at=at, t=t)
    if kind == "place":
        piece = draw(st.sampled_from(buttons))
        a = draw(st.floats(0, 2 * math.pi))
        d = draw(st.floats(25.0, 200.0))
        at = (state.ball[0] + d * math.cos(a), state.ball[1] + d * math.sin(a))
        return Place(side=side, piece=piece, at=at, t=t)
    if kind == "ready":
        return Ready(side=side, t=t)
    return Tick(t=state.clock_s + draw(st.floats(0.0, 40.0)))


def _footprint_clear(a_id, a, b_id, b) -> bool:
    return REFEREE._clear(a, a_id, b, b_id, -OVERLAP_TOLERANCE_MM)


def check_invariants(before: MatchState, after: MatchState, events) -> None:
    assert after.to_move in SIDES
    assert after.clock_s >= before.clock_s
    pieces = [(s, pid, p) for s in SIDES for pid, p in after.pieces.get(s, {}).items()]
    for s, pid, p in pieces:
        kind, hx, hy = REFEREE.piece_extent(pid)
        assert TABLE.surface.contains_rect(p, hx - OVERLAP_TOLERANCE_MM, hy - OVERLAP_TOLERANCE_MM), (s, pid, p)
        assert pid not in after.expelled.get(s, ()), (s, pid)
    for i, (s1, id1, p1) in enumerate(pieces):
        for s2, id2, p2 in pieces[i + 1:]:
            assert _footprint_clear(id1, p1, id2, p2), f"{s1}:{id1} {p1} overlaps {s2}:{id2} {p2}"
    assert TABLE.on_surface(after.ball, TABLE.ball_radius - OVERLAP_TOLERANCE_MM)
    goals = {s: 0 for s in SIDES}
    for e in events:
        if e.type == "goal" and not e.extra.get("shootout"):
            goals[e.side] += 1
    for s in SIDES:
        assert after.score[s] - before.score[s] == goals[s], (s, before.score, after.score, goals)
    assert MatchState.from_json(after.to_json()).to_json() == after.to_json()


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(start=st.sampled_from(POSITIONS), data=st.data())
def test_random_action_sequences_keep_the_invariants(start: MatchState, data):
    state = start
    for _ in range(data.draw(st.integers(1, 20), label="length")):
        if state.phase == "full_time":
            break
        action = data.draw(action_for(state), label="action")
        try:
            outcome = REFEREE.apply(state, action)
        except RuleViolation:
            continue
        check_invariants(state, outcome.state, outcome.events)
        state = outcome.state


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(speed=st.floats(1.0, 2500.0), angle=st.floats(-180.0, 180.0), dt=st.floats(0.0, 29.0))
def test_a_flick_never_crashes_and_one_side_is_to_move(speed, angle, dt):
    state = POSITIONS[1]
    outcome = REFEREE.apply(state, Flick(side="home", piece="1", angle_deg=angle, speed_mm_s=speed,
                                         t=state.clock_s + dt))
    check_invariants(state, outcome.state, outcome.events)
    kinds = [e.type for e in outcome.events]
    if "possession_lost" in kinds or "foul" in kinds:
        assert outcome.state.to_move == "away"
