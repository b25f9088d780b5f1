"""Many entrants at once, all or none: licensed players (by id or licence number), or names of
unregistered entrants, each with an optional club and seed, from the API, a pasted list or a
CSV (``name``, ``licence_number``, ``club``, ``seed``).

``entrant_lines_of_*`` read the inputs into ``EntrantLine``s, each with its line (1 the first
item of a list; in a CSV, 1 the header); ``entrants_bulk_add`` checks every line (the checks of
``entrant_add``: a name, a player or a seed taken, by another line too; and a player's licence,
valid on the competition's first date as sign-up checks it, ``registration.licence_valid``,
unless its registration takes players without one), then adds them all in one transaction
under the competition's lock, or raises ``BulkRefused`` with every refused line and adds none.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from leagues.models import Club, Competition, Entrant, Player, Registration
from leagues.services import swiss_rounds
from leagues.services.entrants import entrant_name
from leagues.services.locks import lock_competition, retry_conflicts
from leagues.services.registration import licence_day, licence_valid

MAX_ENTRANTS = 1024  # entrants one request adds at most
SEED_MAX = 512


@dataclass
class EntrantLine:
    line: int
    player: Player | None = None
    name: str = ""
    club: Club | None = None
    seed: int | None = None


class BulkRefused(ValueError):
    """Refused whole: ``errors`` is ``[(line, detail), ...]`` (line None: the whole request)."""

    def __init__(self, errors: list[tuple[int | None, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{line}: {detail}" if line else detail for line, detail in errors))


def _club(text: str) -> Club | None:
    text = (text or "").strip()
    if not text:
        return None
    return (Club.objects.filter(slug=text).first() or Club.objects.filter(name__iexact=text).first()
            or Club.objects.filter(short_name__iexact=text).first())


def _seed(raw, line: int, errors: list) -> int | None:
    if raw in (None, ""):
        return None
    try:
        seed = int(str(raw).strip())
    except ValueError:
        errors.append((line, _("the seed must be a whole number, not %(raw)r") % {"raw": raw}))
        return None
    if not 1 <= seed <= SEED_MAX:
        errors.append((line, _("the seed must be from 1 to %(max)s") % {"max": SEED_MAX}))
        return None
    return seed


def _too_many(count: int) -> None:
    if count > MAX_ENTRANTS:
        raise BulkRefused([(None, _("at most %(max)s entrants at once") % {"max": MAX_ENTRANTS})])
    if count == 0:
        raise BulkRefused([(None, _("no entrant to add"))])


def entrant_lines_of_players(ids: list[int]) -> list[EntrantLine]:
    """Players by id (``BulkRefused`` for an unknown one)."""
    _too_many(len(ids))
    players = Player.objects.in_bulk(ids)
    errors = [(i, _("no player with id %(id)s") % {"id": pk}) for i, pk in enumerate(ids, 1) if pk not in players]
    if errors:
        raise BulkRefused(errors)
    return [EntrantLine(line=i, player=players[pk]) for i, pk in enumerate(ids, 1)]


def entrant_lines_of_licences(numbers: list[str]) -> list[EntrantLine]:
    """Players by licence number (``BulkRefused`` for an unknown one)."""
    _too_many(len(numbers))
    found = {p.licence_number.casefold(): p for p in Player.objects.filter(
        licence_number__in=[n.strip() for n in numbers]) if p.licence_number}
    lines, errors = [], []
    for i, number in enumerate(numbers, 1):
        player = found.get(number.strip().casefold())
        if player is None:
            errors.append((i, _("no player with licence number %(number)r") % {"number": number}))
        lines.append(EntrantLine(line=i, player=player))
    if errors:
        raise BulkRefused(errors)
    return lines


def entrant_lines_of_entrants(items: list[dict]) -> list[EntrantLine]:
    """Unregistered entrants ``{"name", "club", "seed"}`` (club: its slug or name)."""
    _too_many(len(items))
    lines, errors = [], []
    for i, item in enumerate(items, 1):
        name = str(item.get("name") or "").strip()
        club = _club(str(item.get("club") or ""))
        if item.get("club") and club is None:
            errors.append((i, _("no club %(club)r") % {"club": item.get("club")}))
        lines.append(EntrantLine(line=i, name=name, club=club, seed=_seed(item.get("seed"), i, errors)))
    if errors:
        raise BulkRefused(errors)
    return lines


def entrant_lines_of_text(text: str) -> list[EntrantLine]:
    """A pasted list, one entrant a line: a licence number (that player), else a name; empty
    lines skipped (the lines keep their numbers)."""
    items = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    _too_many(len(items))
    found = {p.licence_number.casefold(): p for p in Player.objects.filter(
        licence_number__in=[t for _i, t in items]) if p.licence_number}
    return [EntrantLine(line=i, player=found.get(t.casefold()), name="" if t.casefold() in found else t)
            for i, t in items]


CSV_COLUMNS = ("name", "licence_number", "club", "seed")


def entrant_lines_of_csv(data: bytes) -> list[EntrantLine]:
    """A CSV with a header of ``CSV_COLUMNS`` (any order, each optional but one of ``name`` and
    ``licence_number`` per row): a licence number makes the row that player, else the name an
    unregistered entrant."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BulkRefused([(None, _("the file is not UTF-8 text"))]) from None
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except (StopIteration, csv.Error):
        raise BulkRefused([(1, _("the file needs a header row: %(columns)s") % {"columns": ", ".join(CSV_COLUMNS)})]
                          ) from None
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown or not ({"name", "licence_number"} & set(header)):
        raise BulkRefused([(1, _("the columns are %(columns)s") % {"columns": ", ".join(CSV_COLUMNS)})])
    rows = []
    try:
        for values in reader:
            if any(v.strip() for v in values):
                rows.append((reader.line_num, dict(zip(header, (v.strip() for v in values), strict=False))))
    except csv.Error as exc:
        raise BulkRefused([(reader.line_num, _("is not readable CSV (%(error)s)") % {"error": exc})]) from None
    _too_many(len(rows))
    numbers = [r.get("licence_number", "") for _l, r in rows if r.get("licence_number")]
    found = {p.licence_number.casefold(): p for p in Player.objects.filter(licence_number__in=numbers)}
    lines, errors = [], []
    for line, row in rows:
        number = row.get("licence_number", "")
        player = found.get(number.casefold()) if number else None
        if number and player is None:
            errors.append((line, _("no player with licence number %(number)r") % {"number": number}))
        club = _club(row.get("club", ""))
        if row.get("club") and club is None:
            errors.append((line, _("no club %(club)r") % {"club": row["club"]}))
        lines.append(EntrantLine(line=line, player=player, name=row.get("name", "") if player is None else "",
                                 club=club, seed=_seed(row.get("seed"), line, errors)))
    if errors:
        raise BulkRefused(errors)
    return lines


@retry_conflicts
def entrants_bulk_add(*, competition: Competition, lines: list[EntrantLine], now: datetime | None = None
                      ) -> list[Entrant]:
    """Adds every line as an entrant, or none: raises ``BulkRefused`` with each refused line
    (a name, player or seed taken, here or by another line; a player's licence not valid on the
    licence day; the fixtures made, outside a Swiss's late entry)."""
    now = now or timezone.now()
    _too_many(len(lines))
    with transaction.atomic():
        competition = lock_competition(competition.pk)
        if competition.fixtures.exists() and not swiss_rounds.late_entry_open(competition):
            raise BulkRefused([(None, _("the fixtures are made already; entrants can no longer join"))])
        registration = Registration.objects.filter(competition=competition).first()
        licence_needed = registration is None or registration.licence_required
        day = licence_day(competition, now)
        existing = competition.entrants.all()
        names = {n.casefold() for n in existing.values_list("name", flat=True)}
        players = set(existing.exclude(player=None).values_list("player_id", flat=True))
        seeds = set(existing.exclude(seed=None).values_list("seed", flat=True))
        errors: list[tuple[int | None, str]] = []
        made = []
        for item in lines:
            club, name = item.club, item.name.strip()
            if item.player is not None:
                club = club or item.player.club_on(day)
                name = name or entrant_name(item.player, club)
                if licence_needed and not licence_valid(player=item.player, day=day):
                    errors.append((item.line, _("%(player)s has no licence valid on %(day)s") % {
                        "player": item.player.full_name, "day": date_format(day, "j M Y")}))
                if item.player.pk in players:
                    errors.append((item.line, _("%(player)s is entered already") % {"player": item.player.full_name}))
                    continue
                players.add(item.player.pk)
            if not name:
                errors.append((item.line, _("an entrant needs a player or a name")))
                continue
            if name.casefold() in names:
                errors.append((item.line, _("another entrant has the name %(name)r") % {"name": name}))
            names.add(name.casefold())
            if item.seed is not None:
                if item.seed in seeds:
                    errors.append((item.line, _("another entrant has the seed %(seed)s") % {"seed": item.seed}))
                seeds.add(item.seed)
            made.append(Entrant(competition=competition, name=name, player=item.player, club=club, seed=item.seed))
        if errors:
            raise BulkRefused(errors)
        try:
            with transaction.atomic():
                return Entrant.objects.bulk_create(made)
        except IntegrityError as exc:  # the constraints hold what the checks above missed
            raise BulkRefused([(None, _("these entrants contradict others (name, player or seed)"))]) from exc


def licensed_players(*, club: Club | None = None, query: str = "", day=None, exclude: Competition | None = None):
    """Players with a licence number and a club membership open on ``day`` (today), of ``club``
    or matching ``query`` (a name or licence number), not entered in ``exclude``; by name."""
    day = day or timezone.localdate()
    players = (Player.objects.exclude(licence_number="").filter(memberships__start_date__lte=day)
               .filter(Q(memberships__end_date__isnull=True) | Q(memberships__end_date__gte=day)))
    if club is not None:
        players = players.filter(memberships__club=club)
    if query:
        players = players.filter(Q(first_name__icontains=query) | Q(last_name__icontains=query)
                                 | Q(licence_number__icontains=query))
    if exclude is not None:
        players = players.exclude(entries__competition=exclude)
    return players.distinct().order_by("last_name", "first_name")
