"""A Swiss open of nine played through the site in a real browser, as its organiser runs it:
"Pair round 1" on the organiser page, each result through the result form, round 2 paired, an
entrant withdrawn through the two-step withdrawal, round 3 paired; the byes are fixtures of their
round with no away entrant (status bye), the withdrawn entrant is paired no more, and the
standings' tie-break sentences name the next row, its points and a criterion of the Swiss.

Screenshots of the competition page and the organiser page after each stage, at 1280 and at 390
px, go to ``SWISS_SHOTS`` (a folder; pytest's temporary folder without it) for a person to look
at. Chromium through Playwright (``tests.browser``), skipped without it unless ``REQUIRE_SERVICES``."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Q

from leagues.models import Competition, Entrant, Fixture
from tests.browser import chromium as launch_chromium
from tests.browser import sign_in

PASSWORD = "pw-swiss-browser-1"
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
NAMES = ["Ana Sousa", "Bruno Lima", "Carla Reis", "Duarte Melo", "Eva Nunes", "Filipe Costa", "Gil Rocha",
         "Helena Dias", "Igor Matos"]
# "level on 6 points with Bruno Lima; ahead on Buchholz cut 1, 9 against 7[, a bye counted ...]"
SENTENCE = re.compile(r"^level on (?P<points>\d+) points? with (?P<other>.+?); (?:ahead on (?P<criterion>.+?), "
                      r"(?P<mine>[\d.]+) against (?P<theirs>[\d.]+)(?P<virtual>, a bye counted as an opponent on "
                      r"the entrant's own points)?|ahead on the drawing of lots|not separated by the criteria)$")
SWISS_CRITERIA = {"Buchholz cut 1", "Buchholz", "Sonneborn-Berger", "progressive score", "wins", "median Buchholz"}

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("SWISS_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _sign_in(browser, base: str, device: dict):
    return sign_in(browser.new_context(**device).new_page(), base, "swiss-organiser", PASSWORD)


class Open:
    """The open, its organiser's desktop and phone pages, and the screenshots of each stage."""

    def __init__(self, base: str, competition: Competition, desktop, phone, shots: Path):
        self.base, self.competition, self.desktop, self.phone, self.shots = base, competition, desktop, phone, shots

    @property
    def manage_url(self) -> str:
        return f"{self.base}/manage/{self.competition.slug}/"

    def snap(self, stage: str) -> None:
        """Both pages at both widths; neither overflows the phone's width."""
        for page, width in ((self.desktop, 1280), (self.phone, 390)):
            for which, url in (("competition", f"{self.base}/competitions/{self.competition.slug}/"),
                               ("organiser", self.manage_url)):
                page.goto(url)
                page.wait_for_load_state("load")
                page.screenshot(path=str(self.shots / f"{stage}-{which}-{width}.png"), full_page=True)
                if width == 390:  # the long phone page in screens a person reads
                    height = page.evaluate("() => document.documentElement.scrollHeight")
                    for part, top in enumerate(range(0, height, 900), start=1):
                        page.screenshot(path=str(self.shots / f"{stage}-{which}-{width}-part{part}.png"),
                                        full_page=True, clip={"x": 0, "y": top, "width": 390,
                                                              "height": min(900, height - top)})
                overflow = page.evaluate("() => document.documentElement.scrollWidth")
                assert overflow <= width, f"{which} page at {width} px is {overflow} px wide ({stage})"

    def pair(self, number: int) -> None:
        page = self.desktop
        page.goto(self.manage_url)
        page.click(f"main form button:text-is('Pair round {number}')")
        page.wait_for_load_state()
        assert self.competition.fixtures.filter(round__number=number).exists(), page.content()[:2000]

    def record(self, fixture: Fixture, home: int, away: int) -> None:
        page = self.desktop
        page.goto(self.manage_url)
        page.click(f"a[href='/manage/fixtures/{fixture.pk}/result/']")
        page.fill("input[name=home_goals]", str(home))
        page.fill("input[name=away_goals]", str(away))
        page.click("main form [type=submit]")
        page.wait_for_load_state()
        assert f"/fixtures/{fixture.pk}/" in page.url, page.locator("main").inner_text()[:1000]

    def play_round(self, number: int) -> None:
        """The lower seed number wins 2-0, except the round's first board, drawn 1-1."""
        for fixture in (self.competition.fixtures.filter(round__number=number, status=Fixture.Status.SCHEDULED)
                        .select_related("home", "away").order_by("position")):
            if fixture.position == 0:
                self.record(fixture, 1, 1)
            elif fixture.home.seed < fixture.away.seed:
                self.record(fixture, 2, 0)
            else:
                self.record(fixture, 0, 2)

    def withdraw(self, entrant: Entrant) -> None:
        page = self.desktop
        page.goto(self.manage_url)
        page.click(f"form[action='/manage/{self.competition.slug}/entrants/{entrant.pk}/withdraw/'] button")
        page.wait_for_load_state()
        page.fill("[name=reason]", "Injured after round 1")
        page.click("main form [type=submit].danger")
        page.wait_for_load_state()
        assert page.url.endswith(f"/manage/{self.competition.slug}/"), page.url


def _bye_of(competition: Competition, number: int) -> list[Fixture]:
    return list(competition.fixtures.filter(round__number=number, away__isnull=True))


def _standings(page, base: str, slug: str) -> list[tuple[str, int, str]]:
    """(entrant, points, tie-break sentence or "") of each row of the competition page's table."""
    page.goto(f"{base}/competitions/{slug}/")
    page.wait_for_load_state("load")
    return page.evaluate("""() => {
        const rows = [];
        for (const tr of document.querySelectorAll('#standings table.standings tbody tr')) {
            if (tr.classList.contains('tiebreak-row')) {
                if (rows.length) rows[rows.length - 1][2] = tr.querySelector('.tiebreak').textContent.trim();
                continue;
            }
            const points = tr.querySelector('td.pts');
            rows.push([tr.querySelector('td.entrant a').textContent.trim(),
                       points ? parseInt(points.textContent) : null, ""]);
        }
        return rows;
    }""")


def test_a_swiss_open_of_nine_paired_played_and_withdrawn_from_through_the_site(live_server, chromium, shots):
    user = get_user_model().objects.create_user(username="swiss-organiser", password=PASSWORD)
    competition = Competition.objects.create(name="Open de Lisboa", slug="open-lisboa", format="swiss", rounds=4,
                                             first_date="2027-03-06", lots_seed=9, tiebreak_preset="fide_swiss",
                                             withdrawal_policy="forfeit_remaining")
    competition.organisers.add(user)
    entrants = [Entrant.objects.create(competition=competition, name=name, seed=i)
                for i, name in enumerate(NAMES, start=1)]
    base = live_server.url
    run = Open(base, competition, _sign_in(chromium, base, DESKTOP), _sign_in(chromium, base, PHONE), shots)
    run.snap("0-entered")

    run.pair(1)
    byes = _bye_of(competition, 1)
    assert [(b.home.name, b.status) for b in byes] == [("Igor Matos", Fixture.Status.BYE)]  # the lowest seed
    assert competition.fixtures.filter(round__number=1, status=Fixture.Status.SCHEDULED).count() == 4
    run.snap("1-paired")
    run.play_round(1)
    run.snap("2-round1-played")

    run.pair(2)
    [bye2] = _bye_of(competition, 2)
    assert bye2.status == Fixture.Status.BYE and bye2.home_id != byes[0].home_id  # no second bye
    run.snap("3-round2-paired")
    leaving = next(e for e in reversed(entrants) if e.pk != bye2.home_id)  # a low seed with a game to play
    run.withdraw(leaving)
    leaving.refresh_from_db()
    assert leaving.withdrawn
    walkover = competition.fixtures.filter(round__number=2).get(Q(home=leaving) | Q(away=leaving))
    assert walkover.result.outcome == "walkover"
    run.play_round(2)
    run.snap("4-withdrawn-round2-played")

    run.pair(3)
    round3 = list(competition.fixtures.filter(round__number=3).select_related("home", "away"))
    assert len(round3) == 4 and not _bye_of(competition, 3)  # eight left: no bye
    assert all(leaving.pk not in (f.home_id, f.away_id) for f in round3)
    run.play_round(3)
    run.snap("5-round3-played")

    rows = _standings(run.desktop, base, competition.slug)
    assert len(rows) == 9, rows
    sentences = 0
    for (name, points, sentence), (below, below_points, _s) in zip(rows, rows[1:], strict=False):
        if not sentence:
            continue
        sentences += 1
        match = SENTENCE.match(sentence)
        assert match, sentence
        assert match["other"].startswith(below), (name, sentence, below)
        assert int(match["points"]) == points == below_points, (name, points, below_points, sentence)
        if match["criterion"]:
            assert match["criterion"] in SWISS_CRITERIA, sentence
            assert float(match["mine"]) > float(match["theirs"]) or match["criterion"] == "wins", sentence
    assert sentences >= 1, rows

    # the same pages in Portuguese (the header's switcher): no English left in the standings' notes
    for page in (run.desktop, run.phone):
        page.goto(f"{base}/competitions/{competition.slug}/")
        page.select_option("form.language-switcher select", "pt-br")
        page.click("form.language-switcher [type=submit]")
        page.wait_for_load_state()
    run.snap("6-pt-br")
    notes = " ".join(sentence for _n, _p, sentence in _standings(run.desktop, base, competition.slug))
    assert "level on" not in notes and "empatado" in notes, notes
    text = run.desktop.locator("main").inner_text() + run.desktop.locator(".page-head").inner_text()
    assert "Round 3 of 4" not in text and "Pair round" not in text, text[:600]

    run.desktop.goto(run.manage_url)
    form = run.desktop.locator("main form:has([name=seed])").inner_text()
    assert "Seed" not in form and "Name" not in form and "Cabeça de chave" in form, form  # the add-an-entrant form
