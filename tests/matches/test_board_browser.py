"""The board in a real browser (issues 8 and 17): Chromium through Playwright, on the live test
server.

Two players check in on the fixture's page and play a fixture to full time, one on a desktop
with a mouse, one on a 390 x 844 phone with touch; a spectator who is not signed in watches.
Every board shows the referee's calls as sentences with their rule linked, a refused move is
explained under the table, the phone's table fills the width with the player's own half on
screen and plays a flick aimed with one finger, and every board switches to the official
result within 2 s of adjudication, however late the worker is. A finished match replays from
its log (play, step, jump to a goal). A button that may not play is drawn crossed out and says
why on hover or tap.

The browser is Debian's ``chromium`` (``.ci/run`` installs it; never ``playwright install``).
Without it the test skips, unless ``REQUIRE_SERVICES`` is set (CI), where it fails.
"""
from __future__ import annotations

import functools
import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.browser import board_aim as _aim
from tests.browser import chromium, sign_in
from tests.browser import mouse_flick as _mouse_flick

PASSWORD = "board-test-pw"
DESKTOP = {"viewport": {"width": 1280, "height": 800}}  # a laptop
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
BARE_KEY = re.compile(r"\b[a-z]+_[a-z_]+\b")


@pytest.fixture
def browser():
    with chromium() as b:
        # the probes below (wait_for_function with an expression) are strings evaluated in the
        # page, which the site's Content-Security-Policy forbids (no eval): the contexts bypass
        # it. The policy itself is tested in tests/config/test_headers_browser.py.
        b.new_context = functools.partial(b.new_context, bypass_csp=True)
        yield b


def _league(slug: str, *, half_minutes: int = 1, rule_params: dict | None = None):
    from django.contrib.auth import get_user_model

    from leagues.models import Club, ClubMembership, Competition, Entrant, Player
    from leagues.services.fixtures import fixtures_generate

    competition = Competition.objects.create(
        name=f"Board {slug}", slug=slug, format="league", lots_seed=3, rule_set="one_touch",
        halves=1, half_minutes=half_minutes, venue="online", rule_params=rule_params or {})
    for i, (first, last, club) in enumerate([("Hana", "Home", "Reds"), ("Abel", "Away", "Blues")], start=1):
        user = get_user_model().objects.create_user(username=f"{slug}-{last.lower()}", password=PASSWORD,
                                                    first_name=first, last_name=last)
        player = Player.objects.create(first_name=first, last_name=last, licence_number=f"{slug}-{i}", user=user)
        club_obj = Club.objects.create(name=f"{club} {slug}", slug=f"{club.lower()}-{slug}")
        ClubMembership.objects.create(player=player, club=club_obj, start_date="2020-01-01")
        Entrant.objects.create(competition=competition, name=f"{first} {last}", seed=i, player=player, club=club_obj)
    fixtures_generate(competition=competition)
    competition.fixtures.update(kickoff_at=timezone.now() + timedelta(minutes=10))  # check-in open now
    return competition, competition.fixtures.get()


def _kicked_off(slug: str):
    """The online match of a league of two, both players checked in: live at its kick-off."""
    from matches.services import online
    from tests.matches.conftest import setup_match

    _, fixture = _league(slug)
    match = setup_match(fixture, timezone.now())
    for entrant in (fixture.home, fixture.away):
        online.check_in(match_id=match.pk, user=entrant.player.user)
    return match


def _sign_in(browser, base: str, username: str, device: dict):
    return sign_in(browser.new_context(**device).new_page(), base, username, PASSWORD)


def _finger(page):
    """Real touch events through Chrome's input pipeline: they scroll, tap and drag as a finger."""
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float = 0, y: float = 0) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
    return touch


def _touch_drag(touch, start, end, steps: int = 6) -> None:
    touch("touchStart", *start)
    for k in range(1, steps + 1):
        touch("touchMove", start[0] + (end[0] - start[0]) * k / steps, start[1] + (end[1] - start[1]) * k / steps)
    touch("touchEnd")


def _touch_flick(page, touch, side: str, speed: float = 1200) -> str:
    page.wait_for_function("botonera.idle()")
    aim = _aim(page, side, None, speed)
    _touch_drag(touch, aim["from"], aim["to"])
    return aim["piece"]


def _on_screen(page, selector: str) -> bool:
    """The element is shown, wholly inside the window."""
    return page.evaluate("""(sel) => {
        const r = document.querySelector(sel).getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
    }""", selector)


def _seq(page) -> int:
    return page.evaluate("botonera.header().seq")


def _feed_reads_as_sentences(page) -> None:
    items = page.evaluate("""() => [...document.querySelectorAll('#feed li')].map(li => ({
        text: li.querySelector('.what').textContent, event: li.classList.contains('event'),
        rule: li.querySelector('.rule') && li.querySelector('.rule').getAttribute('href')}))""")
    assert items, "the feed is empty"
    for item in items:
        assert item["text"].endswith(".") and not BARE_KEY.search(item["text"]), item
        if item["event"] and item["rule"] is not None:
            assert item["rule"].startswith("/rules/#"), item


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_fixture_played_to_full_time_on_a_desktop_and_a_phone_with_a_spectator(live_server, browser, monkeypatch):
    from matches import tasks
    from matches.models import Match, MatchAction
    from matches.services.adjudication import match_adjudicate

    # the worker is late: full time is called, then the result becomes official when the test says
    late = []
    monkeypatch.setattr(tasks.adjudicate_match, "enqueue", lambda match_id: late.append(match_id))
    base = live_server.url
    competition, fixture = _league("ft", rule_params={"half_minutes": 0.75})
    home = _sign_in(browser, base, "ft-home", DESKTOP)
    away = _sign_in(browser, base, "ft-away", PHONE)

    # the competition's page links the fixture; the fixture's page lets each player check in
    home.goto(f"{base}/competitions/{competition.slug}/")
    home.click(f"a[href='/fixtures/{fixture.pk}/']")
    home.click("#check-in")
    home.wait_for_selector("text=You are checked in")
    away.goto(f"{base}/fixtures/{fixture.pk}/")
    away.click("#check-in")
    away.wait_for_url("**/matches/*/")
    home.wait_for_url("**/matches/*/", timeout=10000)  # the fixture's page moves on at kick-off
    fixture.refresh_from_db()
    match = fixture.match
    assert match.status == Match.Status.LIVE
    spectator = browser.new_context(**DESKTOP).new_page()
    spectator.goto(f"{base}/matches/{match.pk}/")
    boards = (home, away, spectator)
    for page in boards:
        page.wait_for_function("window.botonera && botonera.idle()")

    # the phone: the table fills the width, the own half at the bottom, the controls under it,
    # all on screen without scrolling
    phone = away.evaluate("""() => {
        const c = document.getElementById('board').getBoundingClientRect();
        return {scrollY, innerHeight, innerWidth, left: c.left, width: c.width, top: c.top, bottom: c.bottom,
                controls: document.getElementById('controls').getBoundingClientRect().bottom,
                ownKeeper: botonera.screenOf('away', 'gk').y, theirKeeper: botonera.screenOf('home', 'gk').y};
    }""")
    assert phone["scrollY"] == 0 and phone["left"] == 0 and phone["width"] == phone["innerWidth"] == 390, phone
    assert phone["bottom"] <= phone["innerHeight"] and phone["controls"] <= phone["innerHeight"], str(phone)
    assert phone["theirKeeper"] < (phone["top"] + phone["bottom"]) / 2 < phone["ownKeeper"] < phone["bottom"], phone

    # the desktop: the table, the turn, the controls and the message all on screen at once
    desk = home.evaluate("""() => ({innerHeight, scrollY,
        board: document.getElementById('board').getBoundingClientRect().bottom,
        controls: document.getElementById('controls').getBoundingClientRect().bottom})""")
    assert desk["scrollY"] == 0 and desk["board"] < desk["controls"] <= desk["innerHeight"] - 24, desk

    # hints, on in a player's first five matches, say what to do at the kick-off; the switch,
    # beside the controls, turns them off, and the board remembers it
    home.wait_for_selector("#hint:not([hidden])")
    assert home.inner_text("#hint-text").startswith("Your kick-off: two touches")
    assert _on_screen(home, "#hints-toggle"), "the hints' switch is not on screen"
    home.click("#hints-toggle")
    home.wait_for_selector("#hint", state="hidden")
    home.click("#hints-toggle")
    home.wait_for_selector("#hint:not([hidden])")

    # a refused move is explained under the table, in a sentence, with its rule linked
    home.click("#declare-shot")
    home.wait_for_selector("#message.bad a.rule[href^='/rules/#']")
    assert home.inner_text("#message").startswith("Not allowed. ")
    assert _on_screen(home, "#message"), "the refusal is not on screen"

    # home kicks off with the mouse: a gentle first touch...
    before = _seq(home)
    _mouse_flick(home, "home", "1", speed=400)
    home.wait_for_function(f"botonera.header().seq > {before}", timeout=8000)
    assert home.evaluate("botonera.header().state.to_move") == "home"  # the second touch is home's too
    # ... after which button 1 may not play: every board crosses it out; pointing at it says why
    for page in boards:
        page.wait_for_function("botonera.marked().includes('1') && botonera.idle()", timeout=8000)
    at = home.evaluate("botonera.screenOf('home', '1')")
    home.mouse.move(at["x"], at["y"])
    home.wait_for_selector("#tip:not([hidden])")
    assert home.inner_text("#tip").startswith("Button 1 ") and home.locator("#tip a.rule").count() == 1
    # ... and the other button takes the second
    before = _seq(home)
    _mouse_flick(home, "home", "2", speed=1500)
    home.wait_for_function(f"botonera.header().seq > {before}", timeout=8000)

    # the phone: a swipe on the table away from the buttons scrolls the page; a flick aimed with
    # one finger from a button is sent and accepted
    away.wait_for_function("botonera.header().state.to_move === 'away' && botonera.idle()", timeout=10000)
    finger = _finger(away)
    _touch_drag(finger, (12, phone["top"] + 560), (12, phone["top"] + 260))
    away.wait_for_function("scrollY > 100")
    away.evaluate("""async () => {   // the fling comes to rest, then back to the top
        for (let last = -1; scrollY !== last;) { last = scrollY; await new Promise((r) => setTimeout(r, 250)); }
        window.scrollTo(0, 0);
    }""")
    before = _seq(away)
    piece = _touch_flick(away, finger, "away")
    away.wait_for_function(f"botonera.header().seq > {before}", timeout=8000)
    row = MatchAction.objects.get(match=match, seq=before + 1)
    assert row.side == "away" and row.action["type"] == "flick" and row.action["piece"] == piece
    assert away.evaluate("scrollY") == 0  # the drag did not scroll the page

    # every board shows every call as a sentence, with the players' names
    seq = Match.objects.get(pk=match.pk).seq
    for page in boards:
        page.wait_for_function(f"botonera.lastSeq() >= {seq} && botonera.idle()", timeout=8000)
        _feed_reads_as_sentences(page)
    feed = spectator.inner_text("#feed")
    assert "Home flicks button 1 at 400 mm/s." in feed and f"Away flicks button {piece} at" in feed

    # full time: every board sees it (the board whose poll applied it, and the others) and
    # keeps asking until the result is official
    for page in boards:
        page.wait_for_function("botonera.header().finished", timeout=60000)
    for page in boards:
        page.wait_for_function("botonera.replayPos() !== null && botonera.idle()", timeout=10000)
    for page in (home, away):  # the replay keeps no live controls, no stale message
        assert not page.is_visible("#controls") and page.inner_text("#message") == ""
    assert not any(page.is_visible("#official") for page in boards)
    assert late == [match.pk]
    match_adjudicate(match_id=match.pk)  # then its fixture makes the result official (eager here)
    time.sleep(2.0)
    for page in boards:
        assert page.is_visible("#official"), page.url
        assert page.inner_text("#official").startswith("Official result: Home ")
        assert page.text_content("#status-badge") == "Official result"
    assert spectator.evaluate("botonera.replayPos()") == Match.objects.get(pk=match.pk).seq


@pytest.mark.django_db(transaction=True)
def test_a_finished_match_replays_and_a_barred_button_says_why(live_server, browser):
    """The replay of a finished match; the buttons that may not take a kick-off."""
    from leagues.management.commands.play_fixtures import play_bot_match

    base = live_server.url
    _, finished_fixture = _league("rpl")
    finished = play_bot_match(fixture=finished_fixture)

    # the replay of the finished match: it opens at full time; play, step, jump to a goal
    replay = browser.new_context(**DESKTOP).new_page()
    replay.goto(f"{base}/matches/{finished.pk}/")
    replay.wait_for_selector("#replay:not([hidden])")
    total = finished.seq
    replay.wait_for_function(f"botonera.replayPos() === {total}")
    assert replay.inner_text("#official").startswith("Official result: ")
    replay.click("#rp-back")
    assert replay.evaluate("botonera.replayPos()") == total - 1
    replay.fill("#rp-range", "0")
    replay.wait_for_function("botonera.replayPos() === 0")
    replay.click("#rp-play")
    replay.wait_for_function("botonera.replayPos() >= 2", timeout=15000)
    replay.click("#rp-play")  # pause
    pos = replay.evaluate("botonera.replayPos()")
    replay.wait_for_function("botonera.idle()")
    replay.click("#rp-step")
    replay.wait_for_function(f"botonera.replayPos() === {pos + 1}", timeout=8000)
    if replay.locator(".goal-jump").count():
        replay.click(".goal-jump >> nth=0")
        replay.wait_for_selector("#feed li.ev-goal", timeout=10000)
    _feed_reads_as_sentences(replay)

    # At a kick-off only the two buttons in the centre circle may take it: the others are drawn
    # crossed out, and say why on hover (desktop) or tap (phone), to players and spectators.
    from matches.services import online
    from tests.matches.conftest import setup_match

    _, live_fixture = _league("bar")
    match = setup_match(live_fixture, timezone.now())
    for entrant in (live_fixture.home, live_fixture.away):
        online.check_in(match_id=match.pk, user=entrant.player.user)
    for device in (DESKTOP, PHONE):
        page = browser.new_context(**device).new_page()
        page.goto(f"{base}/matches/{match.pk}/")
        page.wait_for_function("botonera.marked().includes('7') && !botonera.marked().includes('1')")
        at = page.evaluate("botonera.screenOf('home', '7')")
        if device is DESKTOP:
            page.mouse.move(at["x"], at["y"])
            page.wait_for_selector("#tip:not([hidden])")
            said = page.inner_text("#tip")
        else:
            page.touchscreen.tap(at["x"], at["y"])
            page.wait_for_selector("#message a.rule[href='/rules/#rulebook-7']")
            said = page.inner_text("#message")
            assert _on_screen(page, "#message"), "on the phone the reason is not on screen"
            assert not page.is_visible("#tip"), "a tap says why once, in the message, not in a tooltip too"
        assert said.startswith("The kick-off is taken by one of the two buttons inside the centre circle, "
                               "not by button 7."), said
        page.context.close()


@pytest.mark.django_db(transaction=True)
def test_the_board_runs_under_the_content_security_policy(live_server, browser):
    """The board's modules, its data blocks and its colours need no inline script and no style
    attribute: under the site's policy it loads, paints and speaks with no violation."""
    from matches.services import online
    from tests.matches.conftest import setup_match

    _, fixture = _league("csp")
    match = setup_match(fixture, timezone.now())
    home_user, away_user = fixture.home.player.user, fixture.away.player.user
    online.check_in(match_id=match.pk, user=home_user)
    online.check_in(match_id=match.pk, user=away_user)
    # a kick-off flicked too hard: a technical foul, for the feed to say
    assert online.submit_action(match_id=match.pk, user=home_user, seq=1, action_json={
        "type": "flick", "piece": "1", "angle_deg": -40.9, "speed_mm_s": 2500}).status_code == 201

    page = browser.new_context(bypass_csp=False, **PHONE).new_page()
    violations = []
    page.on("console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None)
    response = page.goto(f"{live_server.url}/matches/{match.pk}/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    for _ in range(100):  # polled from here: a probe evaluated in the page would be an eval
        if page.evaluate("() => !!(window.botonera && document.querySelector('#feed li.ev-technical_foul'))"):
            break
        time.sleep(0.1)
    feed = page.inner_text("#feed")
    assert "Technical foul against Home: the first touch of a kick-off must move the ball forward" in feed
    painted = page.evaluate("() => getComputedStyle(document.querySelector('.scoreboard .dot')).getPropertyValue('--fill')")
    assert painted.strip().startswith("#")
    assert violations == []
    page.context.close()


@pytest.mark.django_db(transaction=True)
def test_at_a_penalty_kick_each_side_is_told_its_own_part(live_server, browser):
    """The taker's side places its taker and says ready, then the keeper's side sets its keeper
    and says ready, then the taker flicks: the turn line and the hint say so to each side (the
    keeper's side is never told it is its own penalty kick)."""
    match = _kicked_off("pen")
    page = browser.new_context(**DESKTOP).new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_function("window.botonera && botonera.idle()")
    said = page.evaluate("""async () => {
        const hud = await import('/static/js/board/hud.js');
        const words = JSON.parse(document.getElementById('board-strings').textContent);
        const T = JSON.parse(document.getElementById('board-config').textContent).table;
        const at = (stage, toMove) => ({phase: 'penalty_kick', to_move: toMove, ball: [630, 0], home_attacks: '+x',
                                        memo: {penalty: {side: 'home', stage, taker: stage === 'taker' ? null : '9'}}});
        const out = {};
        for (const [stage, toMove] of [['taker', 'home'], ['keeper', 'away'], ['kick', 'home']]) {
            const st = at(stage, toMove), other = toMove === 'home' ? 'away' : 'home';
            out[stage] = {mine: hud.turnLine(st, true, words, 'Me'), theirs: hud.turnLine(st, false, words, 'Them'),
                          hint: words.hints[hud.hintFor(st, toMove, 'one_touch', T)] || '',
                          other_hint: hud.hintFor(st, other, 'one_touch', T)};
        }
        return out;
    }""")
    assert said["taker"]["mine"] == "Your penalty kick: place the taker if you wish, then Ready", said
    assert said["taker"]["theirs"] == "Them prepares the penalty kick", said
    assert said["taker"]["hint"].startswith("Your penalty kick: switch to Place"), said
    assert said["keeper"]["mine"] == "Penalty kick against you: set your goalkeeper, then Ready", said
    assert said["keeper"]["theirs"] == "Them places the goalkeeper", said
    assert said["keeper"]["hint"].startswith("A penalty kick against you"), said
    assert said["kick"]["mine"] == "Your penalty kick" and said["kick"]["theirs"] == "Them's penalty kick", said
    assert said["kick"]["hint"].startswith("Your penalty kick: the goalkeeper is set"), said
    assert {s["other_hint"] for s in said.values()} == {""}, said  # the side not to move is told nothing
    page.context.close()


@pytest.mark.django_db(transaction=True)
def test_at_an_mbs_throw_in_a_placed_button_waits_for_ready(live_server, browser):
    """MBS "Saque de banda y tiro de esquina": once the taking side placed a button, the turn line
    and the hint tell it to press Ready before the flick; before any placing, and after Ready,
    they say what they said before."""
    match = _kicked_off("mbs-throw")
    page = browser.new_context(**DESKTOP).new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_function("window.botonera && botonera.idle()")
    said = page.evaluate("""async () => {
        const hud = await import('/static/js/board/hud.js');
        const words = JSON.parse(document.getElementById('board-strings').textContent);
        const T = JSON.parse(document.getElementById('board-config').textContent).table;
        const out = {};
        for (const [name, memo] of [['none', {}], ['placed', {placed: ['7']}], ['ready', {placed: ['7'], ready: true}]]) {
            const st = {phase: 'throw_in', to_move: 'home', ball: [0, 515], home_attacks: '+x', memo};
            out[name] = {mine: hud.turnLine(st, true, words, 'Me'), theirs: hud.turnLine(st, false, words, 'Them'),
                         hint: hud.hintFor(st, 'home', 'mbs', T)};
        }
        return out;
    }""")
    assert said["placed"]["mine"] == "Your throw-in: press Ready, then flick", said
    assert said["placed"]["hint"] == "set_piece_ready", said
    assert said["none"]["mine"] == said["ready"]["mine"] == "Your throw-in", said
    assert said["none"]["hint"] == said["ready"]["hint"] == "set_piece", said
    assert said["placed"]["theirs"] == "Them's throw-in", said
    page.context.close()


@pytest.mark.django_db(transaction=True)
def test_a_press_on_your_button_out_of_your_turn_says_whose_turn_it_is_and_sends_nothing(live_server, browser):
    """At the kick-off it is home's turn: the away player who presses on one of its buttons is
    told at once, in the message line, and no move goes to the server."""
    match = _kicked_off("nyt")
    away = _sign_in(browser, live_server.url, "nyt-away", DESKTOP)
    posts = []
    away.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    away.goto(f"{live_server.url}/matches/{match.pk}/")
    away.wait_for_function("window.botonera && botonera.idle() && botonera.header().state.to_move === 'home'")
    at = away.evaluate("botonera.screenOf('away', '5')")
    away.mouse.move(at["x"], at["y"])
    away.mouse.down()
    away.mouse.move(at["x"] - 60, at["y"], steps=4)
    away.mouse.up()
    away.wait_for_selector("#message.bad")
    assert away.inner_text("#message") == "Not your turn: Home's kick-off"
    assert posts == [], posts
    away.context.close()


@pytest.mark.django_db(transaction=True)
def test_a_goal_kick_arrangement_says_which_half_and_how_many_are_there(live_server, browser):
    """Rulebook §5: in its stage of a goal kick's arrangement the side is told the half it uses,
    how many of its buttons are wholly in the half it attacks out of the 3 it needs, and the 6 cm."""
    match = _kicked_off("gka")
    page = browser.new_context(**DESKTOP).new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_function("window.botonera && botonera.idle()")
    said = page.evaluate("""async () => {
        const hud = await import('/static/js/board/hud.js');
        const words = JSON.parse(document.getElementById('board-strings').textContent);
        const T = JSON.parse(document.getElementById('board-config').textContent).table;
        const order = [['home', 'offensive'], ['away', 'offensive'], ['home', 'defensive'], ['away', 'defensive']];
        // home attacks +x: 2 and 3 wholly in the half it attacks, 4 touching the halfway line, 5 behind it
        const pieces = {home: {gk: [-820, 0], '2': [200, 0], '3': [400, 100], '4': [10, 0], '5': [-300, 0]},
                        away: {gk: [820, 0], '2': [300, 300]}};
        const at = (stage) => ({phase: 'goal_kick', to_move: order[stage][0], home_attacks: '+x', ball: [-700, 0],
                                pieces, memo: {placing: {kind: 'goal_kick', stage, order}}});
        return {offensive: hud.turnLine(at(0), true, words, 'Me', T),
                defensive: hud.turnLine(at(2), true, words, 'Me', T),
                theirs: hud.turnLine(at(1), false, words, 'Them', T)};
    }""")
    assert said["offensive"] == ("Goal kick: arrange your buttons in the half you attack (lit), 2 of 3 there, "
                                 "at least 6 cm from every opponent; then Ready"), said
    assert said["defensive"].startswith("Goal kick: arrange your buttons in your own half (lit), keeping 3 "
                                        "in the half you attack (2 there)"), said
    assert said["theirs"] == "Them is placing", said
    page.context.close()
