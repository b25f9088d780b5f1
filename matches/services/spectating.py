"""Computer-against-computer matches that people watch live (issue 8).

``online.computer_step`` plays one move of a match the computer plays on both sides;
``play_fixtures --bots`` calls it in a loop with a virtual clock. A match watched in the
browser runs in wall time instead, one move every ``BOT_PACE_S`` seconds, and nothing needs a
worker or beat for it: every poll of the board (``matches.views.feed``) calls
``bot_match_step``, which takes the match row lock, and plays a move only when the last one
is at least ``BOT_PACE_S`` old. With nobody watching, the match waits (the deadlines' outage
rule gives a fresh turn when someone comes back), so the demo match lasts.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from matches.models import Match, MatchAction
from matches.services import play
from matches.services.deadlines import apply_deadlines, extend_turn

BOT_PACE_S = 2.5  # seconds between two moves of a watched bot match: each flick can be seen


def is_bot_match(match: Match) -> bool:
    return len(match.computer_sides) >= 2


def bot_match_due(match: Match, now: datetime, pace_s: float = BOT_PACE_S) -> bool:
    """Whether a computer-against-computer ``match`` may make its next move at ``now``
    (read without the lock: ``bot_match_step`` checks again under it)."""
    if not is_bot_match(match) or match.status != Match.Status.LIVE:
        return False
    last = match.actions.order_by("-seq").values_list("created_at", flat=True).first()
    since = last or match.kicked_off_at or now
    return now - since >= timedelta(seconds=pace_s)


def bot_match_step(*, match_id: int, now: datetime | None = None, pace_s: float = BOT_PACE_S) -> Match | None:
    """Plays one move of a live computer-against-computer match when its last move is at least
    ``pace_s`` seconds old (passed deadlines first). Concurrent polls are serialised by the row
    lock, so two watchers never make two moves. Returns the match (``None``: no such match)."""
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
