"""A whole tournament day in Chromium (COMPETITIONS.md §12): sixteen players on four hall tables,
four groups of four then a knockout of eight, set up through the API as the organiser would;
then, at once, the organiser's laptop at 1280 px calling every fixture from the day page's
"Call to table" forms (one call withdrawn and made at another table, one refused because the
player is at another table), two table referees' phones at 390 px recording from their phone
forms the results at their tables (a walkover, a shoot-out, a correction of their own result;
a fixture at the other referee's table refused with a 403), and the hall screen at 1920x1080
following every call and result by its socket, never reloaded. The groups and the knockout are
played to the final, and the placings checked. Screenshots go to ``SCREENSHOTS_DIR`` (default
/tmp/hallday/) for a person to look at.

Through a real uvicorn serving ``config.asgi`` (the socket) and a real Celery worker (the
standings) on the test database and Redis, as tests/leagues/test_hall_screen_browser.py;
Debian's Chromium through Playwright, skipped without it unless ``REQUIRE_SERVICES`` is set."""
from __future__ import annotations

import os
import re
from datetime import date
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import (
    Club,
    ClubMembership,
    Competition,
    Fixture,
    FixtureChange,
    Player,
    Result,
    Stage,
)
from tests.conftest import wait_for
from tests.matches.test_watching import serve_asgi, stop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.integration]
SHOTS = Path(os.environ.get("SCREENSHOTS_DIR", "/tmp/hallday"))
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
TV = {"viewport": {"width": 1920, "height": 1080}}
WAIT = 15000  # ms: a busy machine; the socket itself answers within a second

NAMES = [("Rui", "Almeida"), ("Ana", "Ferreira"), ("João", "Pereira"), ("Beatriz", "Santos"),
         ("Miguel", "Oliveira"), ("Carla", "Rodrigues"), ("Pedro", "Martins"), ("Sofia", "Carvalho"),
         ("Tiago", "Gomes"), ("Inês", "Lopes"), ("Bruno", "Marques"), ("Marta", "Ribeiro"),
         ("Nuno", "Pinto"), ("Rita", "Teixeira"), ("Hugo", "Moreira"), ("Joana", "Correia")]
CLUBS = ["Botão Clube do Porto", "Mesa Verde Lisboa", "Académica de Coimbra", "Clube Naval Faro"]
REFEREES = {"rui": [1, 2], "ines": [3, 4]}  # who records at which hall table


@pytest.fixture
def asgi_server(services, tmp_path):
    proc, port = serve_asgi(tmp_path)
    yield port
    stop(proc)


def shot(page, name: str, *, full_page: bool | None = None) -> None:
    """A screenshot: a page on the laptop or a phone whole, the hall's TV as it stands."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    full = name.startswith(("organiser", "phone")) if full_page is None else full_page
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def the_day() -> tuple[Competition, APIClient, dict]:
    """The federation's sixteen licensed players and two referees; the organiser makes the
    competition, enters the players by licence number and draws, through the API."""
    users = get_user_model().objects
    organiser = users.create_user(username="marta", first_name="Marta", last_name="Sousa")
    organiser.user_permissions.add(Permission.objects.get(codename="add_competition"))
    users.create_user(username="rui", first_name="Rui", last_name="Costa")
    users.create_user(username="ines", first_name="Inês", last_name="Vaz")
    clubs = [Club.objects.create(name=name, slug=f"club-{i}") for i, name in enumerate(CLUBS)]
    for i, (first, last) in enumerate(NAMES):
        player = Player.objects.create(first_name=first, last_name=last, licence_number=f"PT-{i + 1:03d}")
        ClubMembership.objects.create(player=player, club=clubs[i % 4], start_date=date(2020, 1, 1))
    api = APIClient()
    api.force_authenticate(organiser)
    answer = api.post("/api/competitions/", {
        "name": "Porto Open", "slug": "porto-open", "format": "groups_knockout", "group_count": 4,
        "qualifiers_per_group": 2, "extra_time": True, "shootout": True, "tables": 4,
        "table_names": ["Centre table", "", "", "Window"], "referees": ["rui", "ines"],
        "referee_tables": REFEREES, "time_zone": "Europe/Lisbon"}, format="json")
    assert answer.status_code == 201, answer.json()
    answer = api.post("/api/competitions/porto-open/entrants/bulk/",
                      {"licence_numbers": [f"PT-{i:03d}" for i in range(1, 17)]}, format="json")
    assert answer.status_code == 201, answer.json()
    answer = api.post("/api/competitions/porto-open/generate-fixtures/", {"seeding": "hand"}, format="json")
    assert answer.status_code == 201, answer.json()
    competition = Competition.objects.get(slug="porto-open")
    strength = {p.pk: -int(p.licence_number[3:]) for p in Player.objects.all()}  # PT-001 beats every other
    return competition, api, strength


def who(fixture: Fixture, side: str) -> str:
    return fixture.entrant(side).player.full_name


def the_winner(fixture: Fixture, strength: dict) -> str:
    """The side that wins ``fixture`` today: the stronger player, always."""
    return "home" if strength[fixture.home.player_id] > strength[fixture.away.player_id] else "away"


def score(winner: str, won: int, lost: int) -> tuple[int, int]:
    return (won, lost) if winner == "home" else (lost, won)


def fixture_of(form_action: str) -> Fixture:
    pk = int(re.search(r"/fixtures/(\d+)/call/", form_action).group(1))
    return Fixture.objects.select_related("home__player", "away__player").get(pk=pk)


def day_page_call(org, fixture: Fixture | None, table: int) -> Fixture:
    """Calls ``fixture`` (None: the first ready one) to ``table`` with its "Call to table" form."""
    form = (org.locator("#ready form.call-form").first if fixture is None
            else org.locator(f"#ready form.call-form[action$='/fixtures/{fixture.pk}/call/']"))
    fixture = fixture_of(form.get_attribute("action"))
    form.locator("select").select_option(str(table))
    form.locator("button").click()
    org.wait_for_load_state()
    assert "is called to table" in org.inner_text(".messages"), org.inner_text(".messages")
    assert who(fixture, "home") in org.inner_text(f"#table-{table} .hall-table-pairing")
    return fixture


def hall_shows_call(hall, fixture: Fixture, table: int) -> None:
    hall.wait_for_function("([t, name]) => { const li = document.querySelector(`#hall-tables li[data-table='${t}']`);"
                           " return li && li.classList.contains('busy') && li.textContent.includes(name); }",
                           arg=[table, who(fixture, "home")], timeout=WAIT)


def hall_shows_result(hall, fixture: Fixture, table: int, shown: str) -> None:
    hall.wait_for_function("([t, name, shown]) => {"
                           " const li = document.querySelector(`#hall-tables li[data-table='${t}']`);"
                           " const results = document.querySelector('#hall-results');"
                           " return li && li.classList.contains('free') && results"
                           " && [...results.querySelectorAll('li')].some((r) => r.textContent.includes(name)"
                           " && r.textContent.includes(shown)); }",
                           arg=[table, who(fixture, "away"), shown], timeout=WAIT)


def names_whole(hall) -> bool:
    """Whether every player's name at the hall's tables is shown whole (their club may be cut)."""
    return hall.evaluate("""() => [...document.querySelectorAll('#hall-tables .who')].every((who) => {
        const range = document.createRange();
        range.selectNodeContents(who.firstChild);
        return range.getBoundingClientRect().right <= who.getBoundingClientRect().right + 1; })""")


def phone_record(phone, fixture: Fixture, *, home=0, away=0, et=None, shootout=None, walkover=None, note=""):
    """The referee's phone: their tables, the fixture's item, the form, saved."""
    phone.goto(re.sub(r"/referee/.*", "/referee/", phone.url))
    phone.locator(f"a.ref-item[href$='/referee/fixtures/{fixture.pk}/']").click()
    phone.wait_for_selector("#referee-result")
    if walkover:
        phone.locator("input[name=outcome][value=walkover]").check()
        phone.locator(f"input[name=walkover_side][value={walkover}]").check()
    else:
        phone.fill("#id_home_goals", str(home))
        phone.fill("#id_away_goals", str(away))
        if et:
            phone.fill("#id_home_et_goals", str(et[0]))
            phone.fill("#id_away_et_goals", str(et[1]))
        if shootout:
            phone.fill("#id_home_shootout", str(shootout[0]))
            phone.fill("#id_away_shootout", str(shootout[1]))
    if note:
        phone.fill("#id_reason", note)
    phone.click(".ref-save")
    phone.wait_for_selector(".ref-ok")


def test_a_tournament_day_of_sixteen_players_on_four_tables(asgi_server, celery_worker_process):
    from tests.browser import chromium

    competition, api, strength = the_day()
    base = f"http://127.0.0.1:{asgi_server}"
    slug = competition.slug
    users = get_user_model().objects
    with chromium() as browser:
        def signed_in(username, device):
            client = Client()
            client.force_login(users.get(username=username))
            context = browser.new_context(**device)
            context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}])
            return context

        laptop = signed_in("marta", LAPTOP)
        org = laptop.new_page()
        phones = {name: signed_in(name, PHONE).new_page() for name in REFEREES}
        hall = browser.new_context(**TV, bypass_csp=True).new_page()  # Playwright's waits evaluate strings
        loads = []
        hall.on("load", lambda: loads.append(1))
        hall.goto(f"{base}/competitions/{slug}/hall/")
        hall.wait_for_function("window.hallScreen && hallScreen.socketOpen()", timeout=WAIT)
        hall.evaluate("window.stillTheSamePage = true")
        assert hall.locator("#hall-tables li.free").count() == 4
        assert "Centre table" in hall.text_content("#hall-tables li[data-table='1']")
        shot(hall, "hall-1920-0-morning")
        for name, phone in phones.items():
            phone.goto(f"{base}/competitions/{slug}/referee/")
            assert "No fixture is called to your tables now." in phone.inner_text("main")
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
            shot(phone, f"phone-{name}-390-0-no-calls")
        day_url = f"{base}/manage/{slug}/day/"
        org.goto(day_url)
        assert org.locator(".hall-table").count() == 4 and org.locator("#ready form.call-form").count() == 24
        shot(org, "organiser-1280-0-morning")

        def referee_of(table):
            return next(name for name, tables in REFEREES.items() if table in tables)

        # -- the first wave, with the refusal, the withdrawn call and the correction --
        stale = laptop.new_page()  # the day page in a second tab, left open
        stale.goto(day_url)
        first = day_page_call(org, None, 1)
        hall_shows_call(hall, first, 1)
        busy = next(f for f in (fixture_of(a) for a in stale.locator("#ready form.call-form").evaluate_all(
            "(forms) => forms.map((f) => f.getAttribute('action'))"))
            if f.pk != first.pk and {f.home_id, f.away_id} & {first.home_id, first.away_id})
        form = stale.locator(f"form.call-form[action$='/fixtures/{busy.pk}/call/']")
        form.locator("select").select_option("2")
        form.locator("button").click()
        stale.wait_for_load_state()
        refusal = stale.inner_text(".messages .error")
        shared = next(e for e in (first.home, first.away) if e.pk in (busy.home_id, busy.away_id))
        assert refusal == f"{shared.name} is playing at table 1 · Centre table now: {first}", refusal
        assert stale.locator("#table-2.busy").count() == 0
        assert Fixture.objects.get(pk=busy.pk).hall_table is None
        shot(stale, "organiser-1280-1-refused-entrant-busy")
        stale.close()

        org.goto(day_url)
        at = {1: first}
        for table in (2, 3):
            at[table] = day_page_call(org, None, table)
            hall_shows_call(hall, at[table], table)
        org.locator("#table-2 form button").click()  # "Withdraw the call"
        org.wait_for_load_state()
        assert "is withdrawn" in org.inner_text(".messages")
        hall.wait_for_selector("#hall-tables li.free[data-table='2']", timeout=WAIT)
        moved = day_page_call(org, at.pop(2), 4)  # the same fixture, now at table 4
        at[4] = moved
        hall_shows_call(hall, moved, 4)
        assert FixtureChange.objects.filter(fixture=moved, kind=FixtureChange.Kind.UNCALLED).count() == 1
        at[2] = day_page_call(org, None, 2)
        hall_shows_call(hall, at[2], 2)
        assert org.locator(".hall-table.busy").count() == 4
        assert names_whole(hall)
        shot(org, "organiser-1280-2-four-tables-called")
        shot(hall, "hall-1920-1-four-calls")

        # the other referee's table: a 403 page, nothing recorded
        ines = phones["ines"]
        answer = ines.goto(f"{base}/competitions/{slug}/referee/fixtures/{at[1].pk}/")
        assert answer.status == 403
        assert "table 1" in ines.inner_text(".ref-refusal").lower() and ines.locator("#referee-result").count() == 0
        shot(ines, "phone-ines-390-1-other-table-refused")
        ines.goto(f"{base}/competitions/{slug}/referee/")
        assert ines.locator("a.ref-item").count() == 2  # tables 3 and 4
        shot(ines, "phone-ines-390-2-her-tables")

        phone_results = 0
        rui = phones["rui"]
        won = the_winner(at[1], strength)
        phone_record(rui, at[1], home=3 if won == "home" else 0, away=0 if won == "home" else 3)  # a slip
        hall_shows_result(hall, at[1], 1, "3–0" if won == "home" else "0–3")
        rui.goto(f"{base}/competitions/{slug}/referee/")
        assert "Recorded by you" in rui.inner_text("main")
        rui.locator(f"a.ref-item[href$='/referee/fixtures/{at[1].pk}/']").click()  # "Correct"
        rui.wait_for_selector("#referee-result")
        assert "Correct the result" in rui.inner_text("h1")
        home, away = score(won, 2, 1)
        rui.fill("#id_home_goals", str(home))
        rui.fill("#id_away_goals", str(away))
        rui.fill("#id_reason", "The score sheet said 2-1")
        shot(rui, "phone-rui-390-1-correction")
        rui.click(".ref-save")
        rui.wait_for_selector(".ref-ok")
        shot(rui, "phone-rui-390-2-corrected")
        phone_results += 2
        hall_shows_result(hall, at[1], 1, f"{home}–{away}")
        assert FixtureChange.objects.filter(fixture=at[1], kind=FixtureChange.Kind.CORRECTION).count() == 1
        result = Result.objects.get(fixture=at[1])
        assert (result.home_goals, result.away_goals, result.recorded_by.username) == (home, away, "rui")

        def record_wave(at: dict, *, walkover_at: int | None = None) -> int:
            """The results of the fixtures at the tables ``at``: at tables 1 and 3 (and every table
            in the knockout) from the referee's phone, else through the API by the organiser."""
            made = 0
            for table, fixture in sorted(at.items()):
                fixture.refresh_from_db()
                won = the_winner(fixture, strength)
                knockout = fixture.round.stage.kind == Stage.Kind.KNOCKOUT
                if table == walkover_at:
                    phone_record(phones[referee_of(table)], fixture, walkover="away" if won == "home" else "home",
                                 note="Did not come back from lunch")
                    shown = who(fixture, "away")
                elif knockout and table == 1 and not shootouts:
                    phone_record(phones[referee_of(table)], fixture, home=1, away=1, et=(0, 0),
                                 shootout=score(won, 5, 4))
                    shootouts.append(fixture)
                    shot(phones[referee_of(table)], f"phone-{referee_of(table)}-390-4-shoot-out-saved")
                    shown = ""
                elif knockout or table in (1, 3):
                    home, away = score(won, 2, 0)
                    phone_record(phones[referee_of(table)], fixture, home=home, away=away)
                    shown = f"{home}–{away}"
                else:
                    home, away = score(won, 1, 0)
                    assert api.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": home, "away_goals": away},
                                    format="json").status_code == 200
                    hall_shows_result(hall, fixture, table, f"{home}–{away}")
                    continue
                made += 1
                hall_shows_result(hall, fixture, table, shown)
            return made

        shootouts: list[Fixture] = []
        phone_results += record_wave({t: f for t, f in at.items() if t != 1})

        # -- the rest of the groups, then the knockout, wave after wave to the final --
        wave = 1
        while Fixture.objects.filter(competition=competition, status__in=Fixture.OPEN).exists():
            wave += 1
            org.goto(day_url)
            at = {}
            for table in range(1, 5):
                if not org.locator("#ready form.call-form").count():
                    break
                at[table] = day_page_call(org, None, table)
                hall_shows_call(hall, at[table], table)
            assert at, org.inner_text("main")
            knockout = at[min(at)].round.stage.kind == Stage.Kind.KNOCKOUT
            if wave == 2:
                shot(org, "organiser-1280-3-second-wave")
            if knockout and not shootouts:
                shot(org, "organiser-1280-4-quarter-finals-called")
                assert hall.locator("#hall-bracket").count() == 1 and names_whole(hall)
                shot(hall, "hall-1920-3-quarter-finals")
                phones["rui"].goto(f"{base}/competitions/{slug}/referee/")
                shot(phones["rui"], "phone-rui-390-3-quarter-finals-list")
                phones["rui"].locator("a.ref-item").first.click()
                phones["rui"].wait_for_selector("#referee-result")
                assert phones["rui"].is_visible("#id_home_shootout")
                shot(phones["rui"], "phone-rui-390-3-knockout-form")
            elif wave == 3:
                shot(hall, "hall-1920-2-groups-under-way")
            phone_results += record_wave(at, walkover_at=3 if wave == 2 else None)
            if wave == 2:
                shot(phones["ines"], "phone-ines-390-3-walkover-saved")
            assert wave < 20

        assert phone_results >= 12
        final = Fixture.objects.filter(competition=competition, round__stage__kind=Stage.Kind.KNOCKOUT) \
            .order_by("-round__number").select_related("home__player", "away__player").first()
        champion = who(final, the_winner(final, strength))
        hall.wait_for_function("(name) => (document.querySelector('#hall-bracket .champion-box') || {}).textContent"
                               "?.includes(name)", arg=champion, timeout=WAIT)
        assert hall.evaluate("window.stillTheSamePage") is True and len(loads) == 1  # never reloaded
        assert hall.evaluate("document.documentElement.scrollHeight") <= 1080
        shot(hall, "hall-1920-4-champion")
        for name, phone in phones.items():
            phone.goto(f"{base}/competitions/{slug}/referee/")
            assert "No fixture is called to your tables now." in phone.inner_text("main")
            shot(phone, f"phone-{name}-390-5-day-done")
        org.goto(day_url)
        assert org.locator(".hall-table.busy").count() == 0
        shot(org, "organiser-1280-5-day-done")
        org.goto(f"{base}/competitions/{slug}/")
        assert org.locator(".standings-groups .card").count() == 4
        assert org.evaluate("""() => [...document.querySelectorAll('.standings-groups .table-wrap')]
            .every((wrap) => wrap.scrollWidth <= wrap.clientWidth)""")  # every group's Pts in sight
        shot(org, "organiser-1280-6-competition-page", full_page=False)
        org.locator("#bracket, .bracket").first.scroll_into_view_if_needed()
        shot(org, "organiser-1280-7-competition-bracket", full_page=False)

    assert Fixture.objects.filter(competition=competition).exclude(hall_table=None).count() == 31  # 24 + 4 + 2 + 1
    assert FixtureChange.objects.filter(fixture__competition=competition, kind=FixtureChange.Kind.CALLED).count() == 32
    assert Result.objects.filter(fixture__competition=competition, recorded_by__username__in=REFEREES).count() \
        == phone_results - 1  # the correction replaced its result
    shoot_out = Result.objects.get(fixture=shootouts[0])
    assert sorted((shoot_out.home_shootout, shoot_out.away_shootout)) == [4, 5]
    assert Result.objects.filter(fixture__competition=competition, outcome="walkover").count() == 1
    # the final placings: the strongest first, the final's loser second, the semi-finals' losers
    # third to fourth, the quarter-finals' fifth to eighth; the groups' last two of each 9th-16th
    def placings():
        rows = api.get(f"/api/competitions/{slug}/placings/").json()
        return rows if len(rows) == 16 and rows[0]["place"] == 1 else None

    rows = wait_for(placings, timeout=30)
    runner_up = who(final, "away" if the_winner(final, strength) == "home" else "home")
    bands = [(r["entrant"], r["place"], r["place_to"]) for r in rows]
    assert bands[0][0].startswith(champion) and bands[0][1:] == (1, 1)
    assert bands[1][0].startswith(runner_up) and bands[1][1:] == (2, 2)
    assert [b[1:] for b in bands[2:4]] == [(3, 4)] * 2
    assert [b[1:] for b in bands[4:8]] == [(5, 8)] * 4
    assert champion == "Rui Almeida"  # PT-001 loses to nobody
