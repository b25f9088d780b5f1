"""A league of the 30 hostile names of ``tests.bench.hostile_downloads``: its entrants, their
and clubs named to run code in a spreadsheet; two rounds played (every entrant once
at home or away each round), one a walkover, so that every name is in every download."""
from __future__ import annotations

import datetime as dt
from collections import Counter

from django.utils.text import slugify

from leagues.models import Club, Competition, Entrant, Fixture, Standing
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute
from tests.bench.hostile_downloads import HOSTILE_NAMES, entrant_names

CLUB_NAME_LENGTH = 120  # leagues.models.Club.name


def hostile_league(slug: str = "hostile") -> Competition:
    competition = Competition.objects.create(
        name="Liga =1+1", slug=slug, lots_seed=7, tiebreak_preset="fifa_2018",
        first_date=dt.date(2026, 3, 28), kickoff_time=dt.time(18, 0), time_zone="Europe/Madrid")
    for seed, name in enumerate(entrant_names(), start=1):
        club = Club.objects.create(name=HOSTILE_NAMES[-seed][:CLUB_NAME_LENGTH], slug=f"club-{seed}-{slugify(name)[:20]}")
        Entrant.objects.create(competition=competition, name=name, seed=seed, club=club)
    fixtures_generate(competition=competition)
    played = competition.fixtures.exclude(status=Fixture.Status.BYE).filter(round__number__lte=2)
    for index, fixture in enumerate(played.order_by("round__number", "position")):
        if index == 3:
            result_record(fixture=fixture, outcome="walkover", outcome_side="home")
        else:
            result_record(fixture=fixture, home_goals=index % 4, away_goals=(index * 3) % 5)
    standings_recompute(competition_id=competition.pk, force=True)
    return competition


def standings_rows(competition: Competition) -> list[tuple]:
    """The stored standings as comparable rows, by entrant name: each entrant's record and
    points, then its position unless another entrant has the same record (two level entrants
    are ordered by the drawing of lots, whose seed a results file does not carry)."""
    rows = list(Standing.objects.filter(competition=competition).select_related("entrant", "group"))
    record = {r.pk: (r.group.name if r.group_id else "", r.played, r.won, r.drawn, r.lost, r.goals_for,
                     r.goals_against, r.goal_difference, r.points, r.discipline) for r in rows}
    level = Counter(record.values())
    return sorted((r.entrant.name, *record[r.pk], r.position if level[record[r.pk]] == 1 else None) for r in rows)
