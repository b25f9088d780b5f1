"""Reads for the board, the fixture page and the live lists.

- ``log_rows(match, after=N)``: the action log after row ``N`` as the board reads it (the same
  shape as ``GET /api/matches/{id}/actions/``);
- ``board_feed(match, after=N, user=...)``: what one poll of the board gets: the match (state,
  clock anchor, deadline, server time, the official result once there is one, the buttons that
  may not play this turn) and the rows it has not seen, each call with its sentence
  (``matches.sentences``);
- ``may_not_play(match, names)``: the buttons the side to move may not flick, and why;
- ``replay_log(match)``: the whole log with the state after every row, from a fold of the
  referee over the log (``simulation``), cached by the match's last hash;
- ``live_matches(ids=..., user=...)``: the live online matches, for the competition and play
  pages;
- ``goals(match)``: the goals of the match's log, with their time and their sentence, for the
  fixture's page;
- ``club_colours(slug)``: a club's two colours for its buttons (clubs have no colours on record:
  a stable pick from a palette by the club's slug).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from matches import sentences
from matches.models import Match, MatchAction
from matches.services import online, play
from matches.services.referee import referee_for
from matches.services.spectating import MARK_EVERY, WATCHED_FOR
from simulation.actions import parse_action
from simulation.state import MatchState

MAX_ROWS = 500
# over: nothing more is played on the table (an annulled match included: an organiser stopped it)
OVER_STATUSES = (Match.Status.FINISHED, Match.Status.ADJUDICATED, Match.Status.ABANDONED, Match.Status.CANCELLED)

# (fill, rim) pairs; home and away never get the same one.
PALETTE = [
    ("#d7263d", "#fbe9eb"), ("#1b5fbf", "#e6eefb"), ("#f2b705", "#3a2d00"), ("#1e8a4c", "#e7f6ed"),
    ("#6a3fb5", "#efe9fa"), ("#f26b1d", "#fff1e8"), ("#111111", "#f5f5f5"), ("#f5f5f5", "#222222"),
    ("#0097a7", "#e0f7fa"), ("#8d1b3d", "#fbe9ef"),
]
DEFAULT_COLOURS = {"home": PALETTE[0], "away": PALETTE[1]}


def after_of(text: str | None) -> int | None:
    """The log row a feed's ``after`` names: ASCII digits below 2**31 (a row's number, 0 to
    2**31 - 1; a number past the last row is valid and finds nothing new); ``None`` for anything
    else ("-1", 30 digits, "1e3", "٣"). Missing: 0. The socket closes with 4400 on ``None``,
    the HTTP feed answers 400: one rule for both."""
    if text is None:
        return 0
    if not (text.isascii() and text.isdigit() and len(text) <= 10 and int(text) < 2**31):
        return None
    return int(text)


#: a player's first matches show the hints of "How to play" unless the player switched them off
HINTS_FIRST_MATCHES = 5
PLAYED = (Match.Status.FINISHED, Match.Status.ADJUDICATED)


def matches_played_before(user, match: Match) -> int:
    """How many matches (any kind) ``user`` played to full time before ``match``, counted up to
    ``HINTS_FIRST_MATCHES`` (one query)."""
    if user is None or not user.is_authenticated:
        return 0
    played = (Match.objects.filter(Q(home_user=user) | Q(away_user=user), status__in=PLAYED)
              .exclude(pk=match.pk).values("pk")[:HINTS_FIRST_MATCHES])
    return len(played)


def row_json(row: MatchAction, *, frames: bool = True) -> dict[str, Any]:
    return {"seq": row.seq, "side": row.side or None, "action": row.action, "at": row.created_at.isoformat(),
            "state_hash": row.state_hash, "events": row.events, "frames": row.frames if frames else []}


def log_rows(match: Match, *, after: int = 0, limit: int = MAX_ROWS, frames: bool = True,
             names: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The log rows after ``after`` (at most ``limit``, 500), each flick's frames included
    unless ``frames`` is false (the board's history of calls needs none), each move and call
    with its sentence (``sentences.with_texts``) spoken with ``names`` (default: the match's)."""
    rows = MatchAction.objects.filter(match=match, seq__gt=after).order_by("seq")
    if not frames:
        rows = rows.defer("frames")
    names = names if names is not None else side_names(match)
    return [sentences.with_texts(row_json(r, frames=frames), names) for r in rows[: max(0, min(limit, MAX_ROWS))]]


def goals(match: Match) -> list[dict[str, Any]]:
    """The goals of ``match``'s log in order: ``[{"seq", "clock" ("mm:ss" of match time, the
    board's), "side", "piece" (the scorer button's id), "text" (the referee's sentence, with the
    players' names)}]``; a shoot-out's kicks that scored are goals too."""
    names = side_names(match)
    out = []
    for row in MatchAction.objects.filter(match=match).defer("frames").order_by("seq"):
        if not any(e.get("type") == "goal" for e in row.events or ()):
            continue
        t = row.action.get("t")
        clock = f"{int(t) // 60:02d}:{int(t) % 60:02d}" if isinstance(t, int | float) else ""
        for event in sentences.with_texts(row_json(row, frames=False), names)["events"]:
            if event.get("type") == "goal":
                out.append({"seq": row.seq, "clock": clock, "side": event.get("side"),
                            "piece": event.get("piece"), "text": event["text"]})
    return out


def match_header(match: Match, *, user=None, now: datetime | None = None,
                 names: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """``online.match_public`` plus what the board needs to run its clocks (the clock anchor,
    the period's length (s), the server's time), the official result once the match's owner
    has made it (``official``, its ``text`` the sentence) and ``may_not_play``: for the side to move,
    ``{piece: {"text", "rule", "rule_url"}}`` of the buttons the rules keep out of this turn."""
    now = now or timezone.now()
    names = names if names is not None else side_names(match)
    data = online.match_public(match, user=user)
    params = play.params_of(match)
    period = (match.state or {}).get("period", "first_half")
    data.update({
        "server_now": now.isoformat(),
        "clock_anchor_s": match.clock_anchor_s,
        "clock_anchor_at": match.clock_anchor_at.isoformat() if match.clock_anchor_at else None,
        "clock_running": match.status == Match.Status.LIVE and (match.state or {}).get("phase") not in (
            "half_time", "full_time"),
        "period_end_s": play.period_end_s(period, params),
        "finished": match.status in OVER_STATUSES or match.status == Match.Status.WALKOVER,
        "may_not_play": may_not_play(match, names),
    })
    if match.official is not None:
        data["official"] = {**match.official, "text": sentences.official_sentence(match.official, names)}
    return data


def may_not_play(match: Match, names: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The buttons of the side to move that may not play this turn, and why, as the board shows
    them (``sentences.may_not_play``): the referee's ``may_not_play`` of the live state."""
    if match.status != Match.Status.LIVE or not match.state:
        return {}
    referee = referee_for(match.rule_set, play.params_of(match))
    return sentences.may_not_play(referee.may_not_play(MatchState.from_json(match.state)), names)


def board_feed(match: Match, *, after: int, user=None, now: datetime | None = None,
               frames: bool = True) -> dict[str, Any]:
    """The match and the log rows after ``after`` (a reconnecting board catches up from here)."""
    names = side_names(match)
    rows = log_rows(match, after=after, frames=frames, names=names) if match.seq > after else []
    return {"match": match_header(match, user=user, now=now, names=names), "actions": rows}


def replay_log(match: Match) -> dict[str, Any]:
    """The whole log with the state after each row: ``{"initial_state", "actions": [row + state]}``.

    The states come from folding the match's referee over its log (what adjudication does);
    the result is cached under the match's id, length, last hash and language, so a replay is
    computed once. An empty log (a walkover) gives no actions."""
    key = f"board:replay:{match.pk}:{match.seq}:{match.state_hash}:{get_language()}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    names = side_names(match)
    rows = [sentences.with_texts(row_json(r), names) for r in MatchAction.objects.filter(match=match).order_by("seq")]
    states: list[Any] = []
    if match.initial_state is not None:
        referee = referee_for(match.rule_set, play.params_of(match))
        state = MatchState.from_json(match.initial_state)
        for row in rows:
            state = referee.apply(state, parse_action(row["action"], f"log[{row['seq']}]")).state
            states.append(state.to_json())
    for row, state in zip(rows, states, strict=False):
        row["state"] = state
    data = {"initial_state": match.initial_state, "actions": rows}
    cache.set(key, data, 24 * 3600)
    return data


def live_matches(*, ids=None, user=None) -> QuerySet[Match]:
    """Live online matches (newest first), optionally among ``ids`` (a list or a subquery of
    match ids), or played by ``user``."""
    qs = Match.objects.filter(status=Match.Status.LIVE).order_by("-kicked_off_at", "-pk")
    if ids is not None:
        qs = qs.filter(pk__in=ids)
    if user is not None:
        qs = qs.filter(Q(home_user=user) | Q(away_user=user))
    return qs


def recent_matches_of(user, *, limit: int = 10) -> list[Match]:
    """``user``'s online and practice matches, newest first."""
    return list(Match.objects.filter(Q(home_user=user) | Q(away_user=user)).order_by("-created_at")[:limit])


def club_colours(slug: str) -> tuple[str, str]:
    if not slug:
        return PALETTE[0]
    digest = hashlib.sha256(slug.encode()).digest()
    return PALETTE[digest[0] % len(PALETTE)]


def side_names(match: Match) -> dict[str, dict[str, Any]]:
    """For each side: its name, short name, club and colours (``fill``, ``rim``), from what the
    match was set up with (``Match.sides``) or, failing that, its users."""
    out: dict[str, dict[str, Any]] = {}
    for side in play.SIDES:
        given = (match.sides or {}).get(side) or {}
        user = getattr(match, f"{side}_user")
        name = given.get("name") or ((user.get_full_name() or user.get_username()) if user is not None else "")
        short = given.get("short") or ((user.last_name or user.get_username()) if user is not None else "")
        if side in match.computer_sides and not given:
            name, short = _("Computer"), _("Computer")
        elif side in match.computer_sides and name != _("Computer"):  # a practice's opponent is named so
            name = _("%(name)s (computer)") % {"name": name}
        slug = given.get("club_slug", "")
        colours = club_colours(slug) if slug else DEFAULT_COLOURS[side]
        out[side] = {"name": name or side.title(), "short": short or side.title(), "club": given.get("club", ""),
                     "fill": colours[0], "rim": colours[1]}
    if out["home"]["fill"] == out["away"]["fill"]:
        index = next(i for i, c in enumerate(PALETTE) if c[0] != out["home"]["fill"] and c[0] != "#f5f5f5")
        out["away"]["fill"], out["away"]["rim"] = PALETTE[index]
    return out


# --- The spectators' poll, from the cache ------------------------------------------------------

SERVER_NOW_MARK = "@@server_now@@"  # stands for the server's time in a cached feed body
FEED_TTL = 60  # seconds a spectators' feed answer is kept (its key changes whenever the match does)


@dataclass(frozen=True)
class FeedHead:
    """What a spectator's poll needs to know before anything else: whether the match moved
    (``version``: every field a feed answer is made of that can change), whether a deadline has
    passed that a read must apply first, who plays it (a player's poll is never answered from
    the shared cache), and whether it is a live computer-against-computer match that moves only
    while watched (``bot``; ``watched_until``: ``spectating.mark_watched``)."""

    match_id: int
    version: tuple
    due: bool
    players: tuple
    bot: bool = False
    watched_until: datetime | None = None

    @property
    def settled(self) -> bool:
        return not self.due

    @property
    def seq(self) -> int:
        """The match's last log row (``version`` starts with it)."""
        return int(self.version[0])

    def is_player(self, user) -> bool:
        return bool(user is not None and user.is_authenticated and user.pk in self.players)

    def wants_mark(self, now: datetime) -> bool:
        """Whether a watcher's sign should be written (``spectating.mark_watched``)."""
        return self.bot and (self.watched_until is None or self.watched_until < now + WATCHED_FOR - MARK_EVERY)


_HEAD_COLUMNS = ("seq", "status", "state_hash", "status_changed_at", "deadline_at", "deadline_kind",
                 "checkin_deadline_at", "home_checked_in_at", "away_checked_in_at", "kicked_off_at",
                 "finished_at", "clock_anchor_at", "clock_anchor_s", "walkover_side", "computer_sides",
                 "official", "home_user_id", "away_user_id", "watched_until")
_NOT_SHOWN = ("home_user_id", "away_user_id", "watched_until")  # not in a feed answer: not in its version


def feed_head(match_id: int, *, now: datetime) -> FeedHead | None:
    """One light query (no state, no log; raw SQL: the ORM's building of it would cost more
    than the rest of a cached poll): the match's head, or ``None`` when there is none."""
    quote = connection.ops.quote_name
    match_table = quote(Match._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join('m.' + quote(c) for c in _HEAD_COLUMNS)} FROM {match_table} m "
                       f"WHERE m.id = %s", [match_id])
        found = cursor.fetchone()
    if found is None:
        return None
    row = dict(zip(_HEAD_COLUMNS, found, strict=True))
    for key in ("deadline_at", "checkin_deadline_at", "watched_until"):
        row[key] = _moment(row[key])
    sides = row["computer_sides"]
    sides = json.loads(sides) if isinstance(sides, str) else (sides or [])
    live = row["status"] == Match.Status.LIVE
    bot = live and len(sides) >= 2
    due = bool(
        # a bot match's deadlines are its driver's (spectating), never a read's
        (live and not bot and row["deadline_at"] is not None and row["deadline_at"] <= now)
        or (row["status"] in play.OPEN_STATUSES and row["checkin_deadline_at"] is not None
            and row["checkin_deadline_at"] <= now)
    )
    version = tuple(str(row[k]) for k in _HEAD_COLUMNS if k not in _NOT_SHOWN)
    return FeedHead(match_id=match_id, version=version, due=due, players=(row["home_user_id"], row["away_user_id"]),
                    bot=bot, watched_until=row["watched_until"])


def _moment(value) -> datetime | None:
    """A datetime column read by raw SQL: aware (SQLite gives text, naive in UTC)."""
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)
    parsed = parse_datetime(str(value))
    return parsed if parsed is None or parsed.tzinfo else parsed.replace(tzinfo=UTC)


def feed_key(head: FeedHead, *, after: int, frames: bool, language: str) -> str:
    """The cache key (and ETag) of a spectator's feed answer: ``board:feed:<digest>``."""
    raw = repr((head.match_id, head.version, after, frames, language))
    return f"board:feed:{hashlib.sha256(raw.encode()).hexdigest()[:32]}"


def spectators_body(head: FeedHead, *, after: int, frames: bool, now: datetime, build: bool = True) -> str | None:
    """A spectator's feed answer (``board_feed`` with no user) as JSON text, in the active
    language, the server's time left as ``SERVER_NOW_MARK`` (the one part never cached: the
    caller puts ``now`` in). From the cache under ``feed_key``; built and cached when missing
    (``None`` instead when ``build`` is false). The polls of ``/matches/<id>/feed/`` and the
    pushes to watchers (``matches.watching``) share it: one build per version and language."""
    key = feed_key(head, after=after, frames=frames, language=get_language())
    body = cache.get(key)
    if body is None and build:
        match = Match.objects.select_related("home_user", "away_user").filter(pk=head.match_id).first()
        if match is None:
            return None
        data = board_feed(match, after=after, user=None, frames=frames, now=now)
        data["match"]["server_now"] = SERVER_NOW_MARK
        body = json.dumps(data, cls=DjangoJSONEncoder, separators=(",", ":"))
        cache.set(key, body, FEED_TTL)
    return body


def with_server_now(body: str, now: datetime) -> str:
    """``body`` (``spectators_body``) with the server's time in."""
    return body.replace(SERVER_NOW_MARK, now.isoformat(), 1)
