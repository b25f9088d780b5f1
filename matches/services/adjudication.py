"""Adjudication of a match's log: replay it, check it, say what it gives.

``match_adjudicate(match_id=...)`` replays the whole action log from the initial state with the
referee, checks every stored state hash, and reads from the replay what happened: the goals of
regulation time, extra time and the shoot-out; a disqualification and the score at that moment;
the expelled buttons (discipline). It stores that as the match's ``log_result`` and marks the
match adjudicated, in one transaction. A walkover (a side, or both, not checked in) needs no
replay. Running it again finds the match adjudicated and returns ``None``.

The match's owner makes the official result of it: a practice match here (the score on the
table); a match played for something else (a competition's fixture) by the task named in
``settings.MATCHES_ON_ADJUDICATED``, sent after commit with ``match_id``.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from matches.models import Match
from matches.services import play
from matches.services.referee import referee_for
from simulation.actions import parse_action
from simulation.state import MatchState

logger = logging.getLogger(__name__)

REGULATION = ("first_half", "second_half")
EXTRA_TIME = ("extra_time_first", "extra_time_second")


class ReplayMismatch(RuntimeError):
    """The replay of the log does not reproduce a stored state hash: a bug, never a result."""

    def __init__(self, match_id: int, seq: int):
        super().__init__(f"match {match_id}: the replay differs from the log at action {seq}")
        self.match_id = match_id
        self.seq = seq


@dataclass
class Replay:
    """What the replay of a match's log found."""

    state: MatchState
    actions: int = 0
    goals: dict[str, dict[str, int]] = field(default_factory=lambda: {
        "regulation": {"home": 0, "away": 0}, "extra_time": {"home": 0, "away": 0},
        "shootout": {"home": 0, "away": 0}})
    disqualified: str = ""


def replay(match: Match) -> Replay:
    """Folds the referee over the log from ``match.initial_state``; raises ``ReplayMismatch``
    at the first action whose resulting state hash differs from the stored one."""
    referee = referee_for(match.rule_set, play.params_of(match))
    state = MatchState.from_json(match.initial_state)
    out = Replay(state=state)
    for seq, action_json, stored_hash in match.actions.order_by("seq").values_list("seq", "action", "state_hash"):
        period = state.period
        outcome = referee.apply(state, parse_action(action_json, f"log[{seq}]"))
        state = outcome.state
        if state.state_hash() != stored_hash:
            raise ReplayMismatch(match.pk, seq)
        for event in outcome.events:
            if event.type == "goal" and event.side in play.SIDES:
                bucket = ("regulation" if period in REGULATION else
                          "extra_time" if period in EXTRA_TIME else "shootout")
                out.goals[bucket][event.side] += 1
            elif event.type == "disqualification" and event.side in play.SIDES and not out.disqualified:
                out.disqualified = event.side
        out.actions += 1
    if match.seq and out.actions != match.seq:
        raise ReplayMismatch(match.pk, out.actions + 1)
    out.state = state
    return out


def log_result(match: Match) -> dict[str, Any]:
    """What the log of a finished (or walked-over) ``match`` gives: ``{"outcome",
    "outcome_side", "home_goals", "away_goals", "home_et_goals", "away_et_goals",
    "home_shootout", "away_shootout", "home_discipline", "away_discipline"}`` (goals of
    regulation time; a disqualification's score is the score when it happened). Raises
    ``ReplayMismatch`` when the log does not replay."""
    result: dict[str, Any] = {
        "outcome": "played", "outcome_side": "", "home_goals": 0, "away_goals": 0,
        "home_et_goals": 0, "away_et_goals": 0, "home_shootout": None, "away_shootout": None,
        "home_discipline": 0, "away_discipline": 0,
    }
    if match.status == Match.Status.WALKOVER:
        result.update(outcome="walkover", outcome_side=match.walkover_side)
        return result
    found = replay(match)
    if found.state.state_hash() != match.state_hash:
        raise ReplayMismatch(match.pk, match.seq)
    reg, et, so = found.goals["regulation"], found.goals["extra_time"], found.goals["shootout"]
    result.update(
        home_goals=reg["home"], away_goals=reg["away"], home_et_goals=et["home"], away_et_goals=et["away"],
        outcome="disqualification" if found.disqualified else "played", outcome_side=found.disqualified,
    )
    if not found.disqualified and (so["home"] or so["away"]) and so["home"] != so["away"]:
        result.update(home_shootout=so["home"], away_shootout=so["away"])
    expelled = found.state.expelled
    result.update(home_discipline=len(expelled.get("home", ())), away_discipline=len(expelled.get("away", ())))
    return result


def match_adjudicate(*, match_id: int, now: datetime | None = None) -> dict[str, Any] | None:
    """Replays and checks the log of a finished (or walked-over) match and stores what it gives
    (``log_result``); returns it, or ``None`` when there is nothing to do (already adjudicated,
    annulled, not over). Raises ``ReplayMismatch`` (a bug, never a result) and leaves the match
    finished. After commit the owner's task (``MATCHES_ON_ADJUDICATED``) makes it official."""
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status not in Match.AWAITING_ADJUDICATION:
            return None
        result = log_result(match)
        match.log_result = result
        match.adjudicated_at = now
        match.set_status(Match.Status.ADJUDICATED, now=now, save=False)
        if match.kind == Match.Kind.PRACTICE:
            match.official = practice_official(result)
        match.save()
        if match.kind == Match.Kind.ONLINE and settings.MATCHES_ON_ADJUDICATED:
            current_app.tasks[settings.MATCHES_ON_ADJUDICATED].enqueue_on_commit(match_id=match.pk)
    return result


def practice_official(result: dict[str, Any]) -> dict[str, Any]:
    """A practice match's result for the board: the score on the table, extra time included."""
    home = result["home_goals"] + result["home_et_goals"]
    away = result["away_goals"] + result["away_et_goals"]
    text = f"{home}-{away}"
    if result["home_shootout"] is not None:
        text += f" ({result['home_shootout']}-{result['away_shootout']})"
    return {"home": home, "away": away, "text": text}


def pending(*, limit: int = 500) -> list[int]:
    """Ids of the matches whose log waits to be adjudicated (what the sweeper re-sends)."""
    return list(Match.objects.filter(status__in=Match.AWAITING_ADJUDICATION)
                .order_by("status_changed_at").values_list("pk", flat=True)[:limit])
