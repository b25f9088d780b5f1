"""Sign-up for a competition (issue 19): registration, places, the waiting list, decisions."""
from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone

from leagues.models import ClubMembership, Competition, Entrant, Registration, SignUp
from leagues.notifications.models import Kind, Notification
from leagues.services import registration as reg
from leagues.services.fixtures import fixtures_generate
from leagues.services.tokens import token_create
from tests.conftest import _require_services
from tests.leagues.factories import ClubFactory, PlayerFactory, UserFactory

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def player(name: str, *, licensed: bool = True, club=None):
    user = UserFactory(username=name, email=f"{name}@example.org")
    p = PlayerFactory(first_name=name.title(), last_name="Player", user=user)
    if licensed:
        ClubMembership.objects.create(player=p, club=club or ClubFactory(), start_date=date(2020, 1, 1))
    return p


def open_cup(*, capacity=2, waiting_list=True, licence_required=True, slug="open-cup") -> Competition:
    cup = Competition.objects.create(name="Open Cup", slug=slug, format=Competition.Format.KNOCKOUT,
                                     first_date=date(2027, 1, 10))
    reg.registration_open(competition=cup, opens_at=NOW - timedelta(days=1), closes_at=NOW + timedelta(days=10),
                          capacity=capacity, waiting_list=waiting_list, licence_required=licence_required, now=NOW)
    return cup


@pytest.mark.django_db
def test_places_then_the_waiting_list_and_a_refusal_moves_the_first_waiting_up():
    cup = open_cup(capacity=2)
    ana, rui, lia, tom = (player(n) for n in ("ana", "rui", "lia", "tom"))
    a = reg.sign_up(competition=cup, player=ana, now=NOW)
    r = reg.sign_up(competition=cup, player=rui, now=NOW + timedelta(minutes=1))
    w1 = reg.sign_up(competition=cup, player=lia, now=NOW + timedelta(minutes=2))
    w2 = reg.sign_up(competition=cup, player=tom, now=NOW + timedelta(minutes=3))
    assert [s.status for s in (a, r, w1, w2)] == ["pending", "pending", "waiting", "waiting"]
    with pytest.raises(reg.SignUpRefused) as twice:
        reg.sign_up(competition=cup, player=ana, now=NOW)
    assert twice.value.code == "signed_up"

    confirmed = reg.sign_up_confirm(sign_up=a, now=NOW)
    assert confirmed.status == "confirmed" and confirmed.entrant.player == ana
    assert Notification.objects.get(user=ana.user).kind == Kind.SIGN_UP_CONFIRMED

    with pytest.raises(reg.RegistrationError) as no_reason:
        reg.sign_up_refuse(sign_up=r, reason=" ", now=NOW)
    assert no_reason.value.field == "reason"
    reg.sign_up_refuse(sign_up=r, reason="Not licensed for this cup", now=NOW)
    assert SignUp.objects.get(pk=w1.pk).status == "pending"  # the first on the list moved up
    assert SignUp.objects.get(pk=w2.pk).status == "waiting"
    refused = Notification.objects.get(user=rui.user)
    assert refused.kind == Kind.SIGN_UP_REFUSED and "Not licensed for this cup" in refused.body
    assert Notification.objects.get(user=lia.user).kind == Kind.SIGN_UP_MOVED_UP

    # the confirmed player withdraws before the deadline: the entrant goes, the next moves up
    reg.sign_up_withdraw(sign_up=confirmed, now=NOW + timedelta(days=1))
    assert not Entrant.objects.filter(competition=cup, player=ana).exists()
    assert SignUp.objects.get(pk=w2.pk).status == "pending"
    assert reg.places_held(cup) == 2


@pytest.mark.django_db
def test_refusals_of_the_state_licence_dates_full_deadline_and_the_draw():
    cup = open_cup(capacity=2, waiting_list=False)
    unlicensed = player("nolic", licensed=False)
    with pytest.raises(reg.SignUpRefused) as licence:
        reg.sign_up(competition=cup, player=unlicensed, now=NOW)
    assert licence.value.code == "licence"
    # a membership that ended before the competition's first date does not count
    old = player("old", licensed=False)
    ClubMembership.objects.create(player=old, club=ClubFactory(), start_date=date(2020, 1, 1),
                                  end_date=date(2026, 12, 31))
    with pytest.raises(reg.SignUpRefused):
        reg.sign_up(competition=cup, player=old, now=NOW)
    with pytest.raises(reg.SignUpRefused) as early:
        reg.sign_up(competition=cup, player=player("early"), now=NOW - timedelta(days=2))
    assert early.value.code == "registration_not_open" and "opens_at" in early.value.to_json()
    a = reg.sign_up(competition=cup, player=player("a1"), now=NOW)
    reg.sign_up(competition=cup, player=player("a2"), now=NOW)
    with pytest.raises(reg.SignUpRefused) as full:
        reg.sign_up(competition=cup, player=player("a3"), now=NOW)
    assert full.value.code == "full"
    with pytest.raises(reg.SignUpRefused) as late:
        reg.sign_up_withdraw(sign_up=a, now=NOW + timedelta(days=11))
    assert late.value.code == "deadline"
    with pytest.raises(reg.RegistrationError) as smaller:
        reg.registration_open(competition=cup, opens_at=NOW, closes_at=NOW + timedelta(days=1), capacity=1)
    assert smaller.value.field == "capacity"
    for entry in SignUp.objects.filter(competition=cup):
        reg.sign_up_confirm(sign_up=entry, now=NOW)
    fixtures_generate(competition=cup)
    with pytest.raises(reg.SignUpRefused) as drawn:
        reg.sign_up_withdraw(sign_up=SignUp.objects.get(pk=a.pk), now=NOW)
    assert drawn.value.code == "drawn"
    no_licence_cup = open_cup(slug="friendly", licence_required=False)
    assert reg.sign_up(competition=no_licence_cup, player=unlicensed, now=NOW).status == "pending"


@pytest.mark.django_db
def test_the_pages_sign_up_confirm_and_refuse(settings):
    cup = Competition.objects.create(name="Open Cup", slug="open-cup", first_date=date(2027, 1, 10))
    organiser = UserFactory(username="org")
    cup.organisers.add(organiser)
    ana = player("ana")
    boss = Client()
    boss.force_login(organiser)
    now = timezone.now()
    response = boss.post(f"/manage/{cup.slug}/registration/", {
        "opens_at": (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
        "closes_at": (now + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"), "capacity": 4,
        "licence_required": "on", "waiting_list": "on"})
    assert response.status_code == 302 and Registration.objects.filter(competition=cup).exists()
    visitor = Client()
    assert "Sign in to sign up" in visitor.get(f"/competitions/{cup.slug}/").content.decode()
    me = Client()
    me.force_login(ana.user)
    assert "Sign up" in me.get(f"/competitions/{cup.slug}/").content.decode()
    me.post(f"/competitions/{cup.slug}/sign-up/")
    entry = SignUp.objects.get(player=ana)
    assert entry.status == "pending"
    assert "Waiting for the organisers" in me.get(f"/competitions/{cup.slug}/").content.decode()
    manage = boss.get(f"/manage/{cup.slug}/").content.decode()
    assert f'id="sign-up-{entry.pk}"' in manage
    boss.post(f"/manage/{cup.slug}/sign-ups/{entry.pk}/decide/", {"decision": "confirm"})
    assert SignUp.objects.get(pk=entry.pk).status == "confirmed"
    assert Entrant.objects.filter(competition=cup, player=ana).exists()
    # a stranger cannot decide
    stranger = Client()
    stranger.force_login(UserFactory(username="stranger"))
    assert stranger.post(f"/manage/{cup.slug}/sign-ups/{entry.pk}/decide/", {"decision": "refuse"}).status_code == 403


@pytest.mark.django_db
def test_the_api_names_the_field_and_answers_409_with_error_and_detail():
    cup = Competition.objects.create(name="Open Cup", slug="open-cup", first_date=date(2027, 1, 10))
    organiser = UserFactory(username="org")
    cup.organisers.add(organiser)
    boss = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=organiser)[1]}")
    now = timezone.now()
    bad = boss.put(f"/api/competitions/{cup.slug}/registration/", {
        "opens_at": now.isoformat(), "closes_at": (now - timedelta(days=1)).isoformat(), "capacity": 8},
        content_type="application/json")
    assert bad.status_code == 400 and "closes_at" in bad.json()
    good = boss.put(f"/api/competitions/{cup.slug}/registration/", {
        "opens_at": (now - timedelta(hours=1)).isoformat(), "closes_at": (now + timedelta(days=1)).isoformat(),
        "capacity": 2, "waiting_list": False}, content_type="application/json")
    assert good.status_code == 200 and good.json()["places_held"] == 0
    stranger = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=UserFactory(username='x'))[1]}")
    assert stranger.put(f"/api/competitions/{cup.slug}/registration/", {}, content_type="application/json"
                        ).status_code == 403
    assert stranger.post("/api/sign-ups/", {"competition": cup.slug}, content_type="application/json"
                         ).json() == {"player": ["your account is not a registered player's"]}
    ids = []
    for name in ("p1", "p2", "p3"):
        p = player(name)
        client = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=p.user)[1]}")
        response = client.post("/api/sign-ups/", {"competition": cup.slug}, content_type="application/json")
        ids.append(response)
    assert [r.status_code for r in ids] == [201, 201, 409]
    assert ids[2].json()["error"] == "full" and ids[2].json()["detail"]
    first = ids[0].json()["id"]
    refuse = boss.post(f"/api/sign-ups/{first}/refuse/", {}, content_type="application/json")
    assert refuse.status_code == 400 and "reason" in refuse.json()
    assert boss.post(f"/api/sign-ups/{first}/confirm/").json()["status"] == "confirmed"
    assert boss.post(f"/api/sign-ups/{first}/confirm/").status_code == 409
    listed = Client().get(f"/api/sign-ups/?competition={cup.slug}").json()
    assert [row["status"] for row in listed["results"]] == ["confirmed", "pending"]


def _postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


@pytest.mark.django_db(transaction=True)
def test_two_players_taking_the_last_place_at_once_one_gets_it_the_other_is_refused_cleanly():
    """On PostgreSQL, two sign-ups for the last place at the same moment, each in its own
    connection: one holds the place, the other is refused ("full"); never oversubscribed."""
    if not _postgres():
        if _require_services():
            pytest.fail("REQUIRE_SERVICES=1 but DATABASE_URL is not PostgreSQL")
        pytest.skip("a race needs PostgreSQL (SQLite serialises every write)")
    now = timezone.now()
    cup = Competition.objects.create(name="Race Cup", slug="race-cup", first_date=date(2027, 1, 10))
    reg.registration_open(competition=cup, opens_at=now - timedelta(hours=1), closes_at=now + timedelta(days=1),
                          capacity=2, waiting_list=False)
    reg.sign_up(competition=cup, player=player("first"))
    racers = [player(f"racer{i}") for i in range(2)]
    for _attempt in range(5):  # a few rounds, a fresh last place each time
        barrier = threading.Barrier(len(racers))
        outcomes: list = []

        def race(p, barrier=barrier, outcomes=outcomes):
            try:
                barrier.wait(5)
                outcomes.append(reg.sign_up(competition=cup, player=p).status)
            except reg.SignUpRefused as exc:
                outcomes.append(exc.code)
            finally:
                connection.close()

        threads = [threading.Thread(target=race, args=(p,)) for p in racers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(outcomes) == ["full", "pending"], outcomes
        assert reg.places_held(cup) == 2
        taken = SignUp.objects.get(competition=cup, player__in=racers, status="pending")
        reg.sign_up_withdraw(sign_up=taken)  # the place frees for the next round
