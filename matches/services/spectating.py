"""Computer-against-computer matches that people watch live (driven apart from the
watchers).

``online.computer_step`` plays one move of a match the computer plays on both sides;
``play_fixtures --bots`` calls it in a loop with a virtual clock. A match watched in the
browser runs in wall time instead, one move every ``BOT_PACE_S`` seconds, while someone watches
it: a spectator's poll of the feed and a room of WebSocket watchers (``matches.watching``) push
``Match.watched_until`` forward (``mark_watched``: one UPDATE at most every few seconds per
match, never per watcher), and the clock's driver (``play_due``: beat's
``matches.tasks.play_computer_moves`` every second, or ``manage.py run_clock`` beside
``make run``) plays the due moves of the watched ones. No watcher's request runs the computer's
search. With nobody watching, the match waits (its turn starts afresh when someone comes back),
so the demo match lasts.

The deadlines of such a match are applied here, not by ``deadlines.tick_due``: the computer
never lets its time run out, and a match nobody watched must not play itself out by ticks.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from matches.models import Match, MatchAction
from matches.services import play
from matches.services.deadlines import apply_deadlines, extend_turn

BOT_PACE_S = 2.5  # seconds between two moves of a watched bot match: each flick can be seen
WATCHED_FOR = timedelta(seconds=15)  # how long one sign of a watcher counts
MARK_EVERY = timedelta(seconds=5)  # a mark younger than this is not written again


def mark_watched(match_id: int, *, now: datetime | None = None) -> bool:
    """Someone watches live match ``match_id``: ``watched_until`` moves to ``now`` plus
    ``WATCHED_FOR`` unless it was moved in the last ``MARK_EVERY`` (one UPDATE, nothing else;
    no signal, so no watcher is woken by it). Returns whether it was written."""
    now = now or timezone.now()
    return bool(Match.objects.filter(pk=match_id, status=Match.Status.LIVE).filter(
        Q(watched_until__isnull=True) | Q(watched_until__lt=now + WATCHED_FOR - MARK_EVERY),
    ).update(watched_until=now + WATCHED_FOR))


def bot_match_due(match: Match, now: datetime, pace_s: float = BOT_PACE_S) -> bool:
    """Whether a computer-against-computer ``match`` may make its next move at ``now``: live,
    watched, its last move at least ``pace_s`` old (read without the lock: ``bot_match_step``
    checks again under it)."""
    if not match.is_bot_match or match.status != Match.Status.LIVE:
        return False
    if match.watched_until is None or match.watched_until < now:
        return False
    last = match.actions.order_by("-seq").values_list("created_at", flat=True).first()
    since = last or match.kicked_off_at or now
    return now - since >= timedelta(seconds=pace_s)


def bot_match_step(*, match_id: int, now: datetime | None = None, pace_s: float = BOT_PACE_S) -> Match | None:
    """Plays one move of a live, watched computer-against-computer match when its last move is
    at least ``pace_s`` seconds old (passed deadlines first). Two drivers at once are serialised
    by the row lock, so they never make two moves. Returns the match (``None``: no such match)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or not bot_match_due(match, now, pace_s):
            return match
        if match.deadline_at is not None and match.deadline_at <= now:
            # The computer never lets its time run out: a passed deadline only means that
            # nobody was watching (the match waits for a viewer), so the turn starts afresh.
            extend_turn(match, play.current_state(match), now)
            match.save()
        apply_deadlines(match, now)
        if match.status == Match.Status.LIVE and not MatchAction.objects.filter(
                match=match, created_at__gt=now - timedelta(seconds=pace_s)).exists():
            play.play_computer(match, play.current_state(match), now, limit=1)
    return match


def play_due(*, now: datetime | None = None, pace_s: float = BOT_PACE_S) -> int:
    """Plays the due move of every live, watched computer-against-computer match (the clock's
    driver). Returns how many matches moved."""
    now = now or timezone.now()
    moved = 0
    for match in Match.objects.filter(status=Match.Status.LIVE, watched_until__gte=now).only(
            "pk", "seq", "computer_sides", "status", "watched_until", "kicked_off_at"):
        if bot_match_due(match, now, pace_s):
            stepped = bot_match_step(match_id=match.pk, now=now, pace_s=pace_s)
            moved += stepped is not None and stepped.seq != match.seq
    return moved
