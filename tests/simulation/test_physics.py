"""The physics of a flick (contract §3): Coulomb friction, rest and the cap, crossings and
goals, determinism, convergence, no tunnelling."""
import math
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulation import physics
from simulation.bench import _resolve as bench_resolve
from simulation.bench import battery
from simulation.physics import DEFAULT_STEPPING, FlickSimulation, Stepping, resolve_flick
from simulation.table import Table

TABLE = Table()
LONE = {"home": {"7": (-300, -100)}, "away": {}}


def final(result):
    out = {"ball": result.ball}
    for side, group in result.pieces.items():
        for pid, p in group.items():
            out[f"{side}:{pid}"] = p
    return out


def test_button_into_ball_touches_it():
    r = resolve_flick(TABLE, (-160, 0), {"home": {"7": (-200, 0)}, "away": {}}, "home", "7", 0, 500)
    assert r.ball_first_touch == r.ball_last_touch == "home:7"
    assert r.ball_moved and r.ball[0] > -160
    assert r.contacts[0].a == "home:7" and r.contacts[0].b == "ball"


@pytest.mark.parametrize("speed", [300, 1000, 1800])
def test_coulomb_stopping_distance(speed):
    r = resolve_flick(TABLE, (600, 400), LONE, "home", "7", 0, speed)
    expected = speed ** 2 / (2 * TABLE.button_friction * TABLE.gravity_mm_s2)
    travelled = r.pieces["home"]["7"][0] + 300
    assert travelled == pytest.approx(expected, rel=0.01)
    assert not r.capped and r.ball == (600, 400) and not r.ball_moved


def test_rest_and_cap():
    r = resolve_flick(TABLE, (600, 400), LONE, "home", "7", 0, 1000)
    assert not r.capped and r.duration_s < 1.0
    capped = resolve_flick(TABLE, (600, 400), LONE, "home", "7", 0, 1000,
                           stepping=Stepping(cap_s=0.2))
    assert capped.capped and capped.duration_s <= 0.2 + 1e-9
    assert capped.pieces["home"]["7"][0] < r.pieces["home"]["7"][0]


def test_deterministic_in_process():
    args = (TABLE, (-150, 12), {"home": {"7": (-200, 0), "3": (0, 40)}, "away": {"gk": (-815, 0)}},
            "home", "7", 0, 2000)
    assert resolve_flick(*args) == resolve_flick(*args)


def _fresh_kits():
    physics._kits.__dict__.clear()


def test_result_does_not_depend_on_the_flicks_resolved_before():
    """The table's space is reused flick after flick: every flick of the benchmark's battery
    gives the same result, to the bit, on a brand-new space and after all the others (in
    reverse order, on one space)."""
    flicks = battery()
    alone = []
    for f in flicks:
        _fresh_kits()
        alone.append(bench_resolve(f, TABLE, DEFAULT_STEPPING))
    _fresh_kits()
    after = []
    for f in reversed(flicks):
        # first a flick cut off by the cap, which leaves its pieces moving and spinning
        resolve_flick(TABLE, f["ball"], f["pieces"], f["side"], f["piece"], f["angle"] + 40, 2500,
                      stepping=Stepping(cap_s=0.05))
        after.append(bench_resolve(f, TABLE, DEFAULT_STEPPING))
    after.reverse()
    for f, a, b in zip(flicks, alone, after, strict=True):
        assert a == b, f["name"]


def test_two_simulations_open_at_once_do_not_share_a_space():
    args = (TABLE, (-150, 12), {"home": {"7": (-200, 0), "3": (0, 40)}, "away": {"gk": (-815, 0)}})
    expected = resolve_flick(*args, "home", "7", 0, 2000)
    first = FlickSimulation(*args)
    second = FlickSimulation(*args)
    assert second.space is not first.space
    first.launch("home:7", 0, 2000)
    second.launch("home:7", 0, 2000)
    assert second.run() == expected
    assert first.run() == expected
    assert resolve_flick(*args, "home", "7", 0, 2000) == expected


def test_a_thread_keeps_the_spaces_of_a_few_tables():
    _fresh_kits()
    tables = [Table.from_params({"ball_friction": 0.2 + i / 100}) for i in range(12)]
    first = [resolve_flick(tb, (-150, 12), LONE, "home", "7", 20, 1500) for tb in tables]
    assert len(physics._kits.by_table) == physics._KITS_KEPT
    _fresh_kits()
    assert [resolve_flick(tb, (-150, 12), LONE, "home", "7", 20, 1500) for tb in reversed(tables)] == first[::-1]


def test_threads_resolving_at_once_get_the_results_of_one_thread():
    flicks = battery()
    expected = [bench_resolve(f, TABLE, DEFAULT_STEPPING) for f in flicks]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda f: bench_resolve(f, TABLE, DEFAULT_STEPPING), flicks * 3))
    assert got == expected * 3


@pytest.mark.parametrize("angle, speed", [(math.nan, 500), (0, math.inf), (0, -1), (0, "fast"), (None, 5)])
def test_a_flick_that_is_not_a_finite_number_is_refused_and_frees_the_space(angle, speed):
    sim = FlickSimulation(TABLE, (0, 0), LONE)
    with pytest.raises(ValueError, match="angle"):
        sim.launch("home:7", angle, speed)
    assert not sim.kit.busy()


def test_a_piece_at_no_finite_position_is_refused():
    kit = physics._kit_for(TABLE)
    with pytest.raises(ValueError, match="home:7 is not at a finite position"):
        FlickSimulation(TABLE, (0, 0), {"home": {"7": (math.inf, 0)}, "away": {}})
    assert not kit.busy() and physics._kit_for(TABLE) is kit


def test_a_simulation_dropped_without_running_frees_the_space():
    sim = FlickSimulation(TABLE, (0, 0), LONE)
    kit = sim.kit
    del sim
    assert FlickSimulation(TABLE, (0, 0), LONE).kit is kit


def test_a_flick_cut_off_while_pieces_overlap_leaves_nothing_behind():
    """The solver's push out of an overlap (Chipmunk's bias velocity) is not carried by a
    pooled body into the next flick."""
    _fresh_kits()
    alone = resolve_flick(TABLE, (300, 300), {"home": {"1": (0, 0)}, "away": {}}, "home", "1", 0, 0)
    resolve_flick(TABLE, (300, 300), {"home": {"1": (0, 0), "2": (40, 0)}, "away": {}}, "home", "1", 0, 100,
                  stepping=Stepping(cap_s=0.05))
    assert resolve_flick(TABLE, (300, 300), {"home": {"1": (0, 0)}, "away": {}}, "home", "1", 0, 0) == alone


def test_pieces_out_listed_by_time_then_key():
    """Three buttons pushed over the touch line in the same step: the order of pieces_out
    is the same in every process (Chipmunk reports their leaving the field in an order that
    depends on memory addresses)."""
    pieces = {"home": {"1": (-298.989, 326.304)},
              "away": {"2": (-317.589, 501.598), "3": (-223.152, 533.181), "4": (-408.838, 527.489),
                       "9": (-335.744, 448.932)}}
    r = resolve_flick(TABLE, (0, -300), pieces, "home", "1", 93.22, 2500, frames=False)
    assert len(r.pieces_out) >= 3
    order = [(c.t, k) for k, c in r.pieces_out.items()]
    assert order == sorted(order)


def test_an_unknown_piece_frees_the_space():
    sim = FlickSimulation(TABLE, (0, 0), LONE)
    with pytest.raises(ValueError, match="no piece 'home:9'"):
        sim.launch("home:9", 0, 500)
    assert FlickSimulation(TABLE, (0, 0), LONE).space is sim.space


def test_frames_at_30_hz_end_at_rest():
    r = resolve_flick(TABLE, (-160, 0), {"home": {"7": (-200, 0)}, "away": {}}, "home", "7", 0, 800)
    times = [f[0] for f in r.frames]
    assert times[0] == 0 and all(b > a for a, b in zip(times, times[1:], strict=False))
    assert times[1] == pytest.approx(1 / 30, abs=1e-4)
    assert r.frames[-1][1] == (round(r.ball[0], 1), round(r.ball[1], 1))


def test_goal_counts_when_the_ball_bounces_back_off_the_net():
    bouncy = Table.from_params({"restitution_net": 0.95})
    sim = FlickSimulation(bouncy, (600, 0), {"home": {}, "away": {}})
    sim.launch("ball", 0, 1500)
    r = sim.run()
    assert r.ball_out is not None and r.ball_out.goal and r.ball_out.line == "goal_line+x"
    assert r.ball_out.exit_at[0] == 835.0 and abs(r.ball_out.exit_at[1]) < 1
    assert any(c.b == "net" for c in r.ball_contacts())
    assert r.ball[0] < 830  # back on the field, still a goal


def test_ball_out_beside_the_post_is_no_goal():
    r = resolve_flick(TABLE, (700, 200), {"home": {"9": (660, 200)}, "away": {}}, "home", "9", 0, 1500)
    assert r.ball_out is not None and r.ball_out.line == "goal_line+x" and not r.ball_out.goal


def test_piece_over_the_touch_line_is_out():
    r = resolve_flick(TABLE, (0, 0), {"home": {"7": (0, 450)}, "away": {}}, "home", "7", 90, 900)
    out = r.pieces_out["home:7"]
    assert out.line == "touch_line+y" and out.exit_at[1] == 520.0
    assert out.at[1] == pytest.approx(545, abs=0.5)


# -- convergence (contract §3): isolated flicks, halving the step -----------------------------
ISOLATED = [
    ((600, 400), LONE, 20, 800),
    ((600, 400), LONE, 10, 2500),
    ((-150, 0), {"home": {"7": (-200, 0)}, "away": {}}, 0, 600),
    ((-150, 0), {"home": {"7": (-200, 0)}, "away": {}}, 0, 2000),
    ((680, 0), {"home": {"9": (640, 0)}, "away": {}}, 0, 1200),
]


@pytest.mark.parametrize("ball, pieces, angle, speed", ISOLATED)
def test_converged_on_isolated_flicks(ball, pieces, angle, speed):
    side, piece = next((s, p) for s, g in pieces.items() for p in g)
    a = resolve_flick(TABLE, ball, pieces, side, piece, angle, speed)
    b = resolve_flick(TABLE, ball, pieces, side, piece, angle, speed, stepping=Stepping().halved())
    fa, fb = final(a), final(b)
    assert max(math.dist(fa[k], fb[k]) for k in fa) <= 1.0


def test_converged_on_an_off_centre_impact():
    pieces = {"home": {"7": (-200, 0)}, "away": {}}
    a = resolve_flick(TABLE, (-150, 12), pieces, "home", "7", 0, 1500)
    b = resolve_flick(TABLE, (-150, 12), pieces, "home", "7", 0, 1500, stepping=Stepping().halved())
    fa, fb = final(a), final(b)
    assert max(math.dist(fa[k], fb[k]) for k in fa) <= 1.0


# -- no tunnelling: the ball at the fastest speed the table can produce ----------------------
def fastest_ball_speed(t: Table = TABLE) -> float:
    """A button flicked at the maximum straight into the ball (elastic-ish impact)."""
    m1, m2 = t.button_mass_g, t.ball_mass_g
    return 2500 * (1 + t.restitution_piece) * m1 / (m1 + m2)


ANGLES = range(0, 360, 15)


def fire_ball(pieces, start, angle):
    sim = FlickSimulation(TABLE, start, pieces)
    sim.launch("ball", angle, fastest_ball_speed())
    return sim.run(frames=False)


def aim_from(target, angle, distance):
    a = math.radians(angle)
    return (target[0] - distance * math.cos(a), target[1] - distance * math.sin(a))


def _first(result, other):
    return next(c for c in result.ball_contacts() if c.other("ball") == other)


@pytest.mark.parametrize("angle", ANGLES)
def test_no_tunnelling_through_a_keeper(angle):
    keeper = (0.0, 0.0)
    r = fire_ball({"home": {"gk": keeper}, "away": {}}, aim_from(keeper, angle, 120), angle)
    c = _first(r, "home:gk")
    hx, hy = TABLE.keeper_half
    bx, by = c.a_pos
    gap = max(abs(bx) - hx, abs(by) - hy) - TABLE.ball_radius
    assert gap > -1.0  # found at the surface, not inside


@pytest.mark.parametrize("angle", range(-80, 81, 10))
def test_no_tunnelling_through_a_post(angle):
    post = TABLE.post_centres("+x")[1]
    r = fire_ball({"home": {}, "away": {}}, aim_from(post, angle, 60), angle)
    c = _first(r, "post")
    assert math.dist(c.a_pos, post) > TABLE.post_diameter / 2 + TABLE.ball_radius - 1.0


@pytest.mark.parametrize("angle", ANGLES)
def test_no_tunnelling_through_a_button(angle):
    button = (0.0, 100.0)
    r = fire_ball({"home": {}, "away": {"5": button}}, aim_from(button, angle, 100), angle)
    c = _first(r, "away:5")
    assert math.dist(c.a_pos, button) > TABLE.button_radius + TABLE.ball_radius - 1.0


@pytest.mark.parametrize("angle", ANGLES)
def test_no_tunnelling_through_the_rim(angle):
    r = fire_ball({"home": {}, "away": {}}, (0.0, 0.0), angle)
    assert any(c.b in ("rim", "net") for c in r.ball_contacts())
    assert TABLE.on_surface(r.ball, TABLE.ball_radius - 0.5)


def test_fastest_flick_into_ball_into_keeper():
    r = resolve_flick(TABLE, (700, 0), {"home": {"9": (650, 0)}, "away": {"gk": (790, 0)}},
                      "home", "9", 0, 2500)
    c = _first(r, "away:gk")
    assert c.speed_mm_s > 3000
    assert r.ball_out is None or not r.ball_out.goal


def test_converged_on_a_button_glancing_the_ball_into_the_rim():
    # spin from the first impact reaches the rim: the spin is kept in step with the velocities
    pieces = {"home": {"7": (-200, 0)}, "away": {}}
    a = resolve_flick(TABLE, (-150, -20), pieces, "home", "7", 0, 2500)
    b = resolve_flick(TABLE, (-150, -20), pieces, "home", "7", 0, 2500, stepping=Stepping().halved())
    fa, fb = final(a), final(b)
    assert max(math.dist(fa[k], fb[k]) for k in fa) <= 1.0


def test_ball_pressed_between_a_button_and_the_keeper_is_not_shot_out():
    # a contact that lasts across a short step and a long one is not warm started into a shot
    r = resolve_flick(TABLE, (600, 0), {"home": {"9": (560, 0)}, "away": {"gk": (800, 5)}},
                      "home", "9", 0, 2500)
    assert 700 < r.pieces["home"]["9"][0] < 800
    assert 780 < r.ball[0] < 800


# -- robustness: any position, any flick: no exception, no pieces left deep in each other ----
_xy = st.tuples(st.floats(-900, 900), st.floats(-580, 580))


def _overlap(table, ball, pieces) -> float:
    """The deepest overlap between two pieces or a piece and the ball (mm)."""
    discs = [(ball, table.ball_radius)]
    boxes = []
    for group in pieces.values():
        for pid, p in group.items():
            if pid == "gk":
                boxes.append(p)
            else:
                discs.append((p, table.button_radius))
    worst = 0.0
    for i, (p, r) in enumerate(discs):
        for q, s in discs[i + 1:]:
            worst = max(worst, r + s - math.dist(p, q))
        hx, hy = table.keeper_half
        for k in boxes:
            dx, dy = abs(p[0] - k[0]) - hx, abs(p[1] - k[1]) - hy
            gap = math.hypot(dx, dy) if dx > 0 and dy > 0 else max(dx, dy)
            worst = max(worst, r - gap)
    return worst


@st.composite
def _positions(draw):
    """The ball and up to 8 pieces at random, none overlapping another (placed in order,
    a piece that would overlap is dropped)."""
    ball = draw(_xy)
    pieces = {"home": {}, "away": {}}
    placed = [(ball, TABLE.ball_radius)]
    for i in range(draw(st.integers(1, 8))):
        side = "home" if i % 2 == 0 else "away"
        pid = "gk" if draw(st.booleans()) and "gk" not in pieces[side] else str(i + 1)
        p = draw(_xy)
        r = math.hypot(*TABLE.keeper_half) if pid == "gk" else TABLE.button_radius
        if all(math.dist(p, q) > r + s + 0.5 for q, s in placed):
            pieces[side][pid] = p
            placed.append((p, r))
    return ball, pieces


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_positions(), st.floats(-180, 180), st.floats(0, 2500))
def test_any_flick_resolves_and_leaves_no_deep_overlap(position, angle, speed):
    ball, pieces = position
    movable = [(s, p) for s, g in pieces.items() for p in g if p != "gk"]
    if not movable:
        return
    side, piece = movable[0]
    r = resolve_flick(TABLE, ball, pieces, side, piece, angle, speed)
    assert TABLE.on_surface(r.ball, TABLE.ball_radius - 1.0)
    assert _overlap(TABLE, r.ball, r.pieces) < 1.0
    assert r.duration_s <= 15.0 + 1e-9


def _kick_off_on_a_fresh_space():
    """The battery's kick-off among 22 pieces (14 contacts), and its result on a new space."""
    f = next(f for f in battery() if f["name"] == "opening: kick-off")
    _fresh_kits()
    return f, bench_resolve(f, TABLE, DEFAULT_STEPPING)


def test_an_error_inside_the_run_frees_the_space_and_leaves_nothing_behind(monkeypatch):
    """An exception raised in the middle of a flick (here by the contacts' recording, called
    from the C loop) reaches the caller, and the friction joints made so far and the bodies
    are taken out: the next flick on the table gives what a brand-new space gives."""
    f, expected = _kick_off_on_a_fresh_space()
    real = FlickSimulation._after_event
    calls = []

    def failing(self, t, dt):
        calls.append(t)
        if len(calls) == 3:
            raise RuntimeError("recording failed")
        return real(self, t, dt)

    monkeypatch.setattr(FlickSimulation, "_after_event", failing)
    kit = physics._kit_for(TABLE)
    with pytest.raises(RuntimeError, match="recording failed"):
        bench_resolve(f, TABLE, DEFAULT_STEPPING)
    monkeypatch.undo()
    assert len(calls) == 3 and not kit.busy()
    assert bench_resolve(f, TABLE, DEFAULT_STEPPING) == expected


def test_the_engine_refuses_to_run_before_it_is_bound():
    """simulation._engine calls Chipmunk through addresses physics.py hands it; imported on its
    own it raises instead of calling through null pointers."""
    import subprocess
    import sys

    code = ("from simulation import _engine\n"
            "try:\n"
            "    _engine.place(1, 2, 3, 0.0, 0.0, True)\n"
            "except RuntimeError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "bind() has not been called" in out.stdout


def test_the_engine_refuses_a_position_that_is_not_a_finite_number():
    kit = physics._kit_for(TABLE)
    rec = kit.take(physics._BUTTON, 0)
    with pytest.raises(ValueError, match="not a finite position"):
        physics._engine.place(kit.cspace_addr, rec.addr, rec.shape_addr, math.nan, 0.0, True)
    assert not kit.busy()


def test_a_flick_runs_once_and_only_after_its_launch():
    sim = FlickSimulation(TABLE, (0, 0), LONE)
    with pytest.raises(RuntimeError, match="launch"):
        sim.run()
    sim.launch("home:7", 0, 500)
    sim.run()
    with pytest.raises(RuntimeError, match="run or closed already"):
        sim.run()


@pytest.mark.parametrize("call", ["run", "close"])
def test_a_flick_cannot_be_run_again_or_closed_from_inside_its_run(monkeypatch, call):
    f, expected = _kick_off_on_a_fresh_space()
    real = FlickSimulation._after_event
    refused = []

    def reenter(self, t, dt):
        try:
            getattr(self, call)()
        except RuntimeError as e:
            refused.append(str(e))
        return real(self, t, dt)

    monkeypatch.setattr(FlickSimulation, "_after_event", reenter)
    assert bench_resolve(f, TABLE, DEFAULT_STEPPING) == expected
    monkeypatch.undo()
    assert refused and all("running" in e or "while it runs" in e for e in refused)
    assert bench_resolve(f, TABLE, DEFAULT_STEPPING) == expected


def test_a_launched_flick_dropped_with_its_own_space_frees_its_joints(monkeypatch):
    """The friction joints are Chipmunk's memory: a flick launched and dropped on a private
    space (the thread's one was busy) has them freed when that space goes."""
    import gc

    cleared = []
    real = physics._Kit.clear

    def spy(kit):
        cleared.append(len(kit.placed))
        return real(kit)

    monkeypatch.setattr(physics._Kit, "clear", spy)
    holder = FlickSimulation(TABLE, (0, 0), LONE)
    dropped = FlickSimulation(TABLE, (0, 0), LONE)
    assert dropped.kit is not holder.kit
    dropped.launch("home:7", 0, 500)
    del dropped
    gc.collect()
    assert cleared == [2]  # the button and the ball, with the button's joints
    holder.close()


@pytest.mark.parametrize("field, value", [("cap_s", math.inf), ("cap_s", math.nan), ("base_step_s", 0),
                                          ("min_step", 0), ("land_depth_mm", -1), ("iterations", 0)])
def test_a_stepping_out_of_range_is_refused_with_its_field_named(field, value):
    with pytest.raises(ValueError, match=f"Stepping.{field} must be"):
        Stepping(**{field: value})


def test_the_engine_refuses_to_place_a_body_twice():
    sim = FlickSimulation(TABLE, (0, 0), LONE)
    rec = sim.bodies[0]
    with pytest.raises(ValueError, match="in a space already"):
        physics._engine.place(sim.kit.cspace_addr, rec.addr, rec.shape_addr, 0.0, 0.0, True)
    sim.close()
    assert resolve_flick(TABLE, (0, 0), LONE, "home", "7", 0, 500).pieces["home"]["7"][0] > -300


def test_a_flick_faster_than_the_solver_limit_keeps_its_speed():
    """Twice ``Stepping.speed_limit_mm_s`` (10 m/s) bounds a solver blow-up, not the flick: a
    rule set that allows 20 m/s gets 20 m/s (up to the engine's bound, 100 m/s)."""
    lone = {"home": {"7": (-600, -100)}, "away": {}}
    at_limit = resolve_flick(TABLE, (400, 300), lone, "home", "7", 0, 10_000, frames=False)
    faster = resolve_flick(TABLE, (400, 300), lone, "home", "7", 0, 20_000, frames=False)
    assert faster.steps > at_limit.steps and faster.pieces != at_limit.pieces
    with pytest.raises(ValueError, match="at most 100000 mm/s"):
        resolve_flick(TABLE, (400, 300), lone, "home", "7", 0, 100_001)
