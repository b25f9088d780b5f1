"""In a real browser (issue 18): the embed pages render inside an iframe of another site, and
the other pages refuse to be framed there; a kick-off gets the reader's own time when their
zone differs from the competition's; a round's sheet prints on one A4 page.

Chromium through Playwright (Debian's, as tests/config/test_headers_browser.py), skipped without
it unless ``REQUIRE_SERVICES`` is set. The other site is a second server of the test's on
``127.0.0.1`` (the site under test answers on ``localhost``: another origin)."""
from __future__ import annotations

import datetime as dt
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from leagues.models import Competition, Entrant
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute
from tests.browser import chromium as launch_chromium


@pytest.fixture
def other_site():
    """A club's site on another origin: ``serve(html)`` gives the address of a page of it."""
    pages: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server name
            body = pages.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def serve(html: str) -> str:
        pages["/club/"] = html.encode()
        return f"http://127.0.0.1:{server.server_port}/club/"

    try:
        yield serve
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


def league(slug: str, n: int = 4) -> Competition:
    competition = Competition.objects.create(
        name=f"Liga {slug}", slug=slug, time_zone="America/Sao_Paulo", first_date=dt.date(2026, 12, 5),
        kickoff_time=dt.time(15, 30), lots_seed=1)
    for i in range(1, n + 1):
        Entrant.objects.create(competition=competition, name=f"Time {slug} {i}", seed=i)
    fixtures_generate(competition=competition)
    return competition


@pytest.mark.django_db(transaction=True)
def test_embed_pages_render_in_another_sites_iframe_and_other_pages_refuse(live_server, chromium, other_site):
    competition = league("embed-browser")
    result_record(fixture=competition.fixtures.order_by("round__number", "position").first(), home_goals=2, away_goals=0)
    standings_recompute(competition_id=competition.pk, force=True)
    base = live_server.url
    framed = {
        "standings": f"{base}/embed/competitions/{competition.slug}/standings/",
        "fixtures": f"{base}/embed/competitions/{competition.slug}/fixtures/",
        "competition": f"{base}/competitions/{competition.slug}/",
        "home": f"{base}/",
    }
    host = "<!doctype html><title>Clube</title>" + "".join(
        f'<iframe name="{name}" src="{url}" width="600" height="400"></iframe>' for name, url in framed.items())
    page = chromium.new_page()
    refused: list[str] = []
    page.on("console", lambda msg: refused.append(msg.text) if "frame-ancestors" in msg.text else None)
    url = other_site(host)
    assert url.split("/")[2] != live_server.url.split("/")[2]  # another origin
    page.goto(url)
    page.wait_for_load_state("networkidle")

    standings = page.frame(name="standings")
    assert standings.url == framed["standings"]
    standings.wait_for_selector("table.standings tbody tr")
    assert standings.locator("table.standings tbody tr").count() == 4
    assert f"Time {competition.slug} 1" in standings.inner_text("body")
    fixtures = page.frame(name="fixtures")
    fixtures.wait_for_selector("table.fixtures")
    assert "2–0" in fixtures.inner_text("body") and "15:30" in fixtures.inner_text("body")

    for name in ("competition", "home"):
        frame = page.frame(name=name)
        # the browser refused the page: the frame holds its error page, not ours
        assert frame.url != framed[name] or frame.evaluate("document.querySelector('.site-header')") is None, name
    assert len([text for text in refused if "frame-ancestors 'none'" in text]) == 2, refused
    page.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("zone, shown", [("Asia/Tokyo", True), ("America/Sao_Paulo", False)])
def test_a_kick_off_gets_the_readers_own_time_where_their_zone_differs(live_server, chromium, zone, shown):
    competition = league(f"zones-{zone.split('/')[1].lower()}", n=2)
    context = chromium.new_context(timezone_id=zone, locale="en-GB")
    page = context.new_page()
    page.goto(f"{live_server.url}/competitions/{competition.slug}/")
    page.wait_for_load_state("load")
    meta = page.locator(".match-meta").first.inner_text()
    assert "15:30 (America/Sao_Paulo)" in meta
    if shown:  # 18:30 UTC is 03:30 the next day in Tokyo
        assert re.search(r"Sun.*(6 Dec|Dec 6), 03:30 \(Asia/Tokyo\)", meta), meta  # 24-hour, as the site
    else:
        assert page.locator(".local-time").count() == 0
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_round_sheet_prints_on_one_a4_page(live_server, chromium):
    competition = league("print-sheet", n=16)  # eight fixtures a round
    rnd = competition.stages.get().rounds.get(number=1)
    page = chromium.new_page()
    page.goto(f"{live_server.url}/competitions/{competition.slug}/rounds/{rnd.pk}/print/")
    page.emulate_media(media="print")
    assert page.locator(".screen-only").is_hidden()
    pdf = page.pdf(prefer_css_page_size=True)
    pages = re.findall(rb"/Type\s*/Page[^s]", pdf)
    assert len(pages) == 1
    size = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    assert size and (round(float(size.group(1))), round(float(size.group(2)))) == (595, 842)  # A4 in points
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    page.close()
