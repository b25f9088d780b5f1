"""Benchmarks of online play (issue 7 targets; ``make bench`` territory, not timed tests).

``python -m tests.bench.online [--latency N] [--whole-match] [--seconds-per-action 5] [--json]``
against the configured database (an SQLite file by default); it creates its own competition and
users (slug ``bench-online-*``) and deletes them afterwards. ``--json`` prints one JSON object
as the last line, ``{"latency": {...}, "whole_match": {...}}`` (a part not run is absent).

- latency: from an accepted action (the POST) to its availability to the other player (their
  GET shows the new ``seq``), through the Django test client in process, without the time
  spent in the referee (the flick's simulation): p50/p95/max in ms. Target p95 <= 100 ms.
- whole match: a bot-against-bot league match of 2 x 25 min at 5 s of match time per action,
  played through the online services with the real referee, then adjudicated (replay of the
  whole log, hash checks, official result, standings). Target <= 10 s.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _league(slug: str, *, half_minutes: int = 25):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from leagues.models import Competition, Entrant, Player, Venue
    from leagues.services.fixtures import fixtures_generate

    competition = Competition.objects.create(name=slug, slug=slug, half_minutes=half_minutes, venue=Venue.ONLINE,
                                             first_date=timezone.localdate())
    for i in (1, 2):
        user = get_user_model().objects.create_user(username=f"{slug}-p{i}")
        player = Player.objects.create(first_name=f"Bench{i}", last_name="Player", licence_number=f"{slug}-{i}", user=user)
        Entrant.objects.create(competition=competition, name=f"{slug} E{i}", seed=i, player=player)
    fixtures_generate(competition=competition)
    competition.fixtures.update(kickoff_at=timezone.now())  # check-in open now
    return competition


def _cleanup(slug: str) -> None:
    from django.contrib.auth import get_user_model

    from leagues.models import Competition, Fixture, Player
    from matches.models import Match

    match_ids = list(Fixture.objects.filter(competition__slug=slug, match__isnull=False).values_list("match_id", flat=True))
    Fixture.objects.filter(competition__slug=slug).delete()
    Match.objects.filter(pk__in=match_ids).delete()
    Competition.objects.filter(slug=slug).delete()
    Player.objects.filter(licence_number__startswith=slug).delete()
    get_user_model().objects.filter(username__startswith=slug).delete()


class _TimedReferee:
    """Wraps the referees made for matches to add up the time spent in ``apply``."""

    spent = 0.0

    @classmethod
    def install(cls):
        from matches.services import referee as referee_module

        original = referee_module.referee_for

        def timed(rule_set, params):
            inner = original(rule_set, params)
            if not getattr(inner, "_timed", False):
                apply = inner.apply

                def timed_apply(state, action):
                    start = time.perf_counter()
                    try:
                        return apply(state, action)
                    finally:
                        cls.spent += time.perf_counter() - start

                inner.apply = timed_apply
                inner._timed = True
            return inner

        referee_module.referee_for = timed
        from matches.services import online, play

        online.referee_for = timed
        play.referee_for = timed


def latency(n: int) -> dict:
    """p50/p95/max (ms) from POST to the other player's GET showing it, minus referee time."""
    from django.test import Client

    from leagues.services.online import fixture_check_in
    from matches.services import online, play

    slug = f"bench-online-{uuid.uuid4().hex[:6]}"
    competition = _league(slug)
    try:
        fixture = competition.fixtures.get()
        home, away = fixture.home.player.user, fixture.away.player.user
        fixture_check_in(fixture=fixture, user=home)
        match = fixture_check_in(fixture=fixture, user=away)
        clients = {"home": Client(), "away": Client()}
        clients["home"].force_login(home)
        clients["away"].force_login(away)
        from matches.services.computer import candidate_actions

        samples = []
        for _ in range(n):
            match.refresh_from_db()
            if match.status != "live":
                break
            state = play.current_state(match)
            side, other = state.to_move, "away" if state.to_move == "home" else "home"
            actions = candidate_actions(state, side, match.rule_set, play.params_of(match),
                                        referee=online.referee_for(match.rule_set, play.params_of(match)))
            before_ref = _TimedReferee.spent
            start = time.perf_counter()
            for data in actions:
                response = clients[side].post(f"/api/matches/{match.pk}/actions/",
                                              {"seq": match.seq + 1, "action": data}, content_type="application/json")
                if response.status_code == 201:
                    break
            if response.status_code != 201:
                continue
            seq = response.json()["seq"]
            seen = clients[other].get(f"/api/matches/{match.pk}/").json()
            elapsed = time.perf_counter() - start - (_TimedReferee.spent - before_ref)
            assert seen["seq"] >= seq
            samples.append(elapsed * 1000)
        samples.sort()
        return {"n": len(samples), "p50_ms": round(statistics.median(samples), 1),
                "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 1), "max_ms": round(samples[-1], 1)}
    finally:
        _cleanup(slug)


def whole_match(seconds_per_action: float) -> dict:
    from leagues.services.online import fixture_match_setup
    from leagues.services.results import result_from_match
    from matches.models import Match
    from matches.services.adjudication import match_adjudicate

    slug = f"bench-online-{uuid.uuid4().hex[:6]}"
    competition = _league(slug)
    try:
        fixture = competition.fixtures.get()
        start = time.perf_counter()
        before = _TimedReferee.spent
        # play without adjudicating, then time the adjudication on its own
        from django.utils import timezone

        from matches import tasks
        from matches.services import computer, online, play

        bot_time = [0.0]
        original_candidates = computer.candidate_actions

        def timed_candidates(*a, **kw):
            t0 = time.perf_counter()
            try:
                return original_candidates(*a, **kw)
            finally:
                bot_time[0] += time.perf_counter() - t0

        computer.candidate_actions = timed_candidates
        play.candidate_actions = timed_candidates
        # adjudicated below, timed on its own
        tasks.adjudicate_match.enqueue_on_commit = lambda **kw: None
        now = timezone.now()
        match = fixture_match_setup(fixture=fixture, computer_sides=("home", "away"), now=now)
        from datetime import timedelta

        from leagues.management.commands.play_fixtures import BATCH

        step = timedelta(seconds=seconds_per_action)
        for _ in range(0, 20000, BATCH):
            match = online.computer_step(match_id=match.pk, now=now + step, steps=BATCH, step=step)
            now += step * BATCH
            if match.status != Match.Status.LIVE:
                break
        played = time.perf_counter() - start
        referee_play = _TimedReferee.spent - before
        del tasks.adjudicate_match.enqueue_on_commit
        computer.candidate_actions = original_candidates
        play.candidate_actions = original_candidates
        before = _TimedReferee.spent
        start = time.perf_counter()
        match_adjudicate(match_id=match.pk)
        result = result_from_match(match_id=match.pk)
        adjudicated = time.perf_counter() - start
        return {"actions": match.seq, "play_s": round(played, 2), "play_referee_s": round(referee_play, 2),
                "play_bot_s": round(bot_time[0], 2),
                "adjudication_s": round(adjudicated, 2), "adjudication_replay_s": round(_TimedReferee.spent - before, 2),
                "total_s": round(played + adjudicated, 2),
                "result": str(result)}
    finally:
        _cleanup(slug)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=int, default=200, help="actions to time (0: skip)")
    parser.add_argument("--whole-match", action="store_true")
    parser.add_argument("--seconds-per-action", type=float, default=5.0)
    parser.add_argument("--json", action="store_true", help="print one JSON object (the last line)")
    args = parser.parse_args(argv)
    _setup()
    _TimedReferee.install()
    figures = {}
    if args.latency:
        figures["latency"] = latency(args.latency)
        if not args.json:
            print("latency (accepted action -> other player's read, without the referee):", figures["latency"])
    if args.whole_match:
        figures["whole_match"] = whole_match(args.seconds_per_action)
        if not args.json:
            print("whole bot match 2 x 25 min:", figures["whole_match"])
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
