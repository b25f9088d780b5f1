"""The results CSV organisers bring (COMPETITIONS.md §6), imported whole or not at all.

The file is a ``ResultsFile`` (``leagues.services.import_files``): refused at once over
``IMPORT_MAX_BYTES`` or ``IMPORT_MAX_ROWS``, and read a line at a time. ``results_parse``
reads and checks every line first, keeping each row compact, and ``results_check`` checks the
file against what is stored (the entrants' names, the results already there), both before any
write; ``results_import`` then writes the competition (with ``create``), its stages, groups,
rounds, entrants, fixtures and official results in one short transaction, which checks again
under the competition's lock. The rows that make new fixtures are written in bulk, ``BATCH``
at a time so that memory stays flat (the entrants and groups a statement a batch, the
fixtures, results and history entries by ``COPY`` on PostgreSQL, see
``leagues.services.bulk``), each adjudicated through the same pure rules
(``leagues.rules.official``); a row for a fixture there already goes through the checks of a
correction one by one. The first problem found raises ``ImportFileError`` naming the line (the
header is line 1) and the column; nothing of the file is saved. On SQLite (the embedded
default) the write transaction holds the database's only write lock: everything that can be
checked before it is, so that other writers wait for the writing only.

Importing is idempotent and strict (§6): a pairing is the ordered (home, away) pair, and an
entrant may appear more than once in a round; the same pairing twice in one round of one stage
and group of a file is refused, and so is a row for a pairing that already has a result in that
stage, group and round, unless ``update`` is given: then it is a correction (checked like any
correction: a knockout result whose winner played on is refused). Results are official at once. A text cell that begins with ``'`` loses it (the guard the site's
own CSV downloads put before a text a spreadsheet would run, ``leagues.downloads.cells``).
"""
from __future__ import annotations

import csv
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from tqdm import tqdm

from leagues import names
from leagues.downloads.cells import csv_read
from leagues.models import (
    Competition,
    Entrant,
    Fixture,
    FixtureChange,
    Group,
    Result,
    Round,
    Season,
    Stage,
    TiebreakPreset,
    Venue,
    is_printable_text,
)
from leagues.rules import bracket_layout, standings
from leagues.rules.official import Official, Recorded, ResultError, Rules, official_result
from leagues.services.bulk import ids_reserve, objects_insert, rows_insert
from leagues.services.history import change_record, fixture_state
from leagues.services.import_files import ImportFileError, ResultsFile
from leagues.services.locks import lock_competition
from leagues.services.results import (
    ResultConflict,
    current_result,
    official_for,
    result_values,
    result_write,
    settle,
    status_of,
)

REQUIRED = ("home", "away", "home_goals", "away_goals")
OPTIONAL = (
    "stage", "group", "round", "date", "outcome", "outcome_side",
    "home_et_goals", "away_et_goals", "home_shootout", "away_shootout",
    "home_discipline", "away_discipline",
)
_KNOCKOUT_STAGE = re.compile(r"knock-?out|final|semi|quarter|round of|third|play-?off|eighth|\bko\b", re.I)


# goals, extra-time goals, shoot-out goals and discipline points: the bound of the result API
MAX_COUNT = 99
# the lengths of the texts a row writes, as their columns in the database hold them
ENTRANT_NAME_MAX = Entrant._meta.get_field("name").max_length
STAGE_NAME_MAX = Stage._meta.get_field("name").max_length
GROUP_NAME_MAX = Group._meta.get_field("name").max_length
ROUND_NAME_MAX = Round._meta.get_field("name").max_length
ROUND_NUMBER_MAX = 32767  # Round.number


@dataclass(slots=True)
class ResultRow:
    line: int
    home: str
    away: str
    home_goals: int
    away_goals: int
    stage: str = ""
    group: str = ""
    round: str = ""
    date: date | None = None
    outcome: str = "played"
    outcome_side: str = ""
    home_et_goals: int = 0
    away_et_goals: int = 0
    home_shootout: int | None = None
    away_shootout: int | None = None
    home_discipline: int = 0
    away_discipline: int = 0


@dataclass
class ImportSummary:
    competition: Competition
    created: bool
    results: int
    entrants_created: int


def is_knockout_stage(name: str, *, competition: Competition) -> bool:
    """Whether a row of stage ``name`` is a knockout match: an existing stage says so by its
    kind; otherwise the name does ("Final", "Semi-finals", "Knockout"...), and with no stage at
    all the competition's format does."""
    if name and competition.pk:
        stage = competition.stages.filter(name__iexact=name).first()
        if stage is not None:
            return stage.kind == Stage.Kind.KNOCKOUT
    if name:
        return bool(_KNOCKOUT_STAGE.search(name))
    return competition.format == Competition.Format.KNOCKOUT


def _whole(raw: str, *, line: int, column: str, default: int | None) -> int | None:
    raw = (raw or "").strip()
    if raw == "":
        if default is None and column in REQUIRED:
            raise ImportFileError(line, column, _("is empty; give a whole number of 0 or more"))
        return default
    if not (raw.isascii() and raw.isdigit()):
        raise ImportFileError(line, column, _("must be a whole number of 0 or more, not %(raw)r") % {"raw": raw})
    if len(raw.lstrip("0")) > len(str(MAX_COUNT)) or int(raw) > MAX_COUNT:
        raise ImportFileError(line, column, _("must be from 0 to %(max)s, not %(raw)s") % {"max": MAX_COUNT, "raw": raw})
    return int(raw)


def results_parse(lines: Iterable[str], *, competition: Competition) -> list[ResultRow]:
    """Reads the CSV ``lines`` (``ResultsFile.lines()``: one at a time, never the whole text)
    and checks every line against §4-6 under ``competition``'s rules (which need not be saved
    yet). Raises ``ImportFileError`` at the first problem.

    The rows are kept compact, as the whole file is checked before anything is written: a
    ``ResultRow`` has slots, and the rows that name the same entrant, stage, group, round or
    date hold the same object (about 200 bytes a row)."""
    reader = csv.reader(lines)
    try:
        header = next(reader)
    except StopIteration:
        raise ImportFileError(1, None, _("the file is empty; it needs a header row")) from None
    except csv.Error as exc:
        raise ImportFileError(reader.line_num or 1, None, _("is not readable CSV (%(error)s)") % {"error": exc}) from None
    header = [h.strip() for h in header]
    seen: set[str] = set()
    for name in header:
        if name not in REQUIRED + OPTIONAL:
            raise ImportFileError(1, name or _("(empty)"), _("unknown column; the columns are %(columns)s")
                                  % {"columns": ", ".join(REQUIRED + OPTIONAL)})
        if name in seen:
            raise ImportFileError(1, name, _("appears twice"))
        seen.add(name)
    for name in REQUIRED:
        if name not in seen:
            raise ImportFileError(1, name, _("required column missing"))

    rows: list[ResultRow] = []
    same: dict = {}  # a text or date -> the one object every row holding it shares
    knockout = functools.cache(lambda stage: is_knockout_stage(stage, competition=competition))
    for line, raw in csv_records(reader, header):
        row = _row(raw, line=line, competition=competition, knockout=knockout)
        for name in _SHARED:
            value = getattr(row, name)
            setattr(row, name, same.setdefault(value, value))
        rows.append(row)
    if not rows:
        raise ImportFileError(2, None, _("no results after the header"))
    _check_no_pairing_twice(rows, competition=competition)
    return rows


# the fields of a row that many rows hold alike
_SHARED = ("home", "away", "stage", "group", "round", "date", "outcome", "outcome_side")


def csv_records(reader, header: list[str]) -> Iterable[tuple[int, dict[str, str]]]:
    """The file's rows after its header, each ``(line, {column: value})`` (values trimmed and read
    back from the exports' guarded cells, ``csv_read``); blank lines skipped; a row with another
    number of values than the header is an ``ImportFileError`` naming its line."""
    for values in _csv_rows(reader):
        line = reader.line_num
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            raise ImportFileError(line, None, _("has %(values)s values for %(columns)s columns")
                                  % {"values": len(values), "columns": len(header)})
        yield line, dict(zip(header, (csv_read(v.strip()) for v in values), strict=True))


def _csv_rows(reader) -> Iterable[list[str]]:
    """The reader's rows; a line the csv module cannot read (a field over its size limit, an
    unclosed quote) is an ``ImportFileError`` naming it."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ImportFileError(max(reader.line_num, 2), None, _("is not readable CSV (%(error)s)") % {"error": exc}) from None


def _text(raw: dict[str, str], column: str, *, line: int, max_length: int) -> str:
    """The text of ``column``: printable (no NUL, no control character, no line break) and at
    most ``max_length`` characters (its column in the database), else ``ImportFileError``."""
    value = raw.get(column, "")
    if not is_printable_text(value):
        raise ImportFileError(line, column, _("holds a control character (NUL, a line break...): %(value)r")
                               % {"value": value[:40]})
    if len(value) > max_length:
        raise ImportFileError(line, column, _("is %(length)s characters long; at most %(max)s")
                               % {"length": len(value), "max": max_length})
    return value


def _round_label(raw: dict[str, str], *, line: int) -> str:
    """A round is a number (ASCII digits, 1 to 32767) or a name (at most 80 characters)."""
    label = _text(raw, "round", line=line, max_length=ROUND_NAME_MAX)
    if label.isdigit():
        if not label.isascii():
            raise ImportFileError(line, "round", _("must be a number in the digits 0-9 or a name, not %(label)r")
                                   % {"label": label})
        if len(label) > 5 or int(label) > ROUND_NUMBER_MAX:
            raise ImportFileError(line, "round", _("must be a number from 1 to %(max)s, not %(label)s")
                                   % {"max": ROUND_NUMBER_MAX, "label": label[:12]})
    return label


def _check_no_pairing_twice(rows: list[ResultRow], *, competition: Competition) -> None:
    """The same (home, away) pairing twice in one round of one stage and group is refused."""
    seen: dict[tuple, int] = {}
    fold = functools.cache(str.casefold)  # one folded text per name, shared by the keys
    default = _default_stage(competition)
    for row in rows:
        key = (fold(row.stage or default), fold(row.group), fold(row.round or "1"), fold(row.home), fold(row.away))
        if key in seen:
            raise ImportFileError(row.line, "away", _("%(home)s v %(away)s is already on line %(line)s for the same round; "
                                                      "a pairing is played once a round")
                                   % {"home": row.home, "away": row.away, "line": seen[key]})
        seen[key] = row.line


def _default_stage(competition: Competition) -> str:
    return "Knockout" if competition.format == Competition.Format.KNOCKOUT else "League"


MAX_ROUND = 999
_NUMBER = re.compile(r"[+-]?\d+")


def _check_round(label: str, *, line: int) -> None:
    """A round is a number from 1 to ``MAX_ROUND`` or a name ("Final", "Round of 16")."""
    label = label.strip()
    if _NUMBER.fullmatch(label) and not (label.isdigit() and len(label) <= 3 and 1 <= int(label) <= MAX_ROUND):
        raise ImportFileError(line, "round", _("must be a round number from 1 to %(max)s, or a round's name, not %(label)s")
                               % {"max": MAX_ROUND, "label": label})
    if len(label) > 80:
        raise ImportFileError(line, "round", _("a round's name is at most 80 characters"))


def _bye_row(raw: dict[str, str], *, line: int) -> ResultRow:
    """A row with a home and an empty away: the home entrant's bye in that round (a Swiss's, as
    the exports write it); it takes no score."""
    _text(raw, "home", line=line, max_length=ENTRANT_NAME_MAX)
    for column in ("stage", "group", "date"):
        _text(raw, column, line=line, max_length={"stage": STAGE_NAME_MAX, "group": GROUP_NAME_MAX}.get(column, 40))
    _round_label(raw, line=line)
    _check_round(raw.get("round", ""), line=line)
    for column in ("home_goals", "away_goals", "outcome", "outcome_side", "home_et_goals", "away_et_goals",
                   "home_shootout", "away_shootout", "home_discipline", "away_discipline"):
        if (raw.get(column) or "").strip() and not (column == "outcome" and raw[column].strip().lower() == "bye"):
            raise ImportFileError(line, column, _("a row with an empty away is a bye, which takes no %(column)s")
                                  % {"column": column})
    row = ResultRow(line=line, home=raw["home"], away="", home_goals=0, away_goals=0, stage=raw.get("stage", ""),
                    group=raw.get("group", ""), round=raw.get("round", ""), outcome=BYE)
    if raw.get("date"):
        try:
            row.date = datetime.fromisoformat(raw["date"]).date() if "T" in raw["date"] else date.fromisoformat(raw["date"])
        except ValueError:
            raise ImportFileError(line, "date", _("must be an ISO 8601 date such as 2024-05-18, not %(date)r")
                                   % {"date": raw["date"]}) from None
    return row


BYE = "bye"  # a ResultRow's outcome for a bye (an empty away)


def _row(raw: dict[str, str], *, line: int, competition: Competition, knockout: Callable[[str], bool]) -> ResultRow:
    if raw.get("home") and not raw.get("away"):
        return _bye_row(raw, line=line)
    for column in ("home", "away"):
        if not raw.get(column):
            raise ImportFileError(line, column, _("is empty; give the entrant's name"))
        _text(raw, column, line=line, max_length=ENTRANT_NAME_MAX)
    for column, max_length in (("stage", STAGE_NAME_MAX), ("group", GROUP_NAME_MAX), ("date", 40),
                               ("outcome", 40), ("outcome_side", 40)):
        _text(raw, column, line=line, max_length=max_length)
    _round_label(raw, line=line)
    if raw["home"].casefold() == raw["away"].casefold():
        raise ImportFileError(line, "away", _("%(entrant)r cannot play itself") % {"entrant": raw["away"]})
    outcome = (raw.get("outcome") or "played").lower()
    if outcome not in ("played", "walkover", "disqualification"):
        raise ImportFileError(line, "outcome", _("must be played, walkover or disqualification, not %(outcome)r")
                               % {"outcome": raw["outcome"]})
    side = (raw.get("outcome_side") or "").lower()
    if side not in ("", "home", "away", "both"):
        raise ImportFileError(line, "outcome_side", _("must be home, away or both, not %(side)r")
                               % {"side": raw["outcome_side"]})
    default_goals = 0 if outcome == "walkover" else None
    _check_round(raw.get("round", ""), line=line)
    row = ResultRow(
        line=line, home=raw["home"], away=raw["away"],
        home_goals=_whole(raw["home_goals"], line=line, column="home_goals", default=default_goals),
        away_goals=_whole(raw["away_goals"], line=line, column="away_goals", default=default_goals),
        stage=raw.get("stage", ""), group=raw.get("group", ""), round=raw.get("round", ""),
        outcome=outcome, outcome_side=side,
        home_et_goals=_whole(raw.get("home_et_goals", ""), line=line, column="home_et_goals", default=0),
        away_et_goals=_whole(raw.get("away_et_goals", ""), line=line, column="away_et_goals", default=0),
        home_shootout=_whole(raw.get("home_shootout", ""), line=line, column="home_shootout", default=None),
        away_shootout=_whole(raw.get("away_shootout", ""), line=line, column="away_shootout", default=None),
        home_discipline=_whole(raw.get("home_discipline", ""), line=line, column="home_discipline", default=0),
        away_discipline=_whole(raw.get("away_discipline", ""), line=line, column="away_discipline", default=0),
    )
    if raw.get("date"):
        try:
            row.date = datetime.fromisoformat(raw["date"]).date() if "T" in raw["date"] else date.fromisoformat(raw["date"])
        except ValueError:
            raise ImportFileError(line, "date", _("must be an ISO 8601 date such as 2024-05-18, not %(date)r")
                                   % {"date": raw["date"]}) from None
    rules = Rules(
        knockout=knockout(row.stage),
        extra_time=competition.extra_time, shootout=competition.shootout,
        shootout_kicks=competition.shootout_kicks,
        walkover_score=(competition.walkover_goals_for, competition.walkover_goals_against),
    )
    try:
        official_result(Recorded(
            home_goals=row.home_goals, away_goals=row.away_goals, outcome=row.outcome,
            outcome_side=row.outcome_side, home_et_goals=row.home_et_goals, away_et_goals=row.away_et_goals,
            home_shootout=row.home_shootout, away_shootout=row.away_shootout,
        ), rules)
    except ResultError as exc:
        raise ImportFileError(line, exc.field, exc.message) from None
    return row


def parse_points(text: str) -> tuple[int, int, int]:
    """``"3,1,0"`` -> (3, 1, 0); raises ``ValueError`` unless three whole numbers, win >= draw >= loss."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(_("--points takes three whole numbers for a win, a draw and a loss, like 3,1,0; not %(text)r")
                         % {"text": text})
    win, draw, loss = (int(p) for p in parts)
    if not win >= draw >= loss:
        raise ValueError(_("--points: a win is worth at least a draw, and a draw at least a loss"))
    return win, draw, loss


def competition_new(
    *,
    slug: str,
    name: str,
    preset: str = TiebreakPreset.FISTF,
    criteria: Iterable[str] = (),
    points: tuple[int, int, int] = (3, 1, 0),
    format: str = Competition.Format.LEAGUE,
    season: Season | None = None,
    rounds: int | None = None,
) -> Competition:
    """An unsaved competition for an import (``results_import`` saves it); a Swiss's ``rounds``
    are the file's unless given. Raises ``ValueError`` for an unknown preset or criterion, or
    ``rounds`` for a format other than the Swiss or under 1."""
    criteria = list(criteria)
    if preset not in TiebreakPreset.values:
        raise ValueError(_("unknown preset %(preset)r; the presets are %(presets)s")
                         % {"preset": preset, "presets": ", ".join(TiebreakPreset.values)})
    if preset == TiebreakPreset.CUSTOM:
        if not criteria:
            raise ValueError(_("the custom preset needs its list of criteria"))
        standings.validate_criteria(["points", *criteria])
    if format not in Competition.Format.values:
        raise ValueError(_("unknown format %(format)r") % {"format": format})
    if rounds is not None and format != Competition.Format.SWISS:
        raise ValueError(_("--rounds: only a Swiss has a number of rounds"))
    if rounds is not None and rounds < 1:
        raise ValueError(_("--rounds: give a number of rounds from 1 up"))
    return Competition(
        slug=slug, name=name, tiebreak_preset=preset, tiebreak_criteria=criteria,
        points_win=points[0], points_draw=points[1], points_loss=points[2], format=format, season=season,
        rounds=rounds, withdrawal_policy=Competition.withdrawal_policy_for(format),
    )


def _refusal_of_format(competition: Competition) -> ImportFileError | None:
    """Why no results file can be imported into ``competition`` as its format is, or None: a
    double elimination's brackets are links between its fixtures (where each winner and loser
    goes, the grand final and its reset) that a results file does not carry."""
    if competition.format == Competition.Format.DOUBLE_ELIMINATION:
        return ImportFileError(None, None, _(
            "a double elimination cannot be imported: its two brackets and its grand final are links between "
            "fixtures that a results file does not carry; draw it on the site and record its results there"))
    return None


def _swiss_rounds_set(competition: Competition) -> None:
    """A Swiss's ``rounds`` after its import: the file's rounds when none were given; refused
    (``ImportFileError``, nothing saved) when fewer than the file's, or more than its entrants
    less one (COMPETITIONS.md §9)."""
    played = Round.objects.filter(stage__competition=competition).aggregate(last=Max("number"))["last"] or 0
    if competition.rounds is None:
        competition.rounds = played
    elif competition.rounds < played:
        raise ImportFileError(None, None, _("--rounds: %(rounds)s rounds are fewer than the %(played)s rounds of the "
                                            "file") % {"rounds": competition.rounds, "played": played})
    most = competition.entrants.count() - 1
    if not 1 <= competition.rounds <= max(most, 1):
        raise ImportFileError(None, None, _("--rounds: a Swiss of %(count)s entrants plays from 1 to %(most)s rounds")
                              % {"count": most + 1, "most": most})
    Competition.objects.filter(pk=competition.pk).update(rounds=competition.rounds)


def season_for(rows: list[ResultRow]) -> Season | None:
    """The season of the file's dates (the one holding its first date); with no dates, the
    current season; ``None`` when there is none (an import never fails for lack of one)."""
    dates = [row.date for row in rows if row.date is not None]
    if dates:
        first = min(dates)
        return Season.objects.filter(start_date__lte=first, end_date__gte=first).order_by("-start_date").first()
    return Season.objects.filter(is_current=True).first()


class CompetitionExists(ValueError):
    """The competition an import is to create has a slug another holds: there before the
    import, or made meanwhile by another import of the same slug."""

    def __init__(self, slug: str):
        self.slug = slug
        super().__init__(_("a competition %(slug)r exists already; drop --create to add results to it")
                         % {"slug": slug})


def results_import(
    *,
    competition: Competition,
    file: ResultsFile | None = None,
    text: str | None = None,
    recorded_by=None,
    update: bool = False,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> ImportSummary:
    """Imports the results ``file`` (or the CSV ``text``, taken as a file of its UTF-8 bytes,
    within the same limits) into ``competition`` (saved here when new: the ``--create`` case,
    with the venue ``table`` and the season of its dates unless one is set), all in one
    transaction. With ``update``, a row for a pairing that already has a result corrects it.

    Raises ``ImportFileError`` (``ImportTooLarge`` over ``IMPORT_MAX_BYTES`` or
    ``IMPORT_MAX_ROWS``), or ``CompetitionExists`` when the competition to create took a slug
    another import saved meanwhile; then nothing is saved. The file's rows are held (compact)
    until the end, with the ids of its entrants and groups; the fixtures, results and history
    entries it makes are built and written ``BATCH`` at a time."""
    if (file is None) == (text is None):
        raise TypeError("results_import takes a file or a text")
    file = file or ResultsFile.of_text(text)
    created = competition.pk is None
    if not created:
        competition = Competition.objects.get(pk=competition.pk)
    if (refused := _refusal_of_format(competition)) is not None:
        raise refused
    rows = results_parse(file.lines(), competition=competition)
    results_check(rows, competition=competition, update=update)
    # the bar is drawn on a terminal only (disable=None), and for a file long enough to wait for
    progress = progress or (lambda it: tqdm(it, desc="results", unit="row", disable=True if len(rows) < 500 else None))
    now = timezone.now()
    if created:
        competition.slug = competition.slug or slugify(competition.name)
        competition.venue = Venue.TABLE
        if competition.season_id is None:
            competition.season = season_for(rows)

    with transaction.atomic():
        if created:
            _competition_save(competition)
        competition = lock_competition(competition.pk)
        new_entrants = _rows_write(competition, rows, created=created, update=update, by=recorded_by, now=now,
                                   progress=progress)
        if created and competition.format == Competition.Format.SWISS:
            _swiss_rounds_set(competition)
        results = len(rows)
        rows.clear()  # freed before the tasks sent on commit run (in this process in the embedded set-up)
    return ImportSummary(competition=competition, created=created, results=results, entrants_created=new_entrants)


def _rows_write(competition: Competition, rows: list[ResultRow], *, created: bool, update: bool, by, now,
                progress: Callable[[Iterable], Iterable]) -> int:
    """Writes the checked ``rows`` into ``competition`` (locked, in the caller's transaction):
    its entrants, stages, groups and rounds, then the fixtures the file makes a batch at a
    time and the corrections one by one; then the knockout checks and ``settle``. Returns the
    number of entrants created; raises ``ImportFileError``."""
    fold = functools.cache(str.casefold)
    default = _default_stage(competition)
    entrants, new_entrants = _entrants_of(competition, rows, fold=fold)
    # a fixture's entrants, for its history entry: one object per entrant of a batch
    entrant = functools.cache(lambda id_name: Entrant(pk=id_name[0], competition=competition, name=id_name[1]))

    stages: dict[str, Stage] = {s.name.casefold(): s for s in competition.stages.all()}
    members: dict[int, set[int]] = {}  # group id -> its entrants' ids
    existing = _Existing(competition, created=created)
    made: list[tuple[Fixture, ResultRow]] = []  # fixtures this file makes, written a batch at a time
    rounds: dict[tuple[int, str], Round] = {}
    positions: dict[tuple[int, int | None], int] = {}
    next_order = max((s.order for s in stages.values()), default=0) + 1

    lines: dict[int, int] = {}  # knockout fixture id -> its line in the file
    numbered: dict[str, int] = {}  # per stage, the highest round number of the file
    for row in rows:
        if (row.round or "1").isdigit():
            stage_key = fold(row.stage or default)
            numbered[stage_key] = max(numbered.get(stage_key, 0), int(row.round or "1"))
    # the stages and groups the file names, made first (a few statements for the file)
    new_groups: dict[tuple[int, str], None] = {}
    for row in rows:
        stage_name = row.stage or default
        stage = stages.get(fold(stage_name))
        if stage is None:
            kind = (
                Stage.Kind.KNOCKOUT if is_knockout_stage(row.stage, competition=competition)
                else Stage.Kind.GROUPS if row.group else Stage.Kind.LEAGUE
            )
            stage = Stage.objects.create(competition=competition, order=next_order, name=stage_name, kind=kind)
            stages[fold(stage_name)] = stage
            next_order += 1
        if row.group:
            new_groups[(stage.pk, row.group)] = None
    groups = _groups_of(competition, new_groups)

    for row in progress(rows):
        home = entrants[fold(row.home)]
        away = entrants[fold(row.away)] if row.away else None
        stage_name = row.stage or default
        stage = stages[fold(stage_name)]
        group_id = None
        if row.group:
            group_id = groups[(stage.pk, row.group)]
            members.setdefault(group_id, set()).update(e[0] for e in (home, away) if e is not None)
        rnd = _round_for(stage, row.round or "1", rounds, numbered_up_to=numbered.get(fold(stage_name), 0))
        if away is None:
            _bye_write(competition, rnd, group_id, home[0], row, positions=positions, existing=existing, now=now)
            continue
        # a competition made by this file has no fixture yet (a pairing is once a round)
        fixture = existing.fixture(rnd, group_id, home[0], away[0])
        if fixture is None:
            key = (rnd.pk, group_id)
            if key not in positions:
                positions[key] = existing.next_position(key)
            day = row.date or rnd.date
            made.append((Fixture(
                competition=competition, round=rnd, group_id=group_id, position=positions[key],
                home=entrant(home), away=entrant(away), date=day, kickoff_at=competition.kickoff_on(day),
                status_changed_at=now, playable_since=now,
            ), row))
            positions[key] += 1
            if len(made) == BATCH:
                lines.update(_write_made(made, by=by, now=now))
                made.clear()
                entrant.cache_clear()
            continue
        fixture.competition = competition
        _import_row(fixture, row, update=update, by=by, now=now)
        if stage.kind == Stage.Kind.KNOCKOUT:
            lines[fixture.pk] = row.line
    lines.update(_write_made(made, by=by, now=now))
    _add_members(members, existing=existing.members())
    _check_knockouts_go_on(competition, lines)
    try:
        settle(competition=competition, by=by, now=now)
    except ResultConflict as exc:
        raise ImportFileError(rows[-1].line, None, exc.detail) from None
    return new_entrants


def _bye_write(competition: Competition, rnd: Round, group_id: int | None, home_id: int, row: ResultRow, *,
               positions: dict, existing: _Existing, now) -> None:
    """Stores the row's bye: a fixture of its round with no away, official at once (no result);
    a bye there already is kept as it is (importing is idempotent)."""
    if competition.fixtures.filter(round=rnd, group_id=group_id, home_id=home_id, away__isnull=True,
                                   status=Fixture.Status.BYE).exists():
        return
    key = (rnd.pk, group_id)
    if key not in positions:
        positions[key] = existing.next_position(key)
    day = row.date or rnd.date
    Fixture.objects.create(competition=competition, round=rnd, group_id=group_id, position=positions[key],
                           home_id=home_id, date=day, kickoff_at=competition.kickoff_on(day),
                           status=Fixture.Status.BYE, status_changed_at=now, playable_since=now)
    positions[key] += 1


def _competition_save(competition: Competition) -> None:
    """Saves the new ``competition`` (in the caller's transaction); ``CompetitionExists`` when
    its slug was taken meanwhile (another import committed it, or PostgreSQL made this insert
    wait for the other one's commit)."""
    try:
        with transaction.atomic():
            competition.save()
    except IntegrityError:
        if Competition.objects.filter(slug=competition.slug).exists():
            raise CompetitionExists(competition.slug) from None
        raise


def _entrants_of(competition: Competition, rows: list[ResultRow], *, fold: Callable[[str], str]
                 ) -> tuple[dict[str, tuple[int, str]], int]:
    """Every entrant the rows name, by folded name -> (id, name), the new ones created (a
    batch a statement), and how many are new. In a competition with entrants already, a name
    that is none of them is a typo: ``ImportFileError``."""
    entrants = {fold(name): (pk, name) for pk, name in competition.entrants.values_list("pk", "name")}
    closed = bool(entrants)  # an existing field of entrants: an unknown name is a typo
    fresh: dict[str, str] = {}
    for row in rows:
        for column in ("home", "away"):
            name = getattr(row, column)
            if not name:
                continue  # a bye's away
            if fold(name) not in entrants and fold(name) not in fresh:
                if closed:
                    raise ImportFileError(row.line, column, _("no entrant named %(name)r in %(competition)s")
                                          % {"name": name, "competition": competition.slug})
                fresh[fold(name)] = name
    names = list(fresh.values())
    for start in range(0, len(names), BATCH):
        made = Entrant.objects.bulk_create([Entrant(competition=competition, name=name)
                                            for name in names[start:start + BATCH]])
        entrants.update({fold(e.name): (e.pk, e.name) for e in made})
    return entrants, len(fresh)


def _groups_of(competition: Competition, named: Iterable[tuple[int, str]]) -> dict[tuple[int, str], int]:
    """(stage id, group name) -> group id, of the competition's groups and of the ``named``
    ones, those missing created (a batch a statement)."""
    groups = {(stage_id, name): pk for pk, stage_id, name in
              Group.objects.filter(stage__competition=competition).values_list("pk", "stage_id", "name")}
    missing = [key for key in named if key not in groups]
    for start in range(0, len(missing), BATCH):
        made = Group.objects.bulk_create([Group(stage_id=stage_id, name=name)
                                          for stage_id, name in missing[start:start + BATCH]])
        groups.update({(g.stage_id, g.name): g.pk for g in made})
    return groups


BATCH = 1000  # rows a bulk statement writes at most


class _Existing:
    """What the competition holds already that an import row may meet, read once for the
    whole file: its fixtures by pairing, the next free position of each round and group, and
    the group memberships. A competition the file creates holds nothing."""

    def __init__(self, competition: Competition, *, created: bool):
        self.competition, self.created = competition, created
        self._fixtures: dict[tuple, int] | None = None
        self._positions: dict[tuple, int] | None = None

    def fixture(self, rnd: Round, group_id: int | None, home_id: int, away_id: int) -> Fixture | None:
        """The fixture of the ordered pairing in this round and group (``_fixture_of``)."""
        if self.created:
            return None
        if self._fixtures is None:
            self._fixtures = {}
            pairings = (self.competition.fixtures.exclude(status__in=(Fixture.Status.ANNULLED, Fixture.Status.BYE))
                        .order_by("-pk").values_list("pk", "round_id", "group_id", "home_id", "away_id"))
            for pk, *pairing in pairings:
                self._fixtures[tuple(pairing)] = pk  # the first by pk wins
        pk = self._fixtures.get((rnd.pk, group_id, home_id, away_id))
        return None if pk is None else Fixture.objects.select_related("round__stage", "home", "away").get(pk=pk)

    def next_position(self, key: tuple[int, int | None]) -> int:
        """The position after the last fixture of (round id, group id)."""
        if self.created:
            return 0
        if self._positions is None:
            taken = (Fixture.objects.filter(competition=self.competition).values("round_id", "group_id")
                     .annotate(last=Max("position")).values_list("round_id", "group_id", "last"))
            self._positions = {(r, g): last + 1 for r, g, last in taken}
        return self._positions.get(key, 0)

    def members(self) -> set[tuple[int, int]]:
        """(group id, entrant id) of the memberships there already."""
        if self.created:
            return set()
        through = Group.entrants.through.objects.filter(group__stage__competition=self.competition)
        return set(through.values_list("group_id", "entrant_id"))


def _add_members(members: dict[int, set[int]], *, existing: set[tuple[int, int]]) -> None:
    """Puts each entrant in the groups it played in (``members``: group id -> entrant ids), a
    batch a statement."""
    through = Group.entrants.through
    pairs = [(group_id, entrant_id) for group_id, entrant_ids in members.items() for entrant_id in entrant_ids
             if (group_id, entrant_id) not in existing]
    for start in range(0, len(pairs), BATCH):
        rows_insert(through, ("group_id", "entrant_id"), pairs[start:start + BATCH])


def results_check(rows: list[ResultRow], *, competition: Competition, update: bool) -> None:
    """Checks the parsed ``rows`` against what is stored, before anything is written (no lock
    held; ``results_import`` checks again in its transaction): in a competition with entrants
    every name is one of them, and a row for a pairing already in the competition takes a
    result (not one there already unless ``update``, not an online match under way). Raises
    ``ImportFileError`` at the first problem."""
    if competition.pk is None:
        return
    entrants = {e.name.casefold(): e for e in competition.entrants.all()}
    if not entrants:
        return  # a field made by this file: none of its fixtures exists yet
    for row in rows:
        for column in ("home", "away"):
            name = getattr(row, column)
            if name and name.casefold() not in entrants:
                raise ImportFileError(row.line, column, _("no entrant named %(name)r in %(competition)s")
                                          % {"name": name, "competition": competition.slug})
    stages = {s.name.casefold(): s for s in competition.stages.all()}
    for row in rows:
        stage = stages.get((row.stage or _default_stage(competition)).casefold())
        if stage is None or row.outcome == BYE:
            continue
        label = row.round or "1"
        rounds = stage.rounds.filter(number=int(label)) if label.isdigit() else stage.rounds.filter(name__iexact=label)
        group = Group.objects.filter(stage=stage, name=row.group).first() if row.group else None
        if (row.group and group is None) or not rounds.exists():
            continue
        fixture = _fixture_of(competition, rounds.first(), group, entrants[row.home.casefold()],
                              entrants[row.away.casefold()])
        if fixture is not None:
            fixture.competition = competition
            _check_row(fixture, row, update=update)


def _check_row(fixture: Fixture, row: ResultRow, *, update: bool) -> tuple[Result | None, Recorded, Official]:
    """The row's result on ``fixture``, checked: refused when the pairing has a result already
    and ``update`` is not given, its online match has begun, or the fixture takes no result.
    Returns the result there, the recorded one and its official result."""
    previous = Result.objects.filter(fixture=fixture).first()
    if previous is not None and not update:
        raise ImportFileError(row.line, "home", _("%(home)s v %(away)s already has a result in this round (%(result)s); "
                                                  "give --update to correct it")
                               % {"home": row.home, "away": row.away, "result": previous})
    if fixture.match_id is not None and fixture.match.is_started:
        raise ImportFileError(row.line, None, _("%(home)s v %(away)s is played online and its match has started: "
                                                "its result comes from the match")
                               % {"home": row.home, "away": row.away})
    if fixture.status not in Fixture.OPEN | Fixture.RESULTED:
        raise ImportFileError(row.line, None, _("%(home)s v %(away)s is %(status)s and takes no result")
                               % {"home": row.home, "away": row.away,
                                  "status": fixture.get_status_display().lower()})
    return (previous, *_official_of(fixture, row))


def _official_of(fixture: Fixture, row: ResultRow) -> tuple[Recorded, Official]:
    recorded = Recorded(
        home_goals=row.home_goals, away_goals=row.away_goals, outcome=row.outcome, outcome_side=row.outcome_side,
        home_et_goals=row.home_et_goals, away_et_goals=row.away_et_goals,
        home_shootout=row.home_shootout, away_shootout=row.away_shootout,
    )
    try:
        official = official_for(fixture, recorded)
    except ResultError as exc:
        raise ImportFileError(row.line, exc.field if exc.field in REQUIRED + OPTIONAL else None, exc.message) from None
    return recorded, official


def _write_made(made: list[tuple[Fixture, ResultRow]], *, by, now) -> dict[int, int]:
    """Writes a batch of the fixtures the file makes with their official results and their
    history, three statements (the results checked by ``_official_of``); the fixtures' ids are
    reserved first. Returns knockout fixture id -> its line in the file."""
    for (fixture, _row), pk in zip(made, ids_reserve(Fixture, len(made)), strict=True):
        fixture.pk = pk
    results, changes = [], []
    for fixture, row in made:
        recorded, official = _official_of(fixture, row)
        before = fixture_state(fixture, result=None)
        fixture.status, fixture.status_changed_by = status_of(recorded), by if getattr(by, "pk", None) else None
        result = Result(fixture=fixture, **result_values(
            fixture=fixture, recorded=recorded, official=official, source=Result.Source.IMPORT, match=None,
            discipline=(row.home_discipline, row.away_discipline), by=by, now=now))
        results.append(result)
        changes.append(FixtureChange(
            fixture_id=fixture.pk, kind=FixtureChange.Kind.RESULT, at=now, by=by if getattr(by, "pk", None) else None,
            reason=names.IMPORT_LINE % {"line": row.line}, before=before, after=fixture_state(fixture, result=result)))
    objects_insert(Fixture, [fixture for fixture, _row in made], with_pk=True)
    objects_insert(Result, results)
    objects_insert(FixtureChange, changes)
    return {fixture.pk: row.line for fixture, row in made if fixture.round.stage.kind == Stage.Kind.KNOCKOUT}


def _import_row(fixture: Fixture, row: ResultRow, *, update: bool, by, now) -> None:
    """Records the row's result on an existing ``fixture`` (its competition locked), locked and
    checked again (``_check_row``) under the lock."""
    fixture = Fixture.objects.select_for_update(of=("self",)).select_related(
        "round__stage", "home", "away").get(pk=fixture.pk)
    current_result(fixture)  # the result's row locked
    previous, recorded, official = _check_row(fixture, row, update=update)
    before = fixture_state(fixture, result=previous)
    result = result_write(fixture=fixture, recorded=recorded, official=official, source=Result.Source.IMPORT,
                          match=None, discipline=(row.home_discipline, row.away_discipline), by=by, now=now)
    change_record(fixture=fixture, kind=FixtureChange.Kind.CORRECTION if previous else FixtureChange.Kind.RESULT,
                  before=before, after=fixture_state(fixture, result=result), by=by, now=now,
                  reason=names.IMPORT_LINE % {"line": row.line})


_THIRD_PLACE = re.compile(r"third|3rd|bronze|terceiro|tercer|terzo|troisi|dritt", re.I)


def _check_knockouts_go_on(competition: Competition, lines: dict[int, int]) -> None:
    """In the knockout stages, taken in order: an entrant plays once a round, and one beaten
    plays on only in a third-place match or a placement match ("Match for 5th place"). Raises ``ImportFileError`` at the row of the file that
    breaks it (``lines``: fixture id -> its line in the file): the later fixture, or the result
    (a correction) that beat an entrant who had played on."""
    fixtures = (competition.fixtures.filter(round__stage__kind=Stage.Kind.KNOCKOUT)
                .exclude(status__in=(Fixture.Status.ANNULLED, Fixture.Status.CANCELLED))
                .select_related("round__stage", "home", "away", "result")
                .order_by("round__stage__order", "round__number", "position", "pk")
                .iterator(chunk_size=BATCH))  # a bracket of any size, a batch in memory at a time
    beaten: dict[int, tuple[str, int | None]] = {}  # entrant -> where, and the line that says so
    seen_in_round: dict[tuple[int, int], int] = {}
    for fixture in fixtures:
        line = lines.get(fixture.pk)
        where = _("%(round)s of %(stage)s") % {"round": fixture.round, "stage": fixture.round.stage.name}
        third = bool(_THIRD_PLACE.search(f"{fixture.label} {fixture.round.name} {fixture.round.stage.name}")
                     or bracket_layout.band_of_label(fixture.label) or bracket_layout.band_of_label(fixture.round.name))
        for column, entrant in (("home", fixture.home), ("away", fixture.away)):
            if entrant is None:
                continue
            if seen_in_round.setdefault((fixture.round_id, entrant.pk), fixture.pk) != fixture.pk and line:
                raise ImportFileError(line, column, _("%(entrant)s plays twice in %(where)s, a knockout")
                                      % {"entrant": entrant.name, "where": where})
            if entrant.pk in beaten and not third:
                lost_in, lost_line = beaten[entrant.pk]
                if line or lost_line:
                    raise ImportFileError(line or lost_line, column if line else None,
                                          _("%(entrant)s was beaten in %(lost_in)s and cannot play on in %(where)s")
                                          % {"entrant": entrant.name, "lost_in": lost_in, "where": where})
        result = getattr(fixture, "result", None) if hasattr(fixture, "result") else None
        if result is None or third:
            continue
        if result.is_double_no_show:
            losers = [fixture.home, fixture.away]
        elif result.winner_side:
            losers = [fixture.away if result.winner_side == "home" else fixture.home]
        else:
            losers = []
        for loser in losers:
            if loser is not None:
                beaten[loser.pk] = (where, line)


def _round_for(stage: Stage, label: str, cache: dict[tuple[int, str], Round], *, numbered_up_to: int = 0) -> Round:
    """The stage's round ``label``: a number, or a name, which comes after every numbered round
    of the stage and of the file (``numbered_up_to``)."""
    key = (stage.pk, label)
    if key not in cache:
        if label.isdigit() and int(label) >= 1:
            rnd, _ = Round.objects.get_or_create(
                stage=stage, number=int(label),
                defaults={"name": f"Round {label}", "date": stage.competition.round_date(int(label))},
            )
        else:
            rnd = stage.rounds.filter(name__iexact=label).first()
            if rnd is None:
                last = stage.rounds.order_by("-number").values_list("number", flat=True).first() or 0
                rnd = Round.objects.create(stage=stage, number=max(last, numbered_up_to) + 1, name=label)
        cache[key] = rnd
    return cache[key]


def _fixture_of(competition: Competition, rnd: Round, group: Group | None, home: Entrant, away: Entrant) -> Fixture | None:
    """The fixture of the ordered pairing (home, away) in this round and group, if there is one
    (scheduled before the import, or imported before)."""
    return (competition.fixtures.filter(round=rnd, group=group, home=home, away=away)
            .exclude(status__in=(Fixture.Status.ANNULLED, Fixture.Status.BYE)).order_by("pk").first())
