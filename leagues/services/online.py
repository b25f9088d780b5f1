"""A fixture played online: its check-in window and its online match (COMPETITIONS.md §8).

Only a fixture played online (``Fixture.effective_venue``), between two entrants who both have
an account, offers check-in, and only from ``checkin_opens_at`` (the kick-off minus the
competition's ``checkin_opens_minutes``) until the kick-off plus the check-in grace. The first
check-in sets the online match up (``matches.services.online.match_setup``) with the fixture's
names, rule set and window; ``matches`` then runs it: the kick-off when both are in, the
walkover clock from the kick-off, the game, its log. Nobody checked in by the end of the
window is a double no-show, recorded by ``no_shows_record`` (beat), since no match exists then.

A window counts only if the fixture had its entrants, kick-off and venue by its kick-off
(``Fixture.paired_in_time``): a fixture paired or moved after its kick-off time (a semi-final
recorded late, a kick-off set in the past) offers no check-in and is never a no-show until the
organisers give it a new kick-off.

Errors are ``matches.services.play.PlayError`` (an HTTP status, a code, a sentence): 403 not a
player of the fixture, 409 outside the window (the body says when it opens), at a table, or
against an entrant without an account.
"""
from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from leagues import names
from leagues.models import Competition, Entrant, Fixture, Player
from leagues.services import notices
from leagues.services.notices import online_between_accounts, player_at, user_at
from leagues.services.results import DOUBLE_NO_SHOW, result_record
from matches.models import Match
from matches.services import online
from matches.services.play import PlayError
from matches.services.referee import competition_params

CHECKIN_SETTINGS = {"checkin_opens_minutes", "checkin_grace_minutes"}  # a change moves the windows set up


def side_of_user(fixture: Fixture, user) -> str | None:
    """The side ``user`` plays in ``fixture`` (``None``: not one of its players)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for side in ("home", "away"):
        player_user = user_at(fixture, side)
        if player_user is not None and player_user.pk == user.pk:
            return side
    return None


def checkin_refusal(fixture: Fixture, now: datetime) -> PlayError | None:
    """Why check-in is not open for ``fixture`` at ``now`` (``None``: it is open)."""
    if not fixture.is_online:
        return PlayError(409, "at_table", _("this fixture is played at a real table: there is no check-in"))
    if fixture.home_id is None or fixture.away_id is None:
        return PlayError(409, "fixture_incomplete", _("this fixture does not have both its entrants yet"))
    if fixture.tie_id is None and fixture.competition.is_team:
        return PlayError(409, "team_tie", _("a team tie is played game by game: each table's game has its check-in"))
    for side in ("home", "away"):
        if user_at(fixture, side) is None:
            return PlayError(409, "no_account", _("%(entrant)s has no account to play online with: this fixture "
                                                  "is played at a table, or decided by the organisers")
                             % {"entrant": fixture.entrant(side).name})
    if fixture.status not in Fixture.OPEN:
        return PlayError(409, "fixture_closed", _("this fixture is %(status)s: there is no match to check in to")
                         % {"status": fixture.get_status_display().lower()})
    if fixture.kickoff_at is None:
        return PlayError(409, "not_scheduled", _("this fixture has no kick-off time yet"))
    if not fixture.paired_in_time:
        return PlayError(409, "paired_late", _("this fixture got its entrants or its kick-off after the kick-off "
                                                "time: the organisers set a new kick-off"))
    opens, closes = fixture.checkin_opens_at, fixture.checkin_closes_at
    if now < opens:
        when = date_format(timezone.localtime(opens, fixture.competition.zone), "D j M Y, H:i")  # as the kick-off
        return PlayError(409, "checkin_not_open", _("check-in opens at %(when)s (%(zone)s)")
                         % {"when": when, "zone": fixture.competition.time_zone}, opens_at=opens.isoformat())
    if now >= closes:
        return PlayError(409, "checkin_closed", _("check-in has closed"))
    return None


def _names(entrant: Entrant, player: Player | None = None) -> dict[str, str]:
    player = player or (entrant.player if entrant.player_id else None)
    club = entrant.club
    return {
        "name": player.full_name if player else entrant.name,
        "short": player.last_name if player else entrant.name,
        "club": club.name if club else "",
        "club_slug": club.slug if club else "",
    }


def match_setup_for(fixture: Fixture, *, computer_sides: tuple[str, ...] = ()) -> online.Setup:
    """What the fixture's online match is set up with: its names, rule set, format and window."""
    competition: Competition = fixture.competition
    params = competition_params(
        halves=competition.halves, half_minutes=competition.half_minutes, extra_time=competition.extra_time,
        extra_time_minutes=competition.extra_time_minutes, shootout=competition.shootout,
        shootout_kicks=competition.shootout_kicks, rule_params=competition.rule_params,
        knockout=fixture.is_knockout and fixture.tie_id is None,  # a tie's game may end drawn
    )
    return online.Setup(
        rule_set=competition.rule_set, rule_params=params, kickoff_at=fixture.kickoff_at,
        checkin_opens_at=fixture.checkin_opens_at, checkin_deadline_at=fixture.checkin_closes_at,
        home_user=user_at(fixture, "home"), away_user=user_at(fixture, "away"), computer_sides=computer_sides,
        title=f"{competition.name}, {fixture.round}" + (f", Table {fixture.table}" if fixture.tie_id else ""), url=reverse("site:fixture", args=[fixture.pk]),
        sides={"home": _names(fixture.home, player_at(fixture, "home")),
               "away": _names(fixture.away, player_at(fixture, "away"))},
    )


def lock_fixture_for_play(fixture_id: int) -> Fixture:
    return (Fixture.with_games.select_for_update(of=("self",))
            .select_related("competition", "round__stage", "home__player__user", "away__player__user",
                            "home__club", "away__club", "home_player__user", "away_player__user")
            .get(pk=fixture_id))


def fixture_match(*, fixture: Fixture, now: datetime, computer_sides: tuple[str, ...] = ()) -> Match:
    """The fixture's online match, set up now if it has none (or only an annulled one), or set
    up again while nobody has checked in. The caller holds the fixture's lock."""
    match = Match.objects.select_for_update().filter(pk=fixture.match_id).first() if fixture.match_id else None
    if match is not None and match.status == Match.Status.CANCELLED:
        match = None
    if match is not None and match.status != Match.Status.SCHEDULED:
        return match
    if match is not None and not computer_sides:
        computer_sides = tuple(match.computer_sides)  # the computer keeps the sides it was given
    match = online.match_setup(setup=match_setup_for(fixture, computer_sides=computer_sides), match=match, now=now)
    if fixture.match_id != match.pk:
        fixture.match = match
        fixture.save(update_fields=["match"])
    return match


def fixture_check_in(*, fixture: Fixture, user, now: datetime | None = None) -> Match:
    """Checks ``user`` in for their side of ``fixture``, inside its window; the first check-in
    sets the online match up. Returns the match (live once both are in).

    Raises ``PlayError``: 403 not a player of the fixture; 409 outside the window (with
    ``opens_at`` before it), at a table, against an entrant without an account, or too late."""
    now = now or timezone.now()
    with transaction.atomic():
        fixture = lock_fixture_for_play(fixture.pk)
        side = side_of_user(fixture, user)
        if side is None:
            raise PlayError(403, "not_a_player", _("only the two players of this fixture can check in"))
        refusal = checkin_refusal(fixture, now)
        if refusal is not None:
            raise refusal
        match = fixture_match(fixture=fixture, now=now)
        match = online.check_in(match_id=match.pk, user=user, now=now)
        notices.opponent_checked_in(fixture=fixture, match=match, side=side)
        return match


def fixture_match_setup(*, fixture: Fixture, computer_sides: tuple[str, ...] = (), now: datetime | None = None) -> Match:
    """Sets ``fixture``'s online match up before anyone checks in, with the computer playing
    ``computer_sides`` (the demo, ``play_fixtures --bots``, the benchmarks), inside the window.
    Raises ``PlayError`` as check-in does."""
    now = now or timezone.now()
    with transaction.atomic():
        fixture = lock_fixture_for_play(fixture.pk)
        refusal = checkin_refusal(fixture, now)
        if refusal is not None:
            raise refusal
        return fixture_match(fixture=fixture, now=now, computer_sides=computer_sides)


def checkin_windows_follow(*, competition: Competition, now: datetime | None = None) -> int:
    """After the organisers change ``checkin_opens_minutes`` or ``checkin_grace_minutes``: the
    online matches set up for the competition's open fixtures, not yet kicked off, take the new
    windows (``matches.services.online.match_checkin_window_set``: never shortened under a
    player already checked in). Returns how many matches were looked at."""
    now = now or timezone.now()
    fixtures = (Fixture.objects.filter(competition=competition, status__in=Fixture.OPEN,
                                       match__status__in=(Match.Status.SCHEDULED, Match.Status.CHECKED_IN))
                .select_related("competition"))
    count = 0
    for fixture in fixtures:
        online.match_checkin_window_set(match_id=fixture.match_id, opens_at=fixture.checkin_opens_at,
                                        deadline_at=fixture.checkin_closes_at, now=now)
        count += 1
    return count


def no_shows_due(now: datetime, *, limit: int = 500) -> list[Fixture]:
    """Online fixtures between two players with accounts (a team game's two players at its
    table too) whose check-in closed with nobody in and no match set up: double no-shows to
    record."""
    candidates = (
        Fixture.with_games.filter(online_between_accounts(), status=Fixture.Status.SCHEDULED, kickoff_at__lte=now)
        .filter(Q(match__isnull=True) | Q(match__status=Match.Status.CANCELLED))
        .select_related("competition").order_by("kickoff_at")[:limit]
    )
    return [f for f in candidates if f.checkin_closes_at <= now and f.paired_in_time]


def no_shows_record(*, now: datetime | None = None) -> int:
    """Records a double no-show (0-0, lost by both) for each fixture of ``no_shows_due``.
    Returns how many."""
    now = now or timezone.now()
    fixtures = no_shows_due(now)
    for fixture in fixtures:
        result_record(fixture=fixture, **DOUBLE_NO_SHOW, source="online", now=now,
                      reason=names.NOBODY_CHECKED_IN)
    return len(fixtures)
