"""What ``leagues`` tells players and organisers about what the players do themselves
(COMPETITIONS.md §11): a report waiting for your confirmation, a dispute (to the organisers), a
report made official by the clock, a kick-off proposed and its answer, an overdue fixture, and
the sign-ups waiting for the organisers' decision. Written in the transaction of the event
(``notifications.services.notify``); texts translated, times in the competition's zone.
"""
from __future__ import annotations

from datetime import datetime

from django.db.models import Count, Max, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.models import Competition, Fixture, KickoffProposal, ResultReport, SignUp
from leagues.notifications.models import Kind
from leagues.notifications.services import notify, speaking_to
from leagues.selectors.reports import overdue_fixtures
from leagues.services.notices import _names, fixture_url, name_at, user_at, users_answering, when

REMIND_WITHIN_DAYS = 60  # an older fixture left open (an old season's) is the organisers' to tidy, not a reminder


def short_when(moment: datetime, competition: Competition) -> str:
    """A moment within the week, in the competition's zone: "Tue 20:14"."""
    return date_format(timezone.localtime(moment, competition.zone), "D H:i")


def _score(report: ResultReport) -> str:
    text = f"{report.home_goals}-{report.away_goals}"
    if report.outcome == "walkover":
        return _("a walkover")
    if report.home_shootout is not None:
        text += _(", %(home)s-%(away)s on penalties") % {"home": report.home_shootout, "away": report.away_shootout}
    return text


def reporter_name(fixture: Fixture, report: ResultReport) -> str:
    """Who reported: the user's name when a captain reported for a team game, else the side's player or entrant."""
    player = fixture.home_player if report.side == "home" else fixture.away_player
    if fixture.tie_id is not None and report.by_id and (player is None or player.user_id != report.by_id):
        return report.by.get_full_name() or report.by.username
    return name_at(fixture, report.side)


def _organisers(competition: Competition):
    return list(competition.organisers.filter(is_active=True))


def report_waiting(*, fixture: Fixture, report: ResultReport) -> None:
    """Tells the opponent a result waits for their confirmation, and until when."""
    side = "away" if report.side == "home" else "home"
    competition = fixture.competition
    for index, user in enumerate(users_answering(fixture, side)):  # a team's: the game's player, its captain
        with speaking_to(user):
            notify(user=user, kind=Kind.REPORT_WAITING, url=fixture_url(fixture),
                   key=f"report-waiting:{report.pk}" if index == 0 else f"report-waiting:{report.pk}:{user.pk}",
                   subject=_("Confirm the result: %(fixture)s") % {"fixture": _names(fixture)},
                   body=_("%(name)s reported %(score)s for %(fixture)s (%(competition)s). Confirm or dispute it "
                          "before %(deadline)s; unanswered, it becomes official then.")
                   % {"name": reporter_name(fixture, report), "score": _score(report), "fixture": _names(fixture),
                      "competition": competition.name, "deadline": when(report.confirm_by, competition)})


def report_disputed(*, fixture: Fixture, report: ResultReport, reason: str) -> None:
    """Tells the organisers a reported result is disputed, and why."""
    competition = fixture.competition
    for user in _organisers(competition):
        with speaking_to(user):
            notify(user=user, kind=Kind.REPORT_DISPUTED, url=fixture_url(fixture),
                   key=f"report-disputed:{report.pk}:{user.pk}",
                   subject=_("Disputed result: %(fixture)s") % {"fixture": _names(fixture)},
                   body=_("The result of %(fixture)s (%(competition)s) reported as %(score)s is disputed: %(reason)s. "
                          "Record the result to settle it.")
                   % {"fixture": _names(fixture), "competition": competition.name, "score": _score(report),
                      "reason": reason})


def report_official_by_clock(*, fixture: Fixture, report: ResultReport) -> None:
    """Tells both players a report nobody answered is now official."""
    competition = fixture.competition
    for side in ("home", "away"):
        user = user_at(fixture, side)
        if user is None:
            continue
        with speaking_to(user):
            notify(user=user, kind=Kind.REPORT_OFFICIAL, url=fixture_url(fixture), key=f"report-clock:{report.pk}:{user.pk}",
                   subject=_("Official by the clock: %(fixture)s") % {"fixture": _names(fixture)},
                   body=_("Nobody answered the result %(score)s reported by %(name)s for %(fixture)s, so it is "
                          "official. It may still be disputed for %(days)d days.")
                   % {"score": _score(report), "name": reporter_name(fixture, report), "fixture": _names(fixture),
                      "days": competition.report_dispute_days})


def kickoff_proposed(*, fixture: Fixture, proposal: KickoffProposal) -> None:
    """Tells the opponent of a new kick-off proposed to them."""
    side = "away" if proposal.side == "home" else "home"
    user = user_at(fixture, side)
    if user is None:
        return
    competition = fixture.competition
    with speaking_to(user):
        body = _("%(name)s proposes to play %(fixture)s (%(competition)s) %(when)s. Accept or decline it on the "
                 "fixture's page.") % {"name": fixture.entrant(proposal.side).name, "fixture": _names(fixture),
                                       "competition": competition.name, "when": when(proposal.kickoff_at, competition)}
        if proposal.reason:
            body += "\n" + _("Reason: %(reason)s") % {"reason": proposal.reason}
        notify(user=user, kind=Kind.KICKOFF_PROPOSED, url=fixture_url(fixture), key=f"kickoff-proposed:{proposal.pk}",
               subject=_("A new kick-off proposed: %(fixture)s") % {"fixture": _names(fixture)}, body=body)


def kickoff_answered(*, fixture: Fixture, proposal: KickoffProposal) -> None:
    """Tells both players the answer to a proposal (accepted: the new kick-off; declined)."""
    competition = fixture.competition
    accepted = proposal.status == KickoffProposal.Status.ACCEPTED
    for side in ("home", "away"):
        user = user_at(fixture, side)
        if user is None:
            continue
        with speaking_to(user):
            values = {"fixture": _names(fixture), "when": when(proposal.kickoff_at, competition)}
            if accepted:
                subject = _("Kick-off moved by agreement: %(fixture)s") % values
                body = _("The kick-off of %(fixture)s proposed for %(when)s was accepted: it kicks off then.") % values
            else:
                subject = _("Kick-off proposal declined: %(fixture)s") % values
                body = _("The kick-off of %(fixture)s proposed for %(when)s was declined: it keeps its kick-off.") % values
            notify(user=user, kind=Kind.KICKOFF_ANSWERED, url=fixture_url(fixture),
                   key=f"kickoff-answered:{proposal.pk}:{user.pk}", subject=subject, body=body)


def overdue_reminders_due(*, now: datetime | None = None) -> int:
    """Reminds both players of each overdue fixture that kicked off in the last
    ``REMIND_WITHIN_DAYS``, once per fixture and kick-off. Returns how many."""
    now = now or timezone.now()
    written = 0
    for fixture in overdue_fixtures(now=now, within_days=REMIND_WITHIN_DAYS):
        for side in ("home", "away"):
            user = user_at(fixture, side)
            if user is None:
                continue
            with speaking_to(user):
                written += notify(
                    user=user, kind=Kind.FIXTURE_OVERDUE, url=fixture_url(fixture), now=now,
                    key=f"overdue:{fixture.pk}:{fixture.kickoff_at.isoformat()}:{user.pk}",
                    subject=_("Overdue: %(fixture)s") % {"fixture": _names(fixture)},
                    body=_("%(fixture)s (%(competition)s) was due %(when)s and has no result yet. Report the "
                           "result, or agree a new kick-off with your opponent.")
                    % {"fixture": _names(fixture), "competition": fixture.competition.name,
                       "when": when(fixture.kickoff_at, fixture.competition)}) is not None
    return written


def sign_ups_waiting_due(*, now: datetime | None = None) -> int:
    """Tells the organisers of each competition with sign-ups waiting for their decision how
    many (again at each new sign-up). Returns how many notifications were written."""
    now = now or timezone.now()
    pending = Q(sign_ups__status=SignUp.Status.PENDING)
    waiting = (Competition.objects.annotate(pending=Count("sign_ups", filter=pending),
                                            newest=Max("sign_ups__pk", filter=pending))
               .filter(pending__gt=0))
    written = 0
    for competition in waiting:
        url = reverse("site:competition", args=[competition.slug])
        for user in _organisers(competition):
            with speaking_to(user):
                written += notify(
                    user=user, kind=Kind.SIGN_UPS_WAITING, url=url, now=now,
                    key=f"sign-ups-waiting:{competition.pk}:{competition.newest}:{user.pk}",
                    subject=_("Sign-ups waiting: %(competition)s") % {"competition": competition.name},
                    body=ngettext("%(count)d sign-up for %(competition)s waits for your decision: confirm or refuse it.",
                                  "%(count)d sign-ups for %(competition)s wait for your decision: confirm or refuse them.",
                                  competition.pending)
                    % {"count": competition.pending, "competition": competition.name}) is not None
    return written
