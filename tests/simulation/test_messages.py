"""Every call explained in words: each referee event and refusal carries a message
``{"key", "params"}`` whose key is in its referee's catalogue (``simulation.rules.messages``) and
whose template uses no placeholder but its params (and ``player``, the name of the player of
``params["side"]``, filled in by the site).

Two checks: the source of the referees, read statically (every key an ``emit`` or a ``refusal``
can give, and, where the call spells its params out, the placeholders), and a corpus of real
output (every scenario file, random play on both referees, short bot matches) whose messages
are all rendered. The catalogues hold no sentence that nothing can emit.
"""
from __future__ import annotations

import ast
import itertools
import json
import math
import random
from pathlib import Path

import pytest

from simulation.actions import DeclareShot, Flick, Place, PlaceGoalkeeper, Ready, Tick
from simulation.bots import OneTouchBot, PassiveBot, play_match
from simulation.bots.mbs import MbsBot
from simulation.rules import RuleViolation, make_referee
from simulation.rules.messages import CATALOGUES, placeholders, render
from simulation.rules.one_touch import NO_SHOT_FROM
from simulation.scenario import run
from simulation.state import PERIODS, RESTART_KINDS, MatchState
from simulation.table import SIDES

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "simulation" / "rules"
SCENARIOS = sorted((ROOT / "tests" / "simulation" / "scenarios").rglob("*.json")) + sorted(
    (ROOT.parent / "shared" / "scenarios").rglob("*.json"))
# the values an f-string key may take, by the expression it formats
DOMAINS = {"kind": RESTART_KINDS, "state.period": PERIODS, "state.phase": NO_SHOT_FROM}
REFEREES = tuple(CATALOGUES)


# ------------------------------------------------------------------ reading the source
def _modules() -> list[tuple[Path, tuple[str, ...]]]:
    """The referees' modules, each with the rule sets whose catalogues its keys must be in."""
    out = []
    for path in sorted(RULES.rglob("*.py")):
        if "messages" in path.parts:
            continue
        owners = tuple(r for r in REFEREES if r in path.relative_to(RULES).parts[0])
        out.append((path, owners or REFEREES))
    return out


def _keys(node: ast.expr, scope: ast.AST | None = None) -> list[str]:
    """The keys a key expression can give: a literal, either branch of a conditional, an
    f-string over one of ``DOMAINS``, or a name given such values in the function ``scope``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _keys(node.body, scope) + _keys(node.orelse, scope)
    if isinstance(node, ast.Name) and scope is not None:
        values = [n.value for n in ast.walk(scope) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
        assert values, f"line {node.lineno}: {node.id} is given no key in its function"
        return [k for v in values for k in _keys(v, scope)]
    if isinstance(node, ast.JoinedStr):
        parts: list[tuple[str, ...]] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append((value.value,))
            else:
                name = ast.unparse(value.value)
                assert name in DOMAINS, f"line {node.lineno}: the key formats {name!r}: give DOMAINS its values"
                parts.append(DOMAINS[name])
        return ["".join(p) for p in itertools.product(*parts)]
    raise AssertionError(f"line {node.lineno}: a message key must be a literal, a conditional or an "
                         f"f-string over a known domain, not {ast.unparse(node)}")


def message_calls():
    """``(module, owners, key expression, given params or None, line)`` for every ``emit`` and
    ``refusal`` call of the referees; ``None`` when the params are not spelt out."""
    for path, owners in _modules():
        tree = ast.parse(path.read_text())
        functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            scope = min((f for f in functions if f.lineno <= node.lineno <= f.end_lineno),
                        key=lambda f: f.end_lineno - f.lineno, default=None)
            if node.func.attr == "emit" and len(node.args) >= 2:
                key, given = node.args[1], set()
            elif node.func.attr == "refusal" and node.args:
                key, given = node.args[0], {"rule"}
            else:
                continue
            spelt = True
            for kw in node.keywords:
                if kw.arg is None:
                    spelt = False
                elif kw.arg == "params":
                    if isinstance(kw.value, ast.Dict) and all(isinstance(k, ast.Constant) for k in kw.value.keys):
                        given |= {k.value for k in kw.value.keys}
                    else:
                        spelt = False
                elif kw.arg != "at":
                    given.add(kw.arg)
            yield path.name, owners, (key, scope), given if spelt else None, node.lineno


def static_keys() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {r: set() for r in REFEREES}
    for _, owners, key, _, _ in message_calls():
        for k in _keys(*key):
            for r in owners:
                found[r].add(f"{r}.{k}")
    return found


def test_every_key_in_the_source_is_in_its_catalogue():
    missing = [(r, k) for r, keys in static_keys().items() for k in sorted(keys) if k not in CATALOGUES[r]]
    assert missing == []


def test_no_catalogue_sentence_is_dead():
    found = static_keys()
    dead = [k for r in REFEREES for k in sorted(CATALOGUES[r]) if k not in found[r]]
    assert dead == []


def test_placeholders_are_among_the_params_a_call_gives():
    problems = []
    for module, owners, key, given, line in message_calls():
        if given is None:
            continue  # params not spelt out: the corpus below checks them
        for r in owners:
            for k in _keys(*key):
                names = placeholders(CATALOGUES[r][f"{r}.{k}"])
                if "player" in names and "side" not in given:
                    problems.append(f"{module}:{line} {r}.{k}: {{player}} without a side")
                extra = names - given - {"player"}
                if extra:
                    problems.append(f"{module}:{line} {r}.{k}: {sorted(extra)} not given")
    assert problems == []


# ------------------------------------------------------------------ real output
def check_message(rules: str, message, where: str) -> None:
    assert isinstance(message, dict) and set(message) == {"key", "params"}, where
    key, params = message["key"], message["params"]
    assert key in CATALOGUES[rules], f"{where}: {key} is in no catalogue"
    for name, value in params.items():
        assert isinstance(value, (str, int, float, bool)) and not isinstance(value, dict), (where, name)
    if "side" in params:
        assert params["side"] in SIDES, where
    names = placeholders(CATALOGUES[rules][key])
    assert names - {"player"} <= set(params), f"{where}: {key} lacks {names - {'player'} - set(params)}"
    if "player" in names:
        assert "side" in params, f"{where}: {key} names the player of no side"
    sentence = render(key, params, {"home": "Rossi", "away": "Souza"})
    assert "{" not in sentence and sentence, where


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_event_and_refusal_of_a_scenario_speaks(path):
    doc = json.loads(path.read_text())
    out = run(doc)
    for i, event in enumerate(out["events"]):
        check_message(doc["rules"], event.get("message"), f"{path.name} event {i} {event['type']}")
        assert event["message"]["params"].get("rule") == event.get("rule")
    if out["rejected"]:
        check_message(doc["rules"], out["rejected"]["message"], f"{path.name} refusal")
        assert out["rejected"]["message"]["params"].get("rule") == out["rejected"]["rule"]


def _random_action(referee, state: MatchState, rng: random.Random):
    side = state.to_move if rng.random() < 0.85 else rng.choice(SIDES)
    pieces = [p for p in state.pieces.get(side, {}) if p != "gk"] or ["1"]
    t = state.clock_s + rng.choice([0.5, 2.0, 10.0, 31.0])
    kind = rng.random()
    if kind < 0.45:
        return Flick(side=side, piece=rng.choice(pieces + ["gk"]), angle_deg=rng.uniform(-180, 180),
                     speed_mm_s=rng.choice([rng.uniform(100, 2500), 3000.0, 0.0]), t=t)
    if kind < 0.55:
        return DeclareShot(side=side, t=t)
    if kind < 0.65:
        return PlaceGoalkeeper(side=side, at=(rng.uniform(-840, 840), rng.uniform(-200, 200)), t=t)
    if kind < 0.8:
        b = state.ball
        piece = rng.choice(pieces + ["ball"])
        return Place(side=side, piece=piece, at=(b[0] + rng.uniform(-120, 120), b[1] + rng.uniform(-120, 120)), t=t)
    if kind < 0.95:
        return Ready(side=side, t=t)
    return Tick(t=t)


@pytest.mark.parametrize("rules", REFEREES)
def test_random_play_speaks_in_every_event_and_refusal(rules):
    referee = make_referee(rules, {"frames": False, "half_minutes": 2, "knockout": True,
                                   "extra_time_minutes": 1, "shootout_kicks": 2})
    rng = random.Random(16)
    refusals = events = 0
    for start in range(6):
        state = referee.initial_state("home" if start % 2 else "away", "+x" if start < 3 else "-x")
        for _ in range(300):
            if state.phase == "full_time":
                break
            action = _random_action(referee, state, rng)
            try:
                outcome = referee.apply(state, action)
            except RuleViolation as exc:
                refusals += 1
                check_message(rules, exc.message, f"refusal of {action}")
                assert exc.reason == render(exc.key, exc.params)
                continue
            for e in outcome.events:
                events += 1
                check_message(rules, e.to_json()["message"], f"{e.type} after {action}")
            state = outcome.state
    assert refusals > 50 and events > 40


@pytest.mark.parametrize("rules,bot", [("one_touch", OneTouchBot), ("mbs", MbsBot)])
def test_a_bot_match_speaks(rules, bot):
    referee = make_referee(rules, {"frames": False, "half_minutes": 1})
    final, log = play_match(referee, bot(), PassiveBot(), seconds_per_action=5, seed=3)
    state = referee.initial_state()
    for action in log:
        outcome = referee.apply(state, action)
        for e in outcome.events:
            check_message(rules, e.to_json()["message"], f"{e.type}")
        state = outcome.state
    assert final.phase == "full_time"


@pytest.mark.parametrize("rules", REFEREES)
def test_full_time_after_a_shootout_or_a_disqualification_speaks(rules):
    referee = make_referee(rules, {})
    state = referee.initial_state()
    ctx = referee.context(100.0)
    referee.finish(ctx, state, shootout={"home": 4, "away": 3}, winner="home")
    referee.finish(ctx, state, disqualified="away")
    keys = [e.message["key"] for e in ctx.events]
    assert keys == [f"{rules}.full_time.shootout", f"{rules}.full_time.disqualification"]
    for e in ctx.events:
        check_message(rules, e.to_json()["message"], e.type)
    assert render(keys[0], ctx.events[0].message["params"], {"home": "Rossi"}).endswith("Rossi wins the shoot-out 4-3")


def test_a_refusal_carries_key_params_and_rule():
    referee = make_referee("one_touch", {})
    state = MatchState.from_json({"ball": [0, 0], "pieces": {"home": {"7": [-100, 0]}, "away": {}}})
    with pytest.raises(RuleViolation) as info:
        referee.apply(state, Flick(side="away", piece="7", angle_deg=0, speed_mm_s=100))
    exc = info.value
    assert (exc.key, exc.rule) == ("one_touch.refused.not_your_turn", "rulebook 3")
    assert exc.params == {"side": "away", "to_move": "home", "rule": "rulebook 3"}
    assert exc.message == {"key": exc.key, "params": exc.params}
    assert render(exc.key, exc.params, {"away": "Souza"}) == "It is not Souza's turn"
    assert str(exc) == "It is not away's turn (rulebook 3)"


def test_templates_are_marked_for_translation():
    """Each catalogue module marks every template with a local ``gettext_noop`` (what Django's
    makemessages extracts): the dict's values are all calls of it on a literal."""
    for name in ("common", "one_touch", "mbs"):
        tree = ast.parse((RULES / "messages" / f"{name}.py").read_text())
        assert any(isinstance(n, ast.FunctionDef) and n.name == "gettext_noop" for n in tree.body), name
        table = next(n.value for n in tree.body if isinstance(n, ast.AnnAssign) and n.target.id == "MESSAGES")
        for value in table.values:
            assert isinstance(value, ast.Call) and value.func.id == "gettext_noop", (name, ast.unparse(value))
            assert all(isinstance(a, ast.Constant) for a in value.args), (name, ast.unparse(value))


def test_no_param_is_a_position_or_a_float_that_is_not_finite():
    out = run(json.loads((ROOT / "tests/simulation/scenarios/one_touch/foul_button_before_ball.json").read_text()))
    for event in out["events"]:
        for value in event["message"]["params"].values():
            assert not isinstance(value, list)
            assert not (isinstance(value, float) and not math.isfinite(value))
