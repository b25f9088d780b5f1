"""Results reported by the players of a table fixture and confirmed by the opponent
(COMPETITIONS.md §11).

In a team competition a game of a tie is reported like a single fixture, by one of its two
players (the line-ups' players at its table) or by either team's captain, and confirmed or
disputed by the other side (the other player, or the other captain); made official, it
re-derives the tie (``results.result_record`` settles the competition). A report on the tie
itself is refused: 409 ``tie_result_derived``.

A player's result is a ``ResultReport``, never official by itself; it becomes the fixture's
official result through the organiser's own service (``results.result_record``), in the
transaction that decides it, when

- the opponent confirms it (``report_confirm``),
- the opponent reports the same result (``report_submit``: official at once), or
- nobody answered within the competition's ``report_confirm_hours`` (``reports_due``: the
  sweeper finds them by a query, so a worker or broker that was down loses nothing).

Two different reports, or the opponent's ``report_dispute``, make it disputed: the organisers
are told, and their result (``result_record``, at any time) closes every open report. A report
made official by the clock may still be disputed for ``report_dispute_days``: the organisers are
told, the result stands until they change it.

Errors: ``ResultError`` (400, the field named: the same checks as an organiser's result),
``PlayError`` 403 (``not_your_fixture``, ``player_reports_off``) and 409 (``online_fixture``,
``result_official``, ``no_report``, ``report_changed``, ``report_disputed``,
``dispute_window_closed``), each with ``{"error", "detail"}``.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import Fixture, FixtureChange, ResultReport
from leagues.permissions import player_side
from leagues.rules.official import Recorded, ResultError
from leagues.services import report_notices
from leagues.services.history import change_record, fixture_state
from leagues.services.notices import name_at
from leagues.services.results import (
    ResultConflict,
    _check_takes_result,
    lock_fixture,
    official_for,
    result_record,
)
from matches.services.play import PlayError

logger = logging.getLogger(__name__)

RECORDED_FIELDS = ("outcome", "outcome_side", "home_goals", "away_goals", "home_et_goals", "away_et_goals",
                   "home_shootout", "away_shootout", "home_discipline", "away_discipline")


def other(side: str) -> str:
    return "away" if side == "home" else "home"


def report_state(report: ResultReport) -> dict[str, Any]:
    """What the history keeps of a report, and what the fixture shows as ``report``."""
    return {
        "id": report.pk, "by": report.side, "by_user": report.by.username if report.by_id else None,
        **{name: getattr(report, name) for name in RECORDED_FIELDS},
        "status": report.status, "reported_at": report.reported_at.isoformat(),
        "confirm_by": report.confirm_by.isoformat(),
        "official_at": report.official_at.isoformat() if report.official_at else None,
        "by_clock": report.by_clock,
        "disputed_at": report.disputed_at.isoformat() if report.disputed_at else None,
        "dispute_reason": report.dispute_reason,
    }


def _player_of(fixture: Fixture, user) -> str:
    """The side ``user`` answers for (``player_side``: a player of the fixture, a team game's
    player at its table, or a captain of one of its teams); ``PlayError`` 403 for anyone else."""
    side = player_side(user, fixture)
    if side is None:
        raise PlayError(403, "not_your_fixture", _("only the two players of this fixture may do this"))
    return side


def _check_reportable(fixture: Fixture) -> None:
    if fixture.is_online:
        raise PlayError(409, "online_fixture", _("this fixture is played online: its match decides its result"))
    if not fixture.competition.player_reports:
        raise PlayError(403, "player_reports_off",
                        _("in this competition only the organisers record results"))
    if fixture.status in Fixture.RESULTED:
        raise PlayError(409, "result_official", _("this fixture's result is official already; ask the organisers "
                                                  "to correct it"))


def _open_reports(fixture: Fixture) -> dict[str, ResultReport]:
    rows = ResultReport.objects.select_for_update().filter(fixture=fixture, status__in=ResultReport.ACTIVE)
    return {r.side: r for r in rows}


def _make_official(*, fixture: Fixture, report: ResultReport, by, reason: str, now: datetime,
                   by_clock: bool = False) -> None:
    """Records ``report`` as the fixture's official result through the organiser's service (which
    closes the other open reports), then marks it official."""
    result_record(fixture=fixture, recorded_by=by, reason=reason, now=now,
                  **{name: getattr(report, name) for name in RECORDED_FIELDS})
    report.status = ResultReport.Status.OFFICIAL
    report.official_at = now
    report.by_clock = by_clock
    report.confirmed_by = by if getattr(by, "pk", None) else None
    report.save(update_fields=["status", "official_at", "by_clock", "confirmed_by"])


def _name(fixture: Fixture, side: str) -> str:
    return name_at(fixture, side)


def report_submit(*, fixture: Fixture, user, now: datetime | None = None, **recorded: Any) -> ResultReport:
    """One of the fixture's players reports its result (``recorded``: the organiser's result
    fields, ``home_goals`` ... ``away_discipline``). Replaces their own open report. When the
    opponent has an open report of the same result, it is official at once; of another result,
    both are disputed (the organisers told); otherwise it waits for the opponent until
    ``report_confirm_hours`` from now. Returns the report. Errors: see the module."""
    now = now or timezone.now()
    values = {name: recorded.get(name, 0 if "goals" in name or "discipline" in name else "")
              for name in RECORDED_FIELDS}
    for name in ("home_shootout", "away_shootout"):
        values[name] = recorded.get(name)
    values["outcome"] = values["outcome"] or "played"
    with transaction.atomic():
        competition, fixture = lock_fixture(fixture.pk)
        side = _player_of(fixture, user)
        _check_takes_result(fixture)  # first: a team tie is 409 tie_result_derived, whatever its state
        _check_reportable(fixture)
        official_for(fixture, Recorded(**{k: values[k] for k in (
            "home_goals", "away_goals", "outcome", "outcome_side", "home_et_goals", "away_et_goals",
            "home_shootout", "away_shootout")}))  # the organiser's checks: ResultError, nothing stored
        open_reports = _open_reports(fixture)
        if side in open_reports:
            open_reports[side].status = ResultReport.Status.REPLACED
            open_reports[side].save(update_fields=["status"])
        report = ResultReport.objects.create(
            fixture=fixture, side=side, by=user, reported_at=now,
            confirm_by=now + timedelta(hours=competition.report_confirm_hours), **values)
        change_record(fixture=fixture, kind=FixtureChange.Kind.REPORTED, before=fixture_state(fixture),
                      after={**fixture_state(fixture), "report": report_state(report)}, by=user, now=now)
        theirs = open_reports.get(other(side))
        if theirs is not None and theirs.score_key() == report.score_key():
            _make_official(fixture=fixture, report=theirs, by=user, now=now, reason=_(
                "reported alike by %(first)s and %(second)s") % {
                    "first": _name(fixture, theirs.side), "second": _name(fixture, side)})
            report.status = ResultReport.Status.OFFICIAL
            report.official_at = now
            report.save(update_fields=["status", "official_at"])
        elif theirs is not None:
            for row in (theirs, report):
                row.status = ResultReport.Status.DISPUTED
                row.disputed_at = now
                row.save(update_fields=["status", "disputed_at"])
            report_notices.report_disputed(fixture=fixture, report=report, reason=_(
                "the two players reported different results"))
        else:
            report_notices.report_waiting(fixture=fixture, report=report)
    return report


def report_confirm(*, fixture: Fixture, user, report_id: int | None = None,
                   now: datetime | None = None) -> ResultReport:
    """The opponent confirms the open report (``report_id``: the one they saw; absent, the report
    as it stands): it becomes the official result, both players in the history. Errors: 409
    ``no_report``, ``report_changed`` (the reporter replaced it since), ``report_disputed``."""
    now = now or timezone.now()
    with transaction.atomic():
        _competition, fixture = lock_fixture(fixture.pk)
        side = _player_of(fixture, user)
        _check_reportable(fixture)
        report = _open_reports(fixture).get(other(side))
        if report is None:
            raise PlayError(409, "no_report", _("your opponent has reported no result for you to confirm"))
        if report_id is not None and report.pk != report_id:
            raise PlayError(409, "report_changed", _(
                "%(name)s changed the report since you saw it (now %(home)d-%(away)d); check it and confirm again")
                % {"name": _name(fixture, report.side), "home": report.home_goals, "away": report.away_goals},
                report=report.pk)
        if report.status == ResultReport.Status.DISPUTED:
            raise PlayError(409, "report_disputed", _("this report is disputed: the organisers decide the result"))
        _make_official(fixture=fixture, report=report, by=user, now=now, reason=_(
            "reported by %(reporter)s, confirmed by %(confirmer)s") % {
                "reporter": _name(fixture, report.side), "confirmer": _name(fixture, side)})
    return report


def report_dispute(*, fixture: Fixture, user, reason: str, now: datetime | None = None) -> ResultReport:
    """The opponent disputes the open report (or, for ``report_dispute_days``, one the clock made
    official: that result stands until the organisers change it); the organisers are told.
    Errors: 400 ``reason`` (empty), 409 ``no_report``, ``dispute_window_closed``."""
    now = now or timezone.now()
    reason = (reason or "").strip()
    if not reason:
        raise PlayError(400, "reason", _("say why you dispute this result"), field="reason")
    with transaction.atomic():
        competition, fixture = lock_fixture(fixture.pk)
        side = _player_of(fixture, user)
        if fixture.is_online:
            raise PlayError(409, "online_fixture", _("this fixture is played online: its match decides its result"))
        report = _open_reports(fixture).get(other(side))
        if report is None:
            report = (ResultReport.objects.select_for_update()
                      .filter(fixture=fixture, side=other(side), status=ResultReport.Status.OFFICIAL, by_clock=True)
                      .order_by("-pk").first())
            if report is None:
                raise PlayError(409, "no_report", _("your opponent has reported no result for you to dispute"))
            if now > report.official_at + timedelta(days=competition.report_dispute_days):
                raise PlayError(409, "dispute_window_closed", _(
                    "this result has been official since %(when)s: the time to dispute it is over; write to the "
                    "organisers") % {"when": report_notices.short_when(report.official_at, competition)})
        else:
            report.status = ResultReport.Status.DISPUTED
        report.disputed_at, report.disputed_by, report.dispute_reason = now, user, reason
        report.save(update_fields=["status", "disputed_at", "disputed_by", "dispute_reason"])
        change_record(fixture=fixture, kind=FixtureChange.Kind.REPORT_DISPUTED, before={},
                      after={"report": report_state(report)}, by=user, reason=reason, now=now)
        report_notices.report_disputed(fixture=fixture, report=report, reason=reason)
    return report


def reports_due(*, now: datetime | None = None, limit: int = 200) -> int:
    """Makes official every undisputed report nobody answered by its ``confirm_by`` (beat's
    sweeper; found by a query, so a late run finds them all). A report that cannot be official
    (in a knockout, a winner who has played on) is marked disputed instead and the organisers
    are told, so one refusal never stops the sweeper. Returns how many became official."""
    now = now or timezone.now()
    due = list(ResultReport.objects.filter(status=ResultReport.Status.WAITING, confirm_by__lte=now,
                                           fixture__status__in=Fixture.OPEN)
               .order_by("confirm_by").values_list("pk", flat=True)[:limit])
    done = 0
    for pk in due:
        try:
            done += _make_official_by_clock(pk, now)
        except (ResultError, ResultConflict) as exc:  # e.g. a knockout winner who has played on
            message = exc.message if isinstance(exc, ResultError) else exc.detail
            logger.warning("report %s cannot become official by the clock: %s", pk, message)
            with transaction.atomic():
                report = ResultReport.objects.select_for_update().select_related("fixture__competition").get(pk=pk)
                if report.status == ResultReport.Status.WAITING:
                    report.status, report.disputed_at, report.dispute_reason = (
                        ResultReport.Status.DISPUTED, now, message)
                    report.save(update_fields=["status", "disputed_at", "dispute_reason"])
                    report_notices.report_disputed(fixture=report.fixture, report=report, reason=message)
    return done


def _make_official_by_clock(pk: int, now: datetime) -> int:
    with transaction.atomic():
        fixture_id = ResultReport.objects.filter(pk=pk).values_list("fixture_id", flat=True).get()
        competition, fixture = lock_fixture(fixture_id)
        report = ResultReport.objects.select_for_update().get(pk=pk)
        if report.status != ResultReport.Status.WAITING or fixture.status not in Fixture.OPEN:
            return 0
        _make_official(fixture=fixture, report=report, by=None, now=now, by_clock=True, reason=_(
            "reported by %(reporter)s; not confirmed nor disputed within %(hours)d hours: official by the "
            "clock") % {"reporter": _name(fixture, report.side), "hours": competition.report_confirm_hours})
        report_notices.report_official_by_clock(fixture=fixture, report=report)
        return 1
