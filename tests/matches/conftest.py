"""Fixtures for the online-play tests: the stub referee, a small league of players."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

T0 = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)


def make_league(n: int = 2, *, fmt: str = "league", **kwargs):
    """A competition of ``n`` entrants, each a player with a user ``p1``..``pn``; fixtures made."""
    from django.contrib.auth import get_user_model

    from leagues.models import Competition, Entrant, Player
    from leagues.services.fixtures import fixtures_generate

    kwargs.setdefault("rule_params", {"half_minutes": 1})
    kwargs.setdefault("extra_time_minutes", 1)
    kwargs.setdefault("venue", "online")
    slug = kwargs.pop("slug", f"online-{fmt}-{n}")
    competition = Competition.objects.create(name=slug, slug=slug, format=fmt, lots_seed=7, **kwargs)
    for i in range(1, n + 1):
        user = get_user_model().objects.create_user(username=f"{slug}-p{i}", password="x")
        player = Player.objects.create(first_name=f"P{i}", last_name="Test", licence_number=f"{slug}-{i}", user=user)
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i, player=player)
    fixtures_generate(competition=competition, now=T0)
    competition.fixtures.update(kickoff_at=T0)  # every check-in window open around T0
    return competition


def setup_match(fixture, base: datetime = T0, *, computer_sides=()):
    """The fixture's online match, set up to kick off at ``base`` (its check-in window open)."""
    from leagues.models import Fixture
    from leagues.services.online import fixture_match_setup

    Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=base)
    fixture.refresh_from_db()
    return fixture_match_setup(fixture=fixture, computer_sides=tuple(computer_sides), now=base)


def fixture_of(match):
    """The fixture a match is played for (``leagues`` knows it; ``matches`` does not)."""
    from leagues.models import Fixture

    return Fixture.objects.select_related("competition", "result").get(match=match)


def result_of(match):
    """The official result of the fixture ``match`` is played for, or None."""
    from leagues.models import Result

    return Result.objects.filter(fixture__match=match).first()


def users_of(fixture):
    return fixture.home.player.user, fixture.away.player.user


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)
