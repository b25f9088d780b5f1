"""A club championship of four teams x four tables played through in Chromium, one game of it
online with a spectator.

The championship is played at the tables; the organiser sets the first tie online in the admin
(its games go with it) and moves its kick-off to a few minutes from now on the tie page. The two
captains give their line-ups on the tie page, each in his own browser (one on a 1280 px screen,
one on a 390 px phone; the first line-up hidden from the other side until both are in). The
organiser records a game through the result form and two more through the API; the fourth game
is checked in by its two players on its page and played on the board, a move or two each, while
a third browser, not signed in, goes from the tie page's live table to the board and sees the
moves arrive. The competition plays one half of one minute (its shortest legitimate setting), so
the referee calls full time a minute after the kick-off and the log is adjudicated in process;
meanwhile a game of the other tie is reported by one player and confirmed by the other on the
site. The tie page then shows the tie's result derived from its four games, the other rounds are
recorded through the API, and the competition page ranks the four teams.

Screenshots at 1280 and 390 px into ``TEAM_SCREENSHOTS`` (default /tmp/teamday), to be looked
at. Chromium through Playwright (``tests.browser``)."""
from __future__ import annotations

import functools
import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from leagues.models import Fixture, Result
from leagues.templatetags.botonera import halves
from matches.models import Match
from tests.browser import chromium as launch_chromium
from tests.browser import mouse_flick, sign_in
from tests.leagues.team_world import team_world

PASSWORD = "teamday-pass"
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}

NAMES = ["Marco Rossi, Luca Bianchi, Paolo Conti, Gianni Ferri, Dario Galli",
         "Rui Costa, Ana Ferreira, Tiago Moura, Joana Lopes, Nuno Reis",
         "Sofía Gómez, Javier Ruiz, Lucía Navarro, Pablo Ortega, Elena Vidal",
         "Hana Novak, Tomas Berg, Ivo Kral, Mira Stein, Otto Lange"]

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        # the board's probes (wait_for_function with an expression) are evaluated in the page,
        # which the site's Content-Security-Policy forbids: the contexts bypass it (the policy
        # itself is tested in tests/config/test_headers_browser.py)
        browser.new_context = functools.partial(browser.new_context, bypass_csp=True)
        yield browser


def signed_in(browser, base: str, user, device: dict):
    user.set_password(PASSWORD)
    user.save()
    return sign_in(browser.new_context(**device).new_page(), base, user.username, PASSWORD)


def line_up(page, base: str, tie: Fixture, side: str, players, shot: Path) -> None:
    page.goto(f"{base}/fixtures/{tie.pk}/")
    form = page.locator(f"#lineup-{side}")
    for table, player in enumerate(players, start=1):
        form.locator(f"select[name=table_{table}]").select_option(str(player.pk))
    form.scroll_into_view_if_needed()
    page.screenshot(path=str(shot), full_page=True)
    form.locator("button[type=submit]").click()
    page.wait_for_load_state()


def no_overflow(page) -> None:
    widths = page.evaluate("() => ({page: document.documentElement.scrollWidth, viewport: window.innerWidth})")
    assert widths["page"] <= widths["viewport"], (page.url, widths)


def standings_rows(page) -> list[tuple[str, int, int]]:
    """(team, played, points) of each row of the competition page's standings."""
    return page.evaluate("""() => [...document.querySelectorAll('#standings table.standings tbody tr:not(.tiebreak-row)')]
        .map(tr => [tr.querySelector('td.team, td.name, th[scope=row], td:nth-child(2)').textContent.trim(),
                    parseInt(tr.querySelectorAll('td.n')[0].textContent), parseInt(tr.querySelector('td.pts').textContent)])""")


def test_a_club_championship_played_through_with_a_game_online_and_a_spectator(live_server, chromium):
    shots = Path(os.environ.get("TEAM_SCREENSHOTS") or "/tmp/teamday")
    shots.mkdir(parents=True, exist_ok=True)
    world = team_world(clubs=4, tables_per_tie=4, slug="liga", halves=1, half_minutes=1, time_zone="UTC")
    for squad, names in zip(world.players.values(), NAMES, strict=True):  # names as a club's players have
        for player, name in zip(squad, names.split(", "), strict=True):
            player.first_name, player.last_name = name.split(" ", 1)
            player.save(update_fields=["first_name", "last_name"])
    base = live_server.url
    tie, other = world.ties(1)
    home_team, away_team = tie.home, tie.away
    home_squad, away_squad = world.players[tie.home_id], world.players[tie.away_id]

    # the organiser sets the first tie online in the admin: its four games go with it
    world.organiser.is_staff = True
    world.organiser.save()
    organiser = signed_in(chromium, base, world.organiser, DESKTOP)
    organiser.goto(f"{base}/admin/leagues/fixture/{tie.pk}/change/")
    organiser.select_option("select[name=venue]", "online")
    organiser.click("input[name=_save]")
    organiser.wait_for_load_state()
    assert [g.is_online for g in world.games(tie)] == [True] * 4
    assert not any(g.is_online for g in world.games(other))

    # the two captains line up on the tie page, each in his own browser; the first line-up is
    # hidden from the other club until both are in
    home_captain = signed_in(chromium, base, home_team.captain, DESKTOP)
    line_up(home_captain, base, tie, "home", home_squad[:4], shots / "lineup-form-1280.png")
    assert (f"{home_team.name}: line-up in, shown to you; the other team sees it once both are in"
            in home_captain.inner_text("#lineup-state"))
    away_captain = signed_in(chromium, base, away_team.captain, PHONE)
    away_captain.goto(f"{base}/fixtures/{tie.pk}/")
    assert f"{home_team.name}: line-up in, hidden until both are in" in away_captain.inner_text("#lineup-state")
    assert home_squad[0].full_name not in away_captain.inner_text("#tie-tables")
    no_overflow(away_captain)
    line_up(away_captain, base, tie, "away", away_squad[:4], shots / "lineup-form-390.png")
    tables = away_captain.inner_text("#tie-tables")
    assert home_squad[0].full_name in tables and away_squad[3].full_name in tables  # both shown now
    games = world.games(tie)
    assert [(g.home_player_id, g.away_player_id) for g in games] == [
        (h.pk, a.pk) for h, a in zip(home_squad[:4], away_squad[:4], strict=True)]

    # the organiser moves the tie's kick-off to five minutes from now (check-in opens) ...
    kickoff = timezone.localtime(timezone.now() + timedelta(minutes=5), world.competition.zone)
    organiser.goto(f"{base}/fixtures/{tie.pk}/")
    move = organiser.locator("form[action$='/reschedule/']")
    move.locator("input[name=kickoff]").fill(kickoff.strftime("%Y-%m-%dT%H:%M"))
    move.locator("button[type=submit]").click()
    organiser.wait_for_load_state()
    assert {g.kickoff_at for g in world.games(tie)} == {kickoff.replace(second=0, microsecond=0)}
    # ... and records table 1 through the result form, tables 2 and 3 through the API
    organiser.goto(f"{base}/fixtures/{games[0].pk}/")
    organiser.click("a[href$='/result/']")
    organiser.fill("input[name=home_goals]", "2")
    organiser.fill("input[name=away_goals]", "0")
    organiser.click("main form button[type=submit]")
    organiser.wait_for_load_state()
    assert Result.objects.get(fixture_id=games[0].pk).home_goals == 2
    for game, (h, a) in zip(games[1:3], [(1, 1), (0, 1)], strict=True):
        assert world.record(game, h, a).status_code == 200

    # table 4: its two players check in on its page; the match kicks off when both are in
    home_player = signed_in(chromium, base, home_squad[3].user, DESKTOP)
    away_player = signed_in(chromium, base, away_squad[3].user, PHONE)
    home_player.goto(f"{base}/fixtures/{tie.pk}/")
    home_player.click(".tie-table[data-table='4'] a.fixture-link")
    home_player.wait_for_url(f"**/fixtures/{games[3].pk}/")
    home_player.click("#check-in")
    home_player.wait_for_selector("text=You are checked in")
    away_player.goto(f"{base}/fixtures/{games[3].pk}/")
    assert "✓ Checked in" in away_player.inner_text("#checkin-home")
    away_player.click("#check-in")
    away_player.wait_for_url("**/matches/*/")
    home_player.wait_for_url("**/matches/*/", timeout=10000)  # the game's page moves on at kick-off
    match = Match.objects.get(pk=Fixture.with_games.get(pk=games[3].pk).match_id)
    assert match.status == Match.Status.LIVE
    assert (match.home_user_id, match.away_user_id) == (home_squad[3].user_id, away_squad[3].user_id)

    # a spectator, not signed in, finds the live table on the tie page and opens its board
    spectator = chromium.new_context(**DESKTOP).new_page()
    spectator.goto(f"{base}/fixtures/{tie.pk}/")
    cards = spectator.locator(".tie-table")
    assert cards.count() == 4
    assert len({round(cards.nth(i).bounding_box()["y"]) for i in range(4)}) == 1  # side by side at 1280 px
    live = spectator.locator(".tie-table.live")
    assert live.get_attribute("data-table") == "4" and "Watch live" in live.inner_text()
    spectator.screenshot(path=str(shots / "tie-live-1280.png"), full_page=True)
    live.locator("a.fixture-link").click()
    spectator.wait_for_url(f"**/fixtures/{games[3].pk}/")
    spectator.click(f"a.btn[href='/matches/{match.pk}/']")
    spectator.wait_for_url(f"**/matches/{match.pk}/")
    boards = (home_player, away_player, spectator)
    for page in boards:
        page.wait_for_function("window.botonera && botonera.idle()")

    # the kick-off's two touches by home, then a flick by away: the spectator sees each arrive
    for piece, speed in (("1", 400), ("2", 1500)):
        seq = home_player.evaluate("botonera.header().seq")
        mouse_flick(home_player, "home", piece, speed)
        home_player.wait_for_function(f"botonera.header().seq > {seq}", timeout=8000)
    spectator.wait_for_function(f"botonera.lastSeq() > {seq} && botonera.idle()", timeout=8000)
    assert "flicks button 1 at 400 mm/s." in spectator.inner_text("#feed")
    away_player.wait_for_function("botonera.header().state.to_move === 'away' && botonera.idle()", timeout=10000)
    seq = away_player.evaluate("botonera.header().seq")
    piece = mouse_flick(away_player, "away")
    away_player.wait_for_function(f"botonera.header().seq > {seq}", timeout=8000)
    spectator.wait_for_function(f"botonera.lastSeq() > {seq} && botonera.idle()", timeout=8000)
    assert f"flicks button {piece} at" in spectator.inner_text("#feed")
    spectator.screenshot(path=str(shots / "spectator-board-1280.png"))
    watcher = chromium.new_context(**PHONE).new_page()  # a second spectator, on a phone, opened late
    watcher.goto(f"{base}/matches/{match.pk}/")
    watcher.wait_for_function(f"window.botonera && botonera.lastSeq() > {seq} && botonera.feedCount() > 0 "
                              "&& botonera.idle()", timeout=8000)
    assert "flicks button 1 at 400 mm/s." in watcher.inner_text("#feed")  # the calls made before it opened
    no_overflow(watcher)
    watcher.screenshot(path=str(shots / "spectator-board-390.png"))
    watcher.context.close()
    away_player.screenshot(path=str(shots / "player-board-390.png"))

    # while the minute runs: a game of the other tie, at a table, reported by its home player
    # and confirmed by his opponent on the site
    other_home, other_away = world.players[other.home_id], world.players[other.away_id]
    for side, squad, team in (("home", other_home, other.home), ("away", other_away, other.away)):
        lineup = [squad[1], squad[0], squad[2], squad[3]]
        assert world.lineup(other, side, lineup, client=world.captain(team)).status_code == 200
    other_games = world.games(other)
    reporter = signed_in(chromium, base, other_home[1].user, PHONE)
    reporter.goto(f"{base}/fixtures/{other_games[0].pk}/")
    reporter.fill("#report-home", "3")
    reporter.fill("#report-away", "1")
    reporter.screenshot(path=str(shots / "game-report-390.png"), full_page=True)
    reporter.click("#report-result")
    reporter.wait_for_load_state()
    assert not Result.objects.filter(fixture_id=other_games[0].pk).exists()  # a report, not yet official
    confirmer = signed_in(chromium, base, other_away[1].user, DESKTOP)
    confirmer.goto(f"{base}/fixtures/{other_games[0].pk}/")
    assert "3" in confirmer.inner_text("#report-stage")
    confirmer.click("#confirm-result")
    confirmer.wait_for_load_state()
    result = Result.objects.get(fixture_id=other_games[0].pk)
    assert (result.home_goals, result.away_goals) == (3, 1)
    assert "Official result" in confirmer.inner_text("#fixture-state")
    for game, (h, a) in zip(other_games[1:], [(0, 2), (1, 1), (2, 2)], strict=True):
        assert world.record(game, h, a).status_code == 200

    # full time a minute after the kick-off: every board sees it, and the adjudicated log makes
    # the game's result official (in process), which derives the tie
    for page in boards:
        page.wait_for_function("botonera.header().finished", timeout=90000)
    spectator.wait_for_selector("#official", state="visible", timeout=15000)
    spectator.screenshot(path=str(shots / "spectator-full-time-1280.png"))
    online = Result.objects.get(fixture_id=games[3].pk)
    assert online.source == Result.Source.ONLINE
    tie_result = Result.objects.get(fixture_id=tie.pk)
    game_points = [(1, 0), (0.5, 0.5), (0, 1), {"home": (1, 0), "away": (0, 1)}.get(online.winner_side, (0.5, 0.5))]
    home_points, away_points = sum(p[0] for p in game_points), sum(p[1] for p in game_points)
    assert (tie_result.home_goals, tie_result.away_goals) == (3 + online.home_goals, 2 + online.away_goals)
    spectator.goto(f"{base}/fixtures/{tie.pk}/")
    derived = spectator.inner_text("#tie-derived")
    assert derived.startswith(f"Derived from its games: {halves(home_points)}–{halves(away_points)} on game points"), derived
    spectator.screenshot(path=str(shots / "tie-played-1280.png"), full_page=True)
    phone = chromium.new_context(**PHONE).new_page()
    phone.goto(f"{base}/fixtures/{tie.pk}/")
    no_overflow(phone)
    phone.screenshot(path=str(shots / "tie-played-390.png"), full_page=True)

    # the other rounds, through the API; then the competition page ranks the four teams
    for tie_later in world.ties(2) + world.ties(3):
        world.lineups(tie_later)
        world.play(tie_later, [(1, 0), (1, 0), (0, 0), (0, 1)])
    ties = Result.objects.filter(fixture__in=world.ties()).select_related("fixture")
    assert ties.count() == 6
    points = {team.pk: 0 for team in world.teams}
    for r in ties:
        win, draw, loss = world.competition.tie_points
        for entrant, side in ((r.fixture.home_id, "home"), (r.fixture.away_id, "away")):
            points[entrant] += draw if not r.winner_side else (win if r.winner_side == side else loss)
    for device, name in ((DESKTOP, "standings-1280.png"), (PHONE, "standings-390.png")):
        page = chromium.new_context(**device).new_page()
        page.goto(f"{base}/competitions/{world.competition.slug}/")
        rows = standings_rows(page)
        assert sorted(p for _, _, p in rows) == sorted(points.values()), rows
        assert [played for _, played, _ in rows] == [3] * 4
        no_overflow(page)
        page.locator("#standings").screenshot(path=str(shots / name))
        page.screenshot(path=str(shots / name.replace("standings", "competition")), full_page=True)
