"""Every writer refuses bad input cleanly (issue 15): property-based, with Hypothesis.

Random and hostile values (NUL bytes, over-long text, numbers beyond any column, NaN, the wrong
type, Unicode a slug cannot hold, broken JSON and UTF-8) go to

- every write operation of the API: the answer is never a 5xx (a 400 naming the field, or the
  status the schema gives);
- the site's forms (a competition, an entrant, a result, a decision, a kick-off, a
  registration): the page answers, never a 5xx;
- ``import_results``: the file is imported or refused with exit 2 and one line, never a
  traceback;
- the scenario runner: exit 0 or 2 with one line ``malformed scenario: ...``, never a
  traceback.

Bounded: ``max_examples`` per writer and no deadline per example (the machine is shared);
the whole file runs in well under a minute.
"""
from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.matches.conftest import make_league

BOUNDED = settings(max_examples=10, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                          HealthCheck.data_too_large])
FILES = settings(BOUNDED, max_examples=40)

HOSTILE_TEXT = st.sampled_from([
    "", " ", "\x00", "a\x00b", "x" * 5000, "9" * 40, "-1", "0", "1e309", "NaN", "Infinity", "-0", "0x1F",
    "taça-2012", "ŽŽŽ", "\u202eevil", "\u200b", "😀" * 50, "<script>alert(1)</script>", "' OR 1=1 --",
    "2026-02-30", "9999-12-31T25:61", "home", "away", "both", "walkover", "１２", "²", "\n\r\t",
]) | st.text(max_size=60)
HOSTILE_NUMBER = st.sampled_from([0, -1, 1, 2**15, 2**31, 2**63, -(2**63) - 1, 10**30, 1e308, -1e308, 0.5,
                                  float("nan"), float("inf")]) | st.integers() | st.floats()
HOSTILE_SCALAR = HOSTILE_TEXT | HOSTILE_NUMBER | st.booleans() | st.none()
HOSTILE_JSON = st.recursive(HOSTILE_SCALAR, lambda inner: st.lists(inner, max_size=3)
                            | st.dictionaries(HOSTILE_TEXT, inner, max_size=3), max_leaves=6)


def hostile_body(fields: list[str]):
    """An object over ``fields`` (and other keys) with hostile values, or bytes that are not one."""
    keys = st.sampled_from(fields) | HOSTILE_TEXT
    obj = st.dictionaries(keys, HOSTILE_JSON, max_size=len(fields) + 2)
    other = st.one_of(HOSTILE_JSON.map(lambda v: json.dumps(v, allow_nan=True).encode()),
                      st.binary(max_size=200), st.just(b'{"a": ' * 3000))
    return st.one_of(obj, obj, obj, other)


# --- the API -------------------------------------------------------------------------------------

API_WRITERS = [
    ("post", "/api/auth/token/", ["username", "password"]),
    ("post", "/api/competitions/", ["name", "slug", "format", "season", "points_win", "kickoff_time",
                                    "time_zone", "tiebreak_criteria", "group_count", "venue", "rule_params"]),
    ("patch", "/api/competitions/{slug}/", ["name", "points_win", "kickoff_time", "first_date", "organisers",
                                            "half_minutes", "tiebreak_preset", "withdrawal_policy"]),
    ("post", "/api/competitions/{slug}/generate-fixtures/", ["seeding"]),
    ("put", "/api/competitions/{slug}/registration/", ["opens_at", "closes_at", "capacity", "waiting_list"]),
    ("post", "/api/entrants/", ["competition", "name", "player", "club", "seed"]),
    ("patch", "/api/entrants/{entrant}/", ["name", "player", "club", "seed"]),
    ("post", "/api/fixtures/{fixture}/result/", ["outcome", "outcome_side", "home_goals", "away_goals",
                                                 "home_et_goals", "home_shootout", "reason", "home", "away"]),
    ("post", "/api/fixtures/{fixture}/decision/", ["outcome", "outcome_side", "reason", "cascade"]),
    ("post", "/api/fixtures/{fixture}/annul-match/", ["reason", "cascade"]),
    ("post", "/api/fixtures/{fixture}/reschedule/", ["kickoff_at", "reason"]),
    ("post", "/api/sign-ups/", ["competition"]),
    ("post", "/api/ranking-tiers/", ["name", "factor"]),
    ("put", "/api/ranking/scale/", ["first", "second", "third_fourth", "other", "window_months"]),
    ("put", "/api/notifications/preferences/", ["kind", "inbox", "email"]),
    ("post", "/api/matches/practice/", ["rule_set", "side", "rule_params"]),
    ("post", "/api/matches/{match}/actions/", ["seq", "action"]),
]


@pytest.fixture
def world(db):
    """An online league of four, its fixtures drawn; a federation administrator who also plays a
    live practice match."""
    from django.contrib.auth import get_user_model

    from matches.services.online import practice_create

    competition = make_league(4, slug="hostile")
    admin = get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    match = practice_create(user=admin)
    return {"competition": competition, "admin": admin, "slug": competition.slug,
            "entrant": competition.entrants.first().pk, "fixture": competition.fixtures.first().pk,
            "match": match.pk}


def api_writer_check(client, method: str, url: str, fields: list[str]):
    @BOUNDED
    @given(body=hostile_body(fields), as_form=st.booleans())
    def check(body, as_form):
        if isinstance(body, dict) and as_form:  # a form: every value as text
            data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}
            response = getattr(client, method)(url, data, format="multipart")
        else:
            raw = json.dumps(body, allow_nan=True).encode() if isinstance(body, dict) else body
            response = client.generic(method.upper(), url, raw, content_type="application/json")
        assert response.status_code < 500, (method, url, body, response.content[:300])

    return check


def test_no_api_writer_answers_5xx(world):
    """Each writer in turn (one world for all: setting it up costs more than the requests)."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(world["admin"])
    for method, path, fields in API_WRITERS:
        api_writer_check(client, method, path.format(**world), fields)()


# --- the forms -----------------------------------------------------------------------------------

FORMS = [
    ("/manage/new/", ["name", "slug", "format", "season", "points_win", "kickoff_time", "time_zone",
                      "tiebreak_criteria", "first_date"]),
    ("/manage/{slug}/settings/", ["name", "points_win", "points_draw", "kickoff_time", "time_zone", "half_minutes"]),
    ("/manage/{slug}/", ["player", "name", "club", "seed"]),
    ("/manage/{slug}/registration/", ["opens_at", "closes_at", "capacity", "waiting_list"]),
    ("/manage/fixtures/{fixture}/result/", ["outcome", "outcome_side", "home_goals", "away_goals", "home_shootout",
                                            "reason", "cascade", "home_entrant", "away_entrant"]),
    ("/manage/fixtures/{fixture}/decision/", ["outcome", "outcome_side", "reason", "cascade"]),
    ("/manage/fixtures/{fixture}/reschedule/", ["kickoff", "reason"]),
    ("/manage/{slug}/reschedule-round/", ["round", "kickoff", "reason"]),
]


def form_check(client, url: str, fields: list[str]):
    @BOUNDED
    @given(data=st.dictionaries(st.sampled_from(fields) | HOSTILE_TEXT, HOSTILE_TEXT, max_size=len(fields) + 1))
    def check(data):
        response = client.post(url, data)
        assert response.status_code < 500, (url, data, response.status_code)

    return check


def test_no_form_answers_5xx(world, client):
    client.force_login(world["admin"])
    for path, fields in FORMS:
        form_check(client, path.format(**world), fields)()


# --- import_results --------------------------------------------------------------------------------

COLUMNS = ["date", "round", "stage", "group", "home", "away", "home_goals", "away_goals", "outcome",
           "outcome_side", "home_discipline", "away_discipline", "home_shootout", "away_shootout"]


def csv_cell(value: str) -> str:
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n\r') else value


@st.composite
def results_files(draw) -> bytes:
    """A header of real (and unknown) columns and a few rows of hostile cells; sometimes raw bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    header = draw(st.lists(st.sampled_from(COLUMNS) | HOSTILE_TEXT, min_size=1, max_size=8, unique=True))
    good = {"home": st.sampled_from(["Ana", "Rui", "Eva"]), "away": st.sampled_from(["Ana", "Rui", "Eva"]),
            "home_goals": st.sampled_from(["0", "1", "3"]), "away_goals": st.sampled_from(["0", "2"]),
            "date": st.just("2026-03-01"), "round": st.sampled_from(["1", "2"])}
    rows = []
    for _ in range(draw(st.integers(0, 4))):
        rows.append([draw(good.get(name, HOSTILE_TEXT) | HOSTILE_TEXT) for name in header])
    text = "\n".join(",".join(csv_cell(c) for c in row) for row in [header, *rows]) + "\n"
    return text.encode("utf-8", "surrogatepass")


@pytest.mark.django_db
def test_import_results_never_raises_a_traceback(tmp_path):
    from leagues.models import Competition

    @FILES
    @given(content=results_files(), slug=st.sampled_from(["hostile-import", "taça-2012", "a" * 120, "x\x00"]))
    def check(content, slug):
        path = tmp_path / "results.csv"
        path.write_bytes(content)
        try:
            call_command("import_results", str(path), "--competition", slug, "--create", "--name", "Hostile",
                         stdout=StringIO())
        except CommandError as exc:
            assert exc.returncode == 2, exc
            assert "\n" not in str(exc).strip() and "\x00" not in str(exc), str(exc)
        finally:
            Competition.objects.filter(name="Hostile").delete()

    check()


# --- the scenario runner -------------------------------------------------------------------------

SCENARIOS = Path(__file__).resolve().parent / "simulation" / "scenarios"
BASES = [json.loads((SCENARIOS / name).read_text()) for name in (
    "one_touch/flick_over_max_speed_refused.json",
    "one_touch/declare_shot_from_own_half_refused.json",
    "one_touch/flick_of_piece_not_on_table_refused.json",
)]


def paths_of(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from paths_of(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from paths_of(value, (*prefix, i))


def replaced(doc, path, value):
    if not path:
        return value
    copy = json.loads(json.dumps(doc))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


@st.composite
def scenario_files(draw) -> bytes:
    """A real scenario with one value (or the whole) replaced by a hostile one; sometimes raw bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    base = draw(st.sampled_from(BASES))
    doc = base
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(list(paths_of(doc))))
        doc = replaced(doc, path, draw(HOSTILE_JSON))
    return json.dumps(doc, allow_nan=True).encode("utf-8", "surrogatepass")


def test_the_scenario_runner_never_raises_a_traceback(tmp_path, capsys):
    from simulation.scenario import main

    @FILES
    @given(content=scenario_files())
    def check(content):
        path = tmp_path / "scenario.json"
        path.write_bytes(content)
        capsys.readouterr()
        status = main([str(path)])
        err = capsys.readouterr().err
        assert status in (0, 2), (status, content[:300])
        if status == 2:
            assert err.startswith("malformed scenario: ") and err.count("\n") == 1, (err, content[:300])

    check()
