"""Reads of what the players of a fixture said (COMPETITIONS.md §11): each stage of its
reported result and of a proposed kick-off, as sentences for its page, and what the reader may
do next (confirm, dispute, report, propose, accept, decline)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from leagues.models import Competition, Fixture, KickoffProposal, ResultReport
from leagues.permissions import player_side


def _at(moment: datetime | None, fixture: Fixture) -> str:
    """ "Tue 20:14" in the competition's zone (a day of the week: reports live a few days)."""
    if moment is None:
        return ""
    return date_format(timezone.localtime(moment, fixture.competition.zone), "D j M, H:i")


def who(entrant) -> str:
    """An entrant as the page names it: the player's name, else the entrant's."""
    return entrant.player.full_name if entrant.player_id else entrant.name


def side_name(fixture: Fixture, side: str) -> str:
    """A side of ``fixture`` as its report sentences name it: a team tie's game, once both its
    players are lined up (so both line-ups are in, and shown to everyone), by the player at that
    side of its table; any other fixture by ``who``."""
    if fixture.tie_id is not None and fixture.home_player_id and fixture.away_player_id:
        return (fixture.home_player if side == "home" else fixture.away_player).full_name
    return who(fixture.entrant(side))


def _score(report: ResultReport) -> str:
    if report.outcome == "walkover":
        return _("a walkover")
    text = f"{report.home_goals}-{report.away_goals}"
    if report.home_shootout is not None:
        text += _(", %(home)s-%(away)s on penalties") % {"home": report.home_shootout, "away": report.away_shootout}
    return text


def report_sentence(fixture: Fixture, report: ResultReport, *, other: ResultReport | None = None) -> str:
    """The stage of ``report`` in words ("Ana reported 2-1 on Tue 1 Dec, 20:14; waiting for
    Marco's confirmation until Thu 3 Dec, 20:14")."""
    reporter, opponent = (side_name(fixture, side) for side in
                          (report.side, "away" if report.side == "home" else "home"))
    values = {"reporter": reporter, "opponent": opponent, "score": _score(report),
              "when": _at(report.reported_at, fixture), "deadline": _at(report.confirm_by, fixture)}
    status = report.status
    if status == ResultReport.Status.WAITING:
        return _("%(reporter)s reported %(score)s on %(when)s; waiting for %(opponent)s's confirmation until "
                 "%(deadline)s (unanswered, it becomes official then).") % values
    if status == ResultReport.Status.DISPUTED and other is not None and other.status == ResultReport.Status.DISPUTED:
        return _("%(reporter)s reported %(score)s on %(when)s and %(opponent)s reported %(other)s: the organisers "
                 "decide.") % {**values, "other": _score(other)}
    if status == ResultReport.Status.DISPUTED:
        return _("%(reporter)s reported %(score)s on %(when)s; %(opponent)s disputed it on %(disputed)s "
                 "(%(reason)s): the organisers decide.") % {
            **values, "disputed": _at(report.disputed_at, fixture), "reason": report.dispute_reason}
    if status == ResultReport.Status.OFFICIAL and report.by_clock:
        until = report.official_at + timedelta(days=fixture.competition.report_dispute_days)
        text = _("%(reporter)s reported %(score)s on %(when)s; nobody answered by %(deadline)s, so it became "
                 "official.") % values
        if report.disputed_at:
            return text + " " + _("%(opponent)s disputed it on %(disputed)s (%(reason)s); it stands until the "
                                  "organisers decide.") % {**values, "disputed": _at(report.disputed_at, fixture),
                                                           "reason": report.dispute_reason}
        return text + " " + _("%(opponent)s may dispute it until %(until)s.") % {**values, "until": _at(until, fixture)}
    if status == ResultReport.Status.OFFICIAL:
        return _("%(reporter)s reported %(score)s on %(when)s; %(opponent)s confirmed it on %(confirmed)s: it is "
                 "official.") % {**values, "confirmed": _at(report.official_at, fixture)}
    return _("%(reporter)s reported %(score)s on %(when)s; the organisers recorded the result.") % values


def proposal_sentence(fixture: Fixture, proposal: KickoffProposal) -> str:
    proposer = who(fixture.entrant(proposal.side))
    opponent = who(fixture.entrant("away" if proposal.side == "home" else "home"))
    values = {"proposer": proposer, "opponent": opponent, "kickoff": _at(proposal.kickoff_at, fixture),
              "when": _at(proposal.proposed_at, fixture), "answered": _at(proposal.answered_at, fixture)}
    if proposal.status == KickoffProposal.Status.OPEN:
        return _("%(proposer)s proposed on %(when)s to play on %(kickoff)s; waiting for %(opponent)s's answer.") % values
    if proposal.status == KickoffProposal.Status.ACCEPTED:
        return _("%(proposer)s proposed to play on %(kickoff)s; %(opponent)s accepted on %(answered)s.") % values
    if proposal.status == KickoffProposal.Status.DECLINED:
        return _("%(proposer)s proposed to play on %(kickoff)s; %(opponent)s declined on %(answered)s.") % values
    return _("%(proposer)s proposed to play on %(kickoff)s; the proposal was withdrawn.") % values


@dataclass
class PlayersPart:
    """What the fixture's page shows of the players' own part, and what the reader may do."""

    report_lines: list[str] = field(default_factory=list)
    open_report: ResultReport | None = None
    can_answer_report: bool = False
    can_dispute_official: bool = False
    can_report: bool = False
    proposal_line: str = ""
    open_proposal: KickoffProposal | None = None
    can_answer_proposal: bool = False
    can_propose: bool = False
    your_side: str | None = None


def players_part(*, fixture: Fixture, user, now: datetime | None = None) -> PlayersPart:
    """The players' part of ``fixture``'s page for ``user`` (anyone: the sentences; a player: the buttons)."""
    now = now or timezone.now()
    part = PlayersPart()
    if fixture.home_id is None or fixture.away_id is None:
        return part
    side = player_side(user, fixture)
    part.your_side = side
    competition = fixture.competition
    reports = list(fixture.reports.exclude(status=ResultReport.Status.REPLACED).order_by("-pk")[:2])
    if reports:
        latest = reports[0]
        earlier = reports[1] if len(reports) > 1 and reports[1].side != latest.side else None
        part.report_lines.append(report_sentence(fixture, latest, other=earlier))
        if latest.status in ResultReport.ACTIVE:
            part.open_report = latest
        part.can_answer_report = (side is not None and latest.status == ResultReport.Status.WAITING
                                  and latest.side != side)
        part.can_dispute_official = (side is not None and latest.side != side and latest.by_clock
                                     and latest.status == ResultReport.Status.OFFICIAL and not latest.disputed_at
                                     and now <= latest.official_at + timedelta(days=competition.report_dispute_days))
    a_tie = fixture.tie_id is None and competition.is_team  # its games take the reports
    open_fixture = fixture.status in Fixture.OPEN and not fixture.is_online and not a_tie
    part.can_report = (side is not None and open_fixture and competition.player_reports
                       and not part.can_answer_report)
    proposal = fixture.kickoff_proposals.order_by("-pk").first()
    if proposal is not None:
        part.proposal_line = proposal_sentence(fixture, proposal)
        if proposal.status == KickoffProposal.Status.OPEN:
            part.open_proposal = proposal
            part.can_answer_proposal = side is not None and proposal.side != side
    part.can_propose = (side is not None and fixture.status in Fixture.OPEN and competition.reschedule_by_players
                        and fixture.tie_id is None  # a game kicks off with its tie
                        and (fixture.match_id is None or not fixture.match.is_started))
    return part


def overdue_q() -> Q:
    """Table fixtures still open, with both entrants, whose kick-off is more than their
    competition's ``overdue_days`` ago and which no player has reported (an open report)."""
    return (Q(status__in=Fixture.OPEN, kickoff_at__isnull=False, home__isnull=False, away__isnull=False)
            & ~Q(venue="online") & ~Q(venue="", competition__venue="online"))


def overdue_fixtures(*, now: datetime | None = None, competition: Competition | None = None,
                     within_days: int | None = None, limit: int = 500) -> list[Fixture]:
    """The overdue fixtures (``overdue_q``, then each competition's ``overdue_days``), earliest
    first; ``within_days``: only those that kicked off in that many days before ``now``."""
    now = now or timezone.now()
    rows = (Fixture.objects.filter(overdue_q(), kickoff_at__lte=now - timedelta(days=1))
            .exclude(reports__status__in=ResultReport.ACTIVE)
            .select_related("competition", "round", "home__player__user", "away__player__user")
            .order_by("kickoff_at", "pk"))
    if competition is not None:
        rows = rows.filter(competition=competition)
    if within_days is not None:
        rows = rows.filter(kickoff_at__gt=now - timedelta(days=within_days))
    return [f for f in rows[:limit] if f.kickoff_at + timedelta(days=f.competition.overdue_days) <= now]
