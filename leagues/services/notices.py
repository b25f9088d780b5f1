"""What ``leagues`` tells the players, written in the same transaction as the event it announces
(``notifications.services.notify``; its e-mail goes after commit, or with the sweeper).

Called by the services that make the events: fixtures generated (``fixtures_scheduled``), a
knockout fixture given its entrants by the results (``fixture_ready``), a kick-off moved (``fixture_rescheduled``), a check-in (``opponent_checked_in``), a result made
official (``result_official``), a sign-up decided or moved up. Two events have no write of their
own and are found by beat (``leagues.tasks.sweep``) from the database: a check-in window that has
opened (``checkin_open_due``) and a kick-off passed with one side not checked in
(``walkover_warnings_due``); each is announced once (the notification's ``key``).

Texts are translated (gettext) and times are given in the competition's time zone.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from leagues.models import Competition, Entrant, Fixture, Player, Result, SignUp, Venue
from leagues.names import shown
from leagues.notifications.models import Kind
from leagues.notifications.services import notify, speaking_to
from matches.models import Match


def user_of(entrant: Entrant | None):
    if entrant is None or entrant.player_id is None:
        return None
    return entrant.player.user


def player_at(fixture: Fixture, side: str) -> Player | None:
    """Who plays ``side`` of ``fixture``: a team game's player at its table (from the line-up),
    else the entrant's player (``None``: nobody, or a name without a player)."""
    if fixture.tie_id is not None:
        return getattr(fixture, f"{side}_player")
    entrant = fixture.entrant(side)
    return entrant.player if entrant is not None and entrant.player_id else None


def user_at(fixture: Fixture, side: str):
    """The account that plays ``side`` of ``fixture`` (``None``: none)."""
    player = player_at(fixture, side)
    return player.user if player is not None else None


def users_answering(fixture: Fixture, side: str) -> list:
    """The accounts that answer for ``side`` of ``fixture`` (``leagues.permissions.player_side``):
    its player and, for a team, its captain; each once."""
    users = [user for user in (user_at(fixture, side),) if user is not None]
    entrant = fixture.entrant(side)
    if entrant is not None and entrant.player_id is None and entrant.captain_id is not None:
        if all(user.pk != entrant.captain_id for user in users):
            users.append(entrant.captain)
    return users


def name_at(fixture: Fixture, side: str) -> str:
    """Who ``side`` of ``fixture`` is, for a sentence: a team game's player ("Ana Lima (Club A)"),
    else the entrant's name."""
    entrant = fixture.entrant(side)
    player = player_at(fixture, side) if fixture.tie_id is not None else None
    if player is not None:
        return f"{player.full_name} ({entrant.name})" if entrant is not None else player.full_name
    return entrant.name if entrant is not None else "?"


def when(moment: datetime | None, competition: Competition) -> str:
    """A time in the competition's zone, with the zone's name ("Fri 4 Dec 2026, 18:00 (Europe/Lisbon)")."""
    if moment is None:
        return _("a time to be set")
    local = timezone.localtime(moment, competition.zone)
    return f"{date_format(local, 'D j M Y, H:i')} ({competition.time_zone})"


def fixture_url(fixture: Fixture) -> str:
    return reverse("site:fixture", args=[fixture.pk])


def _names(fixture: Fixture) -> str:
    home = fixture.home.name if fixture.home_id else "?"
    away = fixture.away.name if fixture.away_id else "?"
    return f"{home} v {away}"


def _sides(fixture: Fixture):
    """(side, entrant, user) of each side with an account: a team game's players at its table."""
    for side in ("home", "away"):
        entrant = fixture.entrant(side)
        user = user_at(fixture, side)
        if user is not None:
            yield side, entrant, user


def fixtures_scheduled(*, competition: Competition, round_number: int | None = None) -> int:
    """Tells each entrant with an account their fixtures and kick-offs (one notification each).
    With ``round_number`` (a Swiss's round 2 onwards, paired one at a time) only that round's
    fixtures are told, once per round and player. Returns how many were written."""
    fixtures = competition.fixtures.filter(status__in=Fixture.OPEN)
    if round_number is not None:
        fixtures = fixtures.filter(round__number=round_number)
    fixtures = list(fixtures.select_related("home__player__user", "away__player__user", "round")
                    .order_by("kickoff_at", "round__number", "position"))
    by_user: dict = {}
    for fixture in fixtures:
        for _side, _entrant, user in _sides(fixture):
            by_user.setdefault(user, []).append(fixture)
    for user, mine in by_user.items():
        with speaking_to(user):
            lines = [f"- {shown(f.round)}: {_names(f)}, {when(f.kickoff_at, competition)}" for f in mine[:12]]
            if len(mine) > 12:
                lines.append(_("... and %(count)d more") % {"count": len(mine) - 12})
            said = {"competition": competition.name, "lines": "\n".join(lines), "round": round_number}
            if round_number is None:
                key = f"scheduled:{competition.pk}:{user.pk}"
                subject = _("Your fixtures in %(competition)s") % said
                body = _("The fixtures of %(competition)s are drawn. Yours:\n%(lines)s") % said
            else:
                key = f"scheduled:{competition.pk}:{user.pk}:round:{round_number}"
                subject = _("Round %(round)s of %(competition)s: your fixture") % said
                body = _("Round %(round)s of %(competition)s is paired. Yours:\n%(lines)s") % said
            notify(user=user, kind=Kind.FIXTURE_SCHEDULED, key=key, subject=subject, body=body,
                   url=fixture_url(mine[0]))
    return len(by_user)


def fixture_ready(*, fixture: Fixture) -> None:
    """Tells both players a knockout fixture whose entrants the results have just given (the next
    round, a place from the groups): who, and when. Once per fixture and pairing."""
    competition = fixture.competition
    for _side, _entrant, user in _sides(fixture):
        with speaking_to(user):
            if fixture.paired_in_time:
                body = _("%(fixture)s (%(competition)s, %(round)s) kicks off %(when)s.")
            else:  # paired after its kick-off: no check-in until the organisers set another
                body = _("%(fixture)s (%(competition)s, %(round)s) was due %(when)s: the organisers will set a "
                         "new kick-off.")
            notify(user=user, kind=Kind.FIXTURE_SCHEDULED, url=fixture_url(fixture),
                   key=f"ready:{fixture.pk}:{fixture.home_id}:{fixture.away_id}:{user.pk}",
                   subject=_("Your next fixture: %(fixture)s") % {"fixture": _names(fixture)},
                   body=body % {"fixture": _names(fixture), "competition": competition.name,
                                "round": shown(fixture.round), "when": when(fixture.kickoff_at, competition)})


def fixture_rescheduled(*, fixture: Fixture, reason: str = "") -> None:
    """Tells both players the fixture's new kick-off."""
    competition = fixture.competition
    for _side, _entrant, user in _sides(fixture):
        with speaking_to(user):
            body = _("%(fixture)s (%(competition)s) now kicks off %(when)s.") % {
                "fixture": _names(fixture), "competition": competition.name,
                "when": when(fixture.kickoff_at, competition)}
            if reason:
                body += "\n" + _("Reason: %(reason)s") % {"reason": reason}
            notify(user=user, kind=Kind.FIXTURE_RESCHEDULED, body=body, url=fixture_url(fixture),
                   subject=_("Rescheduled: %(fixture)s") % {"fixture": _names(fixture)})


def opponent_checked_in(*, fixture: Fixture, match: Match, side: str) -> None:
    """Tells the other player that ``side`` checked in, while they are not in yet."""
    other = "away" if side == "home" else "home"
    if getattr(match, f"{other}_checked_in_at") is not None:
        return
    user = user_at(fixture, other)
    if user is None:
        return
    competition = fixture.competition
    with speaking_to(user):
        notify(user=user, kind=Kind.OPPONENT_CHECKED_IN, url=fixture_url(fixture),
               key=f"opponent-in:{match.pk}:{user.pk}",
               subject=_("%(opponent)s is checked in and waiting") % {"opponent": name_at(fixture, side)},
               body=_("%(opponent)s checked in for %(fixture)s. Check in before %(deadline)s or lose by walkover.")
               % {"opponent": name_at(fixture, side), "fixture": _names(fixture),
                  "deadline": when(fixture.checkin_closes_at, competition)})


def result_official(*, fixture: Fixture, result: Result) -> None:
    """Tells both players the official result (again after a correction)."""
    competition = fixture.competition
    for _side, _entrant, user in _sides(fixture):
        with speaking_to(user):
            notify(user=user, kind=Kind.RESULT_OFFICIAL, url=fixture_url(fixture),
                   subject=_("Official: %(home)s %(score)s %(away)s") % {
                       "home": fixture.home.name, "away": fixture.away.name, "score": str(result)},
                   body=_("The result of %(fixture)s (%(competition)s, %(round)s) is official: %(score)s. "
                          "Standings and ratings follow.") % {
                       "fixture": _names(fixture), "competition": competition.name,
                       "round": shown(fixture.round), "score": str(result)})


def online_between_accounts() -> Q:
    """Fixtures played online between two accounts (a team game: its two players at its table);
    query ``Fixture.with_games`` with it, so that team games are found too."""
    return (Q(venue=Venue.ONLINE) | Q(venue="", competition__venue=Venue.ONLINE)) & (
        Q(tie__isnull=True, home__player__user__isnull=False, away__player__user__isnull=False)
        | Q(tie__isnull=False, home_player__user__isnull=False, away_player__user__isnull=False))


PLAYERS = ("competition", "match", "home__player__user", "away__player__user", "home_player__user",
           "away_player__user")


def checkin_open_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """Tells each player whose fixture's check-in window is open now (and not checked in) that it
    is: once per fixture and kick-off. Returns how many were written."""
    now = now or timezone.now()
    candidates = (Fixture.with_games.filter(online_between_accounts(), status=Fixture.Status.SCHEDULED,
                                            kickoff_at__gt=now - timedelta(days=1),
                                            kickoff_at__lte=now + timedelta(days=7, minutes=1))
                  .select_related(*PLAYERS, "round")
                  .order_by("kickoff_at")[:limit])
    written = 0
    for fixture in candidates:
        if not fixture.paired_in_time or not fixture.checkin_opens_at <= now < fixture.checkin_closes_at:
            continue  # no window the players could use (paired after its kick-off), or not now
        match = fixture.match if fixture.match_id and fixture.match.status != Match.Status.CANCELLED else None
        for side, _entrant, user in _sides(fixture):
            if match is not None and getattr(match, f"{side}_checked_in_at") is not None:
                continue
            with speaking_to(user):
                notification = notify(
                    user=user, kind=Kind.CHECKIN_OPEN, url=fixture_url(fixture),
                    key=f"checkin-open:{fixture.pk}:{fixture.kickoff_at.isoformat()}:{user.pk}",
                    subject=_("Check in now: %(fixture)s") % {"fixture": _names(fixture)},
                    body=_("Check-in for %(fixture)s (%(competition)s) is open until %(deadline)s; kick-off %(kickoff)s. "
                           "Open the fixture and press Check in.")
                    % {"fixture": _names(fixture), "competition": fixture.competition.name,
                       "deadline": when(fixture.checkin_closes_at, fixture.competition),
                       "kickoff": when(fixture.kickoff_at, fixture.competition)},
                    now=now)
            written += notification is not None
    return written


def walkover_warnings_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """After the kick-off, tells a player not checked in, whose opponent is, that they lose by
    walkover at the end of the grace: once per fixture and kick-off. Returns how many."""
    now = now or timezone.now()
    candidates = (Fixture.with_games.filter(online_between_accounts(), status=Fixture.Status.SCHEDULED,
                                            kickoff_at__lte=now, kickoff_at__gt=now - timedelta(days=1),
                                            match__status=Match.Status.CHECKED_IN)
                  .select_related(*PLAYERS)[:limit])
    written = 0
    for fixture in candidates:
        if now >= fixture.checkin_closes_at:
            continue
        for side, _entrant, user in _sides(fixture):
            if getattr(fixture.match, f"{side}_checked_in_at") is not None:
                continue
            with speaking_to(user):
                notification = notify(
                    user=user, kind=Kind.WALKOVER_WARNING, url=fixture_url(fixture),
                    key=f"walkover-warning:{fixture.pk}:{fixture.kickoff_at.isoformat()}:{user.pk}",
                    subject=_("Check in before %(deadline)s or lose by walkover") % {
                        "deadline": when(fixture.checkin_closes_at, fixture.competition)},
                    body=_("%(fixture)s has kicked off and your opponent is checked in. Check in before %(deadline)s, "
                           "or you lose by walkover.") % {"fixture": _names(fixture),
                                                          "deadline": when(fixture.checkin_closes_at, fixture.competition)},
                    now=now)
            written += notification is not None
    return written


def sign_up_decided(*, sign_up: SignUp) -> None:
    """Tells the player the organisers' decision on their sign-up (confirmed, or refused with the reason)."""
    user = sign_up.player.user
    competition = sign_up.competition
    url = reverse("site:competition", args=[competition.slug])
    with speaking_to(user):
        _sign_up_decided(sign_up, user, competition, url)


def _sign_up_decided(sign_up: SignUp, user, competition: Competition, url: str) -> None:
    if sign_up.status == SignUp.Status.CONFIRMED:
        notify(user=user, kind=Kind.SIGN_UP_CONFIRMED, url=url,
               subject=_("You are in: %(competition)s") % {"competition": competition.name},
               body=_("The organisers confirmed your sign-up for %(competition)s. You will be told your fixtures "
                      "when they are drawn.") % {"competition": competition.name})
    elif sign_up.status == SignUp.Status.REFUSED:
        notify(user=user, kind=Kind.SIGN_UP_REFUSED, url=url,
               subject=_("Sign-up refused: %(competition)s") % {"competition": competition.name},
               body=_("The organisers refused your sign-up for %(competition)s. Their reason: %(reason)s")
               % {"competition": competition.name, "reason": sign_up.reason})


def sign_up_moved_up(*, sign_up: SignUp) -> None:
    """Tells the player a place freed and they moved up from the waiting list."""
    competition = sign_up.competition
    with speaking_to(sign_up.player.user):
        notify(user=sign_up.player.user, kind=Kind.SIGN_UP_MOVED_UP,
               url=reverse("site:competition", args=[competition.slug]),
               subject=_("A place for you: %(competition)s") % {"competition": competition.name},
               body=_("A place freed in %(competition)s and you moved up from the waiting list. The organisers "
                      "will confirm your sign-up.") % {"competition": competition.name})
