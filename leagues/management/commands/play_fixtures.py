"""``python manage.py play_fixtures COMPETITION --bots``: plays every open fixture of a
competition computer against computer, online, through the same services as two players
(create, check-in, one action per step under the match lock, deadlines, adjudication). A
fixture whose match is already live online is taken over by the computer for both sides.

The match clock is driven by a virtual wall clock that advances ``--seconds-per-action``
(default 5) per step from now, so a 2 x 25 min match takes 600 steps, not 50 minutes. A
knockout is played round after round: a decided fixture fills the next one. The check-in rules
hold here too: a fixture played online whose window is not open is moved to kick off now (its
history says so); a fixture at a real table is not played.
"""
from __future__ import annotations

import time
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q
from django.utils import timezone
from tqdm import tqdm

from leagues.models import Competition, Fixture, Venue
from leagues.services.kickoffs import fixture_reschedule
from leagues.services.online import fixture_match_setup
from leagues.services.results import result_from_match
from matches.models import Match
from matches.services import online, play
from matches.services.adjudication import match_adjudicate

BATCH = 25  # computer moves per transaction


def playable(competition: Competition):
    """The open fixtures of ``competition`` played online, between two entrants with accounts (the
    others are played at a table or decided by the organisers)."""
    return (competition.fixtures.filter(status__in=Fixture.OPEN, home__player__user__isnull=False,
                                        away__player__user__isnull=False)
            .filter(Q(venue=Venue.ONLINE) | Q(venue="", competition__venue=Venue.ONLINE))
            .exclude(match__status__in=[Match.Status.FINISHED, Match.Status.ADJUDICATED, Match.Status.WALKOVER,
                                        Match.Status.ABANDONED])
            .select_related("home", "away", "round__stage", "competition", "match")
            .order_by("round__stage__order", "round__number", "position"))


def play_bot_match(*, fixture: Fixture, seconds_per_action: float = 5.0, start=None, max_steps: int | None = None) -> Match:
    """Plays ``fixture`` computer against computer and adjudicates it; returns the match."""
    now = start or timezone.now()
    match = fixture.match if fixture.match_id and fixture.match.status == Match.Status.LIVE else None
    if match is not None:  # begun online already: the computer takes both sides over
        match = online.computer_take_over(match_id=match.pk, sides=["home", "away"])
        now = max(now, match.clock_anchor_at or now)
    else:
        if fixture.kickoff_at is None or not fixture.checkin_opens_at <= now < fixture.checkin_closes_at:
            fixture = fixture_reschedule(fixture=fixture, kickoff_at=now, now=now,
                                         reason="play_fixtures --bots: played now")
        match = fixture_match_setup(fixture=fixture, computer_sides=("home", "away"), now=now)
    params = play.params_of(match)
    if max_steps is None:
        total_s = (float(params.get("half_minutes", 25)) * int(params.get("halves", 2))
                   + 2 * float(params.get("extra_time_minutes", 5))) * 60
        max_steps = int(total_s / seconds_per_action) * 4 + 2000
    step = timedelta(seconds=seconds_per_action)
    for _ in range(0, max_steps, BATCH):
        match = online.computer_step(match_id=match.pk, now=now + step, steps=BATCH, step=step)
        now += step * BATCH
        if match.status != Match.Status.LIVE:
            break
    else:
        # never leave a computer match live for a watcher to drive into an official result
        online.match_annul(match_id=match.pk)
        Fixture.objects.filter(pk=fixture.pk, match=match).update(match=None)
        raise CommandError(f"match {match.pk} ({fixture}) did not end in {max_steps} steps: it is annulled")
    match_adjudicate(match_id=match.pk)  # at once; the queued tasks then find it done
    result_from_match(match_id=match.pk)
    match.refresh_from_db()
    return match


class Command(BaseCommand):
    help = "Plays every open fixture of a competition online, computer against computer."

    def add_arguments(self, parser):
        parser.add_argument("competition", help="the competition's slug")
        parser.add_argument("--bots", action="store_true", help="both sides played by the computer (required)")
        parser.add_argument("--seconds-per-action", type=float, default=5.0)
        parser.add_argument("--limit", type=int, default=0, help="play at most this many fixtures")

    def handle(self, *args, **options):
        if not options["bots"]:
            raise CommandError("only computer-against-computer play is automated: pass --bots")
        competition = Competition.objects.filter(slug=options["competition"]).first()
        if competition is None:
            raise CommandError(f"no competition {options['competition']!r}")
        played = 0
        started = time.monotonic()
        with tqdm(total=playable(competition).count(), unit="match", disable=options["verbosity"] == 0) as bar:
            while True:
                fixtures = list(playable(competition))
                if not fixtures or (options["limit"] and played >= options["limit"]):
                    break
                for fixture in fixtures:
                    if options["limit"] and played >= options["limit"]:
                        break
                    match = play_bot_match(fixture=fixture, seconds_per_action=options["seconds_per_action"])
                    played += 1
                    official = (match.official or {}).get("text")
                    bar.set_postfix_str(f"{fixture}: {official}" if official else str(fixture))
                    bar.update(1)
                bar.total = played + playable(competition).count()
                bar.refresh()
        self.stdout.write(f"played {played} matches of {competition.slug} in {time.monotonic() - started:.1f} s")
