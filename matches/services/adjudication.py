"""Adjudication of online matches (COMPETITIONS.md §4): replay, check, record, make official.

``online_adjudicate(match_id=...)`` replays the whole action log from the initial state with
the referee, checks every stored state hash, reads from the replay what happened (the goals of
regulation time, extra time and the shoot-out; a disqualification and the score at that
moment; the expelled buttons), records it with the platform's ``result_record`` and makes it
official with ``match_adjudicate`` (winner on in a knockout, standings enqueued) in one
transaction. Walkovers need no replay. Running it again finds the match adjudicated and
returns ``None``: a redelivered task leaves exactly one result.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from leagues.models import Fixture
from matches.models import Match, Result
from matches.official import ResultError
from matches.services import online
from matches.services.referee import referee_for
from matches.services.results import match_adjudicate, result_record
from simulation.actions import parse_action
from simulation.state import MatchState

logger = logging.getLogger(__name__)

ONLINE_KINDS = (Match.Kind.ONLINE, Match.Kind.PRACTICE)
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
    referee = referee_for(match.rule_set, online.params_of(match))
    state = MatchState.from_json(match.initial_state)
    out = Replay(state=state)
    for seq, action_json, stored_hash in match.actions.order_by("seq").values_list("seq", "action", "state_hash"):
        period = state.period
        outcome = referee.apply(state, parse_action(action_json, f"log[{seq}]"))
        state = outcome.state
        if state.state_hash() != stored_hash:
            raise ReplayMismatch(match.pk, seq)
        for event in outcome.events:
            if event.type == "goal" and event.side in online.SIDES:
                bucket = ("regulation" if period in REGULATION else
                          "extra_time" if period in EXTRA_TIME else "shootout")
                out.goals[bucket][event.side] += 1
            elif event.type == "disqualification" and event.side in online.SIDES and not out.disqualified:
                out.disqualified = event.side
        out.actions += 1
    if match.seq and out.actions != match.seq:
        raise ReplayMismatch(match.pk, out.actions + 1)
    out.state = state
    return out


def online_adjudicate(*, match_id: int, now: datetime | None = None) -> Result | None:
    """Makes the result of a finished (or walked-over) online match official. Returns ``None``
    when there is nothing to do (already adjudicated, not over, or not an online match).
    Raises ``ReplayMismatch`` when the log does not replay; logs and returns ``None`` when the
    result cannot be official (``ResultError``), leaving the match finished for an organiser."""
    now = now or timezone.now()
    with transaction.atomic():
        fixture_id = Match.objects.filter(pk=match_id).values_list("fixture_id", flat=True).first()
        if fixture_id is not None:  # lock order of result_record: fixture, then match
            list(Fixture.objects.select_for_update().filter(pk=fixture_id).order_by().values_list("pk"))
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.kind not in ONLINE_KINDS:
            return None
        if match.status not in (Match.Status.FINISHED, Match.Status.WALKOVER):
            return None
        if match.status == Match.Status.WALKOVER:
            recorded = {"home_goals": 0, "away_goals": 0, "outcome": "walkover", "outcome_side": match.walkover_side}
            discipline = {"home_discipline": 0, "away_discipline": 0}
        else:
            found = replay(match)
            if found.state.state_hash() != match.state_hash:
                raise ReplayMismatch(match.pk, match.seq)
            reg, et, so = found.goals["regulation"], found.goals["extra_time"], found.goals["shootout"]
            recorded = {
                "home_goals": reg["home"], "away_goals": reg["away"],
                "outcome": "disqualification" if found.disqualified else "played",
                "outcome_side": found.disqualified,
                "home_et_goals": et["home"], "away_et_goals": et["away"],
            }
            if not found.disqualified and (so["home"] or so["away"]) and so["home"] != so["away"]:
                recorded.update(home_shootout=so["home"], away_shootout=so["away"])
            expelled = found.state.expelled
            discipline = {"home_discipline": len(expelled.get("home", ())),
                          "away_discipline": len(expelled.get("away", ()))}
        if match.fixture_id is None:
            return _practice_result(match, recorded, discipline, now)
        try:
            with transaction.atomic():
                result_record(fixture=match.fixture, **recorded, **discipline, now=now, adjudicate=False)
                return match_adjudicate(match_id=match.pk, now=now)
        except ResultError as exc:
            logger.error("match %s: the online result cannot be official: %s (%s)", match.pk, exc.message, exc.field)
            return None


def _practice_result(match: Match, recorded: dict, discipline: dict, now: datetime) -> Result:
    home = recorded["home_goals"] + recorded.get("home_et_goals", 0)
    away = recorded["away_goals"] + recorded.get("away_et_goals", 0)
    result, _ = Result.objects.update_or_create(
        match=match,
        defaults={
            "outcome": recorded["outcome"], "outcome_side": recorded["outcome_side"],
            "table_home_goals": recorded["home_goals"], "table_away_goals": recorded["away_goals"],
            "home_goals": home, "away_goals": away,
            "winner_side": "home" if home > away else "away" if away > home else "",
            "adjudicated_at": now, **discipline,
        },
    )
    match.set_status(Match.Status.ADJUDICATED, now=now)
    return result


def adjudicate(*, match_id: int, now: datetime | None = None) -> Result | None:
    """What ``matches.tasks.adjudicate_match`` calls: the online replay for an online match,
    the platform's adjudication of a recorded table result otherwise."""
    kind = Match.objects.filter(pk=match_id).values_list("kind", flat=True).first()
    if kind in ONLINE_KINDS:
        return online_adjudicate(match_id=match_id, now=now)
    return match_adjudicate(match_id=match_id, now=now)
