"""A double elimination's page in a real browser on a 390 px phone: both brackets and the grand
final are drawn, each scrolls sideways inside its box, and the page itself does not overflow.
Chromium through Playwright (``tests.browser``), skipped without it unless ``REQUIRE_SERVICES``."""
from __future__ import annotations

import pytest

from leagues.models import Competition, Entrant, Fixture
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from tests.browser import chromium as launch_chromium

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


def played_through(slug: str, n: int) -> Competition:
    competition = Competition.objects.create(name=f"Dupla {slug}", slug=slug, format="double_elimination",
                                             first_date="2027-03-06", lots_seed=1)
    for i in range(1, n + 1):
        Entrant.objects.create(competition=competition, name=f"Jogador com um nome comprido {i}", seed=i)
    fixtures_generate(competition=competition)
    while ready := list(competition.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False,
                                                    away__isnull=False).select_related("home", "away")):
        fixture = ready[0]
        home_wins = fixture.home.seed < fixture.away.seed
        result_record(fixture=fixture, home_goals=2 if home_wins else 0, away_goals=0 if home_wins else 2)
    return competition


@pytest.mark.django_db(transaction=True)
def test_on_a_phone_both_brackets_scroll_inside_their_boxes_and_the_page_does_not_overflow(live_server, chromium):
    competition = played_through("dupla-phone", 16)
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{live_server.url}/competitions/{competition.slug}/")
    page.wait_for_load_state("load")
    sizes = page.evaluate("""() => ({
        page: document.documentElement.scrollWidth, viewport: window.innerWidth,
        boxes: [...document.querySelectorAll('#bracket .bracket-scroll')].map(b => ({
            scroll: b.scrollWidth, client: b.clientWidth, right: b.getBoundingClientRect().right})),
        names: [...document.querySelectorAll('#bracket .bracket-name')].map(h => h.textContent)})""")
    assert sizes["page"] <= sizes["viewport"] == 390
    assert sizes["names"] == ["Winners' bracket", "Losers' bracket", "Grand final"]
    assert all(box["right"] <= 390 for box in sizes["boxes"])
    assert sizes["boxes"][0]["scroll"] > sizes["boxes"][0]["client"]  # the winners' bracket scrolls inside
    assert sizes["boxes"][1]["scroll"] > sizes["boxes"][1]["client"]
    context.close()
