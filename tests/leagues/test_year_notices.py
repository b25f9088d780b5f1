"""What the players are told (issue 19), end to end: the events of leagues write notifications in
their own transactions, beat finds the check-in windows, and the e-mails go through a real SMTP
server started here (aiosmtpd), read back and unsubscribed from."""
from __future__ import annotations

import email
import re
import socket
from datetime import UTC, date, datetime, timedelta
from email.policy import default as default_policy

import pytest
from aiosmtpd.controller import Controller
from django.test import Client

from leagues.models import ClubMembership, Competition, Fixture, Venue
from leagues.notifications import tasks as notification_tasks
from leagues.notifications.models import EmailStatus, Kind, Notification
from leagues.notifications.services import choices_of
from leagues.selectors.year import rating_of
from leagues.services import notices
from leagues.services import registration as reg
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.kickoffs import fixture_reschedule
from leagues.services.online import fixture_check_in
from leagues.services.results import decision_record, result_record
from leagues.services.standings import standings_recompute
from leagues.tasks import sweep as leagues_sweep
from tests.leagues.factories import ClubFactory, PlayerFactory, UserFactory


class Inbox:
    """An aiosmtpd handler keeping every message it is given."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content, policy=default_policy))
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def smtp_server(settings):
    """A real SMTP server on loopback; Django's mail goes to it."""
    inbox = Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.SITE_URL = "http://testserver"
    yield inbox
    controller.stop()


def player(name: str):
    user = UserFactory(username=name, email=f"{name}@example.org")
    p = PlayerFactory(first_name=name.title(), last_name="Silva", user=user)
    ClubMembership.objects.create(player=p, club=ClubFactory(), start_date=date(2020, 1, 1))
    return p


def _body(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def _sent(inbox: Inbox, to: str) -> list[str]:
    return [m["Subject"] for m in inbox.messages if m["To"] == to]


@pytest.mark.django_db
def test_the_notifications_of_a_competition_go_through_a_real_smtp_server(smtp_server):
    now = datetime(2027, 1, 4, 12, 0, tzinfo=UTC)
    league = Competition.objects.create(name="Liga Online", slug="liga-online", first_date=date(2027, 1, 10),
                                        venue=Venue.ONLINE, time_zone="Europe/Lisbon")
    ana, rui, lia = player("ana"), player("rui"), player("lia")
    reg.registration_open(competition=league, opens_at=now - timedelta(days=1), closes_at=now + timedelta(days=3),
                          capacity=2, now=now)
    signed = [reg.sign_up(competition=league, player=p, now=now) for p in (ana, rui, lia)]
    reg.sign_up_refuse(sign_up=signed[1], reason="Two from the same club", now=now)  # lia moves up
    reg.sign_up_confirm(sign_up=signed[0], now=now)
    reg.sign_up_confirm(sign_up=signed[2], now=now)
    fixtures_generate(competition=league, now=now)
    fixture = league.fixtures.get()
    fixture_reschedule(fixture=fixture, kickoff_at=fixture.kickoff_at + timedelta(hours=1), reason="Clash", now=now)
    fixture.refresh_from_db()

    opens = fixture.checkin_opens_at
    assert leagues_sweep()["told"] == 0  # nothing before the window opens (at the real "now")
    assert notices.checkin_open_due(now=opens + timedelta(minutes=1)) == 2
    assert notices.checkin_open_due(now=opens + timedelta(minutes=2)) == 0  # told once
    home_user = fixture.home.player.user
    fixture_check_in(fixture=fixture, user=home_user, now=opens + timedelta(minutes=5))
    assert notices.walkover_warnings_due(now=fixture.kickoff_at + timedelta(minutes=1)) == 1
    assert notices.walkover_warnings_due(now=fixture.kickoff_at + timedelta(minutes=2)) == 0

    # the worker's pass (what the tasks after commit and beat's sweeper do)
    result = notification_tasks.sweep()
    assert result["sent"] == result["pending"] > 0
    away_user = fixture.away.player.user
    assert set(_sent(smtp_server, ana.user.email)) >= {
        "[Botonera] You are in: Liga Online", "[Botonera] Your fixtures in Liga Online",
        f"[Botonera] Rescheduled: {fixture.home.name} v {fixture.away.name}",
        f"[Botonera] Check in now: {fixture.home.name} v {fixture.away.name}"}
    assert _sent(smtp_server, rui.user.email) == ["[Botonera] Sign-up refused: Liga Online"]
    assert "[Botonera] A place for you: Liga Online" in _sent(smtp_server, lia.user.email)
    away_mail = _sent(smtp_server, away_user.email)
    assert f"[Botonera] {fixture.home.name} is checked in and waiting" in away_mail
    assert any(s.startswith("[Botonera] Check in before") for s in away_mail)

    scheduled = next(m for m in smtp_server.messages if m["Subject"] == "[Botonera] Your fixtures in Liga Online"
                     and m["To"] == ana.user.email)
    assert "(Europe/Lisbon)" in _body(scheduled)  # the kick-off, in the competition's zone
    # every e-mail has its unsubscribe link, and it works without signing in
    refused = next(m for m in smtp_server.messages if m["To"] == rui.user.email)
    assert "Two from the same club" in _body(refused)
    link = re.search(r"http://testserver(/unsubscribe/[^/\s]+/)", _body(refused)).group(1)
    assert "".join(refused["List-Unsubscribe"].split()) == f"<http://testserver{link}>"  # folded when long
    assert Client().post(link).status_code == 200
    assert choices_of(rui.user)[Kind.SIGN_UP_REFUSED] == (True, False)
    assert not Notification.objects.exclude(email_status__in=[EmailStatus.SENT, EmailStatus.SKIPPED]).exists()

    # the result: told to both, through the same server
    count = len(smtp_server.messages)
    decision_record(fixture=Fixture.objects.get(pk=fixture.pk), outcome="walkover", outcome_side="away",
                    reason="Did not check in", now=fixture.kickoff_at + timedelta(minutes=20))
    notification_tasks.sweep()
    official = [m["Subject"] for m in smtp_server.messages[count:]]
    assert len(official) == 2 and all(s.startswith("[Botonera] Official: ") for s in official)


@pytest.mark.django_db
def test_a_fresh_players_pass_sign_up_confirmed_kickoff_checkin_and_the_rating_moves(smtp_server,
                                                                                     django_capture_on_commit_callbacks):
    """Done when: a player signs up, is confirmed, is told the fixture's kick-off, gets the
    check-in mail and sees the rating move after the result (through the pages)."""
    now = datetime.now(UTC)
    organiser = UserFactory(username="organiser")
    cup = Competition.objects.create(name="Taça Online", slug="taca-online", format=Competition.Format.KNOCKOUT,
                                     venue=Venue.ONLINE, first_date=(now + timedelta(days=1)).date(),
                                     time_zone="America/Sao_Paulo")
    cup.organisers.add(organiser)
    ana, rui = player("ana"), player("rui")
    boss, me, opponent = Client(), Client(), Client()
    boss.force_login(organiser)
    me.force_login(ana.user)
    opponent.force_login(rui.user)
    with django_capture_on_commit_callbacks(execute=True):
        local = now.astimezone(cup.zone)  # the organiser types times in the competition's zone
        boss.post(f"/manage/{cup.slug}/registration/", {
            "opens_at": (local - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
            "closes_at": (local + timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M"), "capacity": 8,
            "licence_required": "on", "waiting_list": "on"})
        assert cup.registration.opens_at == (now - timedelta(hours=1)).replace(second=0, microsecond=0)
        for client in (me, opponent):
            assert client.post(f"/competitions/{cup.slug}/sign-up/").status_code == 302
        for entry in cup.sign_ups.all():
            boss.post(f"/manage/{cup.slug}/sign-ups/{entry.pk}/decide/", {"decision": "confirm"})
        assert boss.post(f"/manage/{cup.slug}/generate/", {"seeding": "rating"}).status_code == 302
    assert "You are in: Taça Online" in me.get("/inbox/").content.decode()
    fixture = cup.fixtures.get()
    mine = [m for m in smtp_server.messages if m["To"] == ana.user.email]
    scheduled = next(m for m in mine if m["Subject"] == "[Botonera] Your fixtures in Taça Online")
    assert "(America/Sao_Paulo)" in _body(scheduled)

    # the check-in window opens: beat tells both
    with django_capture_on_commit_callbacks(execute=True):
        fixture_reschedule(fixture=fixture, kickoff_at=now + timedelta(minutes=10), reason="Tonight")
        leagues_sweep()
    assert any(m["Subject"].startswith("[Botonera] Check in now") for m in smtp_server.messages
               if m["To"] == ana.user.email)
    assert "Check in now" in me.get("/inbox/").content.decode()
    assert "Not rated yet" in me.get(f"/players/{ana.pk}/").content.decode()

    # the final's result becomes official: the rating moves (through the worker after commit)
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=Fixture.objects.get(pk=fixture.pk), home_goals=2, away_goals=1)
    winner = Fixture.objects.get(pk=fixture.pk).home.player
    assert rating_of(player=winner).rating > 1500
    page = Client().get(f"/players/{winner.pk}/").content.decode()
    assert "Not rated yet" not in page and "<svg" in page
    assert any(m["Subject"].startswith("[Botonera] Official:") for m in smtp_server.messages
               if m["To"] == ana.user.email)


@pytest.mark.django_db
def test_the_finalists_are_told_their_final_when_the_results_give_it_and_once():
    players = [player(n) for n in ("ana", "rui", "lia", "tom")]
    cup = Competition.objects.create(name="Cup", slug="cup", format=Competition.Format.KNOCKOUT,
                                     first_date=date(2027, 1, 10))
    for seed, p in enumerate(players, start=1):
        entrant_add(competition=cup, player=p, seed=seed)
    fixtures_generate(competition=cup)
    for semi in cup.fixtures.filter(round__number=1).order_by("position"):
        result_record(fixture=semi, home_goals=2, away_goals=0)
    final = cup.fixtures.get(label="Final")
    told = Notification.objects.filter(subject__startswith="Your next fixture")
    assert sorted(n.user.username for n in told) == ["ana", "rui"]  # seeds 1 and 2 won their semis
    assert str(final.home) in told.first().subject
    standings_recompute(competition_id=cup.pk, force=True)
    assert told.count() == 2
