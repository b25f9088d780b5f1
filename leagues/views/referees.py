"""A table referee's pages, made for a phone at the table (COMPETITIONS.md §12):

- ``/competitions/<slug>/referee/``: the fixtures called to the referee's hall tables that wait
  for a result (first), then the results they recorded (to correct);
- ``/competitions/<slug>/referee/fixtures/<id>/``: the result form (the two players, the score,
  extra time and the shoot-out when the fixture may have them, a walkover, a note), with a key
  made when it is shown: sent twice (a double tap, a retry after a lost answer), it is stored once
  and the stored result is shown;
- ``/competitions/<slug>/referee/fixtures/<id>/saved/``: the confirmation.

The competition's organisers open them too (their result is theirs: official at every table).
Refusals are said in the reader's language.
"""
from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from leagues.models import Competition, Fixture
from leagues.permissions import referee_refusal, result_role
from leagues.referee_forms import RefereeResultForm, side_name
from leagues.rules.official import ResultError
from leagues.selectors.calls import table_label, table_name
from leagues.selectors.referees import (
    called_fixtures,
    may_referee,
    recorded_fixtures,
    referee_fixtures_qs,
    tables_of,
)
from leagues.services.locks import Busy
from leagues.services.referees import referee_result_record
from leagues.services.result_requests import result_once
from leagues.services.results import ResultConflict, result_record, result_token


def _competition(request: HttpRequest, slug: str) -> Competition:
    competition = get_object_or_404(Competition, slug=slug)
    if not may_referee(request.user, competition):
        raise PermissionDenied(_("You are not a referee of this competition."))
    return competition


def _fixture(competition: Competition, pk: int) -> Fixture:
    return get_object_or_404(referee_fixtures_qs(), pk=pk, competition=competition)


def _result_of(fixture: Fixture):
    try:
        return fixture.result
    except Fixture.result.RelatedObjectDoesNotExist:
        return None


def _named(fixtures: list[Fixture], competition: Competition) -> list[Fixture]:
    """Each fixture with the names a referee reads: its two sides, its official result and its
    hall table's name (``table_name``: the organiser's "Centre table", "" for none)."""
    for fixture in fixtures:
        fixture.home_shown, fixture.away_shown = side_name(fixture, "home"), side_name(fixture, "away")
        fixture.official = _result_of(fixture)
        fixture.table_name = table_name(competition, fixture.hall_table) if fixture.hall_table else ""
    return fixtures


@login_required
def referee_index(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition(request, slug)
    return render(request, "leagues/referee/index.html", {
        "competition": competition, "tables": tables_of(request.user, competition),
        "called": _named(called_fixtures(request.user, competition), competition),
        "recorded": _named(recorded_fixtures(request.user, competition), competition),
    })


def _initial(fixture: Fixture) -> dict:
    result = _result_of(fixture)
    initial = {"key": uuid.uuid4().hex, "home_entrant": fixture.home_id, "away_entrant": fixture.away_id,
               "previous": result_token(result)}
    if result is not None:
        walkover = result.outcome == "walkover"
        initial.update(outcome="walkover" if walkover else "played",
                       walkover_side=result.outcome_side if walkover else "",
                       home_goals=result.table_home_goals, away_goals=result.table_away_goals,
                       home_et_goals=result.home_et_goals, away_et_goals=result.away_et_goals,
                       home_shootout=result.home_shootout, away_shootout=result.away_shootout)
    return initial


def _record(request: HttpRequest, fixture: Fixture, role: str, recorded: dict) -> tuple[int, dict]:
    if role == "official":
        result_record(fixture=fixture, recorded_by=request.user, **recorded)
    else:
        referee_result_record(fixture=fixture, referee=request.user, **recorded)
    return 201, {"fixture": fixture.pk}


@login_required
def referee_result(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    competition = _competition(request, slug)
    fixture = _fixture(competition, pk)
    role = result_role(request.user, fixture)
    refusal = None
    if role not in ("official", "referee"):
        refusal = capfirst(referee_refusal(request.user, fixture) or _("You may not record this result."))
    form = RefereeResultForm(request.POST if request.method == "POST" else None, fixture=fixture,
                             initial=_initial(fixture))
    if request.method == "POST" and refusal is None and form.is_valid():
        recorded = form.recorded()
        try:
            answer = result_once(fixture=fixture, user=request.user, key=form.cleaned_data["key"], body=recorded,
                                 write=lambda: _record(request, fixture, role, recorded))
        except PermissionError as exc:
            refusal = capfirst(str(exc))
        except ResultError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, capfirst(exc.message))
        except ResultConflict as exc:
            if exc.code == "idempotency_key_reused":
                messages.warning(request, _("This form was sent already, with another result: the result stored "
                                            "is shown. To change it, correct it from a new form."))
                return redirect("site:referee-saved", slug=slug, pk=fixture.pk)
            if exc.code in ("entrants_changed", "result_changed"):  # the form again, for the fixture as it is now
                messages.error(request, capfirst(exc.detail))
                return redirect("site:referee-result", slug=slug, pk=fixture.pk)
            form.add_error(None, capfirst(exc.detail))
        except Busy as exc:
            form.add_error(None, capfirst(exc.detail))
        else:
            if answer.replayed:
                messages.info(request, _("This result was saved already; it is stored once."))
            return redirect("site:referee-saved", slug=slug, pk=fixture.pk)
    return render(request, "leagues/referee/result_form.html", {
        "competition": competition, "fixture": fixture, "form": form, "refusal": refusal,
        "table": table_label(competition, fixture.hall_table),
        "correction": _result_of(fixture) is not None,
        "home_name": form.names["home"], "away_name": form.names["away"], "score_rows": score_rows(form),
    }, status=403 if refusal else 200)


def score_rows(form: RefereeResultForm) -> list[tuple[str, list]]:
    """The form's score rows as the page shows them: a legend, the home and the away input."""
    rows = [(_("Score on the table"), ["home_goals", "away_goals"])]
    if form.extra_time:
        rows.append((_("Extra time (goals in it)"), ["home_et_goals", "away_et_goals"]))
    if form.shootout:
        rows.append((_("Shoot-out (leave empty if none)"), ["home_shootout", "away_shootout"]))
    return [(legend, [form[name] for name in names]) for legend, names in rows]


@login_required
def referee_saved(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    competition = _competition(request, slug)
    fixture = _fixture(competition, pk)
    result = _result_of(fixture)
    return render(request, "leagues/referee/saved.html", {
        "competition": competition, "fixture": fixture, "result": result,
        "table": table_label(competition, fixture.hall_table),
        "home_name": side_name(fixture, "home"), "away_name": side_name(fixture, "away"),
        "can_correct": result is not None and result.recorded_by_id == request.user.pk,
    })
