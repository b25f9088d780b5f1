"""Fixtures for the online-play tests: the stub referee, a small league of players."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

STUB = "tests.matches.stub_referee:StubReferee"
T0 = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)


@pytest.fixture
def stub_referee(settings, monkeypatch):
    """Online matches are refereed by ``tests.matches.stub_referee`` (here and in a worker)."""
    settings.MATCHES_REFEREE_OVERRIDE = STUB
    monkeypatch.setenv("MATCHES_REFEREE_OVERRIDE", STUB)
    return STUB


def make_league(n: int = 2, *, fmt: str = "league", **kwargs):
    """A competition of ``n`` entrants, each a player with a user ``p1``..``pn``; fixtures made."""
    from django.contrib.auth import get_user_model

    from leagues.models import Competition, Entrant, Player
    from leagues.services.fixtures import fixtures_generate

    kwargs.setdefault("rule_params", {"half_minutes": 1})
    kwargs.setdefault("extra_time_minutes", 1)
    slug = kwargs.pop("slug", f"online-{fmt}-{n}")
    competition = Competition.objects.create(name=slug, slug=slug, format=fmt, lots_seed=7, **kwargs)
    for i in range(1, n + 1):
        user = get_user_model().objects.create_user(username=f"{slug}-p{i}", password="x")
        player = Player.objects.create(first_name=f"P{i}", last_name="Test", licence_number=f"{slug}-{i}", user=user)
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i, player=player)
    fixtures_generate(competition=competition, now=T0)
    return competition


def users_of(fixture):
    return fixture.home.player.user, fixture.away.player.user


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)
