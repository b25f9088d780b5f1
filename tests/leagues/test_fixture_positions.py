"""A round of a big import holds more fixtures than a small integer counts: a fixture's position
in its round goes past 32,767 (the import's limit is 250,000 results; a round may hold them all)."""
from __future__ import annotations

import pytest

from leagues.models import Fixture

from .site_world import build_world

pytestmark = pytest.mark.django_db


def test_a_fixture_may_stand_past_position_32767_of_its_round():
    world = build_world()
    world.draw()
    fixture = world.competition.fixtures.first()
    Fixture.objects.filter(pk=fixture.pk).update(position=249_999)
    assert Fixture.objects.get(pk=fixture.pk).position == 249_999
