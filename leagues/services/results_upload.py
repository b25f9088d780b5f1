"""A results file brought from the site or the API (COMPETITIONS.md §6): CSV as
``manage.py import_results`` reads it, or XLSX as the site's exports write it, so that a
downloaded export can be corrected in a spreadsheet and uploaded back.

``upload_results_file(upload)`` makes the ``ResultsFile`` of either (an XLSX's first sheet
written out as the import's CSV, within the same limits: ``IMPORT_MAX_BYTES`` on the upload,
``IMPORT_MAX_ROWS`` on its rows). ``results_preview`` is the import done and rolled back: what
each row becomes, what becomes official, the entrants it would make and the standings after,
with nothing saved (a team file's rows with their ``table`` and players). ``results_upload_import`` imports it through ``results_import`` (the
command's service) and recomputes the standings. Both raise ``ImportFileError`` (line, column,
message in the active language) for a refused file: nothing is saved.
"""
from __future__ import annotations

import csv
import io
import tempfile
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from openpyxl import load_workbook
from openpyxl.utils.exceptions import InvalidFileException

from leagues.downloads.cells import QUOTE
from leagues.models import Competition, Fixture, Result
from leagues.services.import_files import (
    ImportFileError,
    ImportTooLarge,
    ResultsFile,
    refuse_over_byte_limit,
)
from leagues.services.imports import (
    ImportSummary,
    results_check,
    results_import,
    results_parse,
)
from leagues.services.standings import competition_tables, standings_recompute
from leagues.services.team_imports import is_team_file, team_results_import, team_rows_parse

ZIP_MAGIC = b"PK\x03\x04"  # an XLSX is a zip archive
PREVIEW_ROWS = 1000  # rows a preview lists (the counts are of the whole file)


def _cell_text(value) -> str:
    """An XLSX cell as the import's CSV reads it: a whole number without ``.0``, a date in ISO
    8601, text as it is (a leading ``'`` doubled: the CSV reader takes one away)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == datetime.min.time() else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    text = str(value)
    return QUOTE + text if text.startswith(QUOTE) else text


def _xlsx_as_csv(upload, *, max_rows: int) -> ResultsFile:
    try:
        book = load_workbook(upload, read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, OSError):
        raise ImportFileError(None, None, _("is not an XLSX workbook that can be read")) from None
    try:
        sheet = book.worksheets[0]
        spool = tempfile.SpooledTemporaryFile(max_size=1024 * 1024)
        text = io.TextIOWrapper(spool, encoding="utf-8", newline="", write_through=True)
        writer = csv.writer(text, lineterminator="\n")
        width = None
        rows = 0
        for values in sheet.iter_rows(values_only=True):
            cells = [_cell_text(v) for v in values]
            if width is None:  # the header: up to its last named column
                width = max((i + 1 for i, c in enumerate(cells) if c.strip()), default=0)
            cells = cells[:width] + [""] * (width - len(cells))
            if any(c.strip() for c in cells):
                rows += 1
                if rows > max_rows + 1:
                    raise ImportTooLarge("IMPORT_MAX_ROWS", max_rows, _(
                        "holds more than %(limit)s rows of results, the most an import takes (setting %(setting)s)")
                        % {"limit": max_rows, "setting": "IMPORT_MAX_ROWS"})
            writer.writerow(cells)
        text.detach()
    finally:
        book.close()
    spool.seek(0)
    return ResultsFile(spool)


def upload_results_file(upload) -> ResultsFile:
    """The ``ResultsFile`` of an upload (binary, seekable: a Django ``UploadedFile``): an XLSX
    (told by its content, not its name) as the CSV of its first sheet, else the CSV itself.
    Raises ``ImportFileError`` (``ImportTooLarge`` over a limit) before anything is saved."""
    refuse_over_byte_limit(upload)
    upload.seek(0)
    head = upload.read(4)
    upload.seek(0)
    if head == ZIP_MAGIC:
        return _xlsx_as_csv(upload, max_rows=settings.IMPORT_MAX_ROWS)
    return ResultsFile(upload)


@dataclass
class PreviewRow:
    """A row of the file and what it becomes: ``kind`` ``new`` (a fixture the file makes),
    ``result`` (a fixture there without a result), ``correction`` (one with a result, replaced
    under ``update``); the official result as the competition's rules make it (§4)."""

    line: int
    stage: str
    group: str
    round: str
    home: str
    away: str
    given: str
    kind: str
    official: str = ""
    outcome: str = ""
    outcome_side: str = ""
    winner: str = ""
    table: int | None = None  # a team file's row: the game's table and players
    home_player: str = ""
    away_player: str = ""


@dataclass
class ImportPreview:
    rows: list[PreviewRow]
    total: int  # rows in the file
    new_entrants: list[str]
    corrections: int
    tables: list[dict] = field(default_factory=list)  # [{"group", "rows": [{position, entrant, ...}]}]


class _RolledBack(Exception):
    pass


def _given(row) -> str:
    if not row.away:
        return _("bye")
    text = f"{row.home_goals}–{row.away_goals}"
    if row.home_et_goals or row.away_et_goals:
        text += " " + _("(extra time %(home)s–%(away)s)") % {"home": row.home_et_goals, "away": row.away_et_goals}
    if row.home_shootout is not None:
        text += " " + _("(shoot-out %(home)s–%(away)s)") % {"home": row.home_shootout, "away": row.away_shootout}
    if row.outcome not in ("played", "bye"):
        text += f" ({row.outcome} {row.outcome_side})"
    return text


def _keys(fixture: Fixture) -> list[tuple]:
    rnd, stage = fixture.round, fixture.round.stage
    group = fixture.group.name.casefold() if fixture.group_id else ""
    home = fixture.home.name.casefold() if fixture.home_id else ""
    away = fixture.away.name.casefold() if fixture.away_id else ""
    base = (stage.name.casefold(), group)
    labels = {str(rnd.number), (rnd.name or "").casefold(), (fixture.label or "").casefold()} - {""}
    return [(*base, label, home, away) for label in labels]


def _row_key(row, competition: Competition) -> tuple:
    stage = row.stage or ("Knockout" if competition.format == Competition.Format.KNOCKOUT else "League")
    return (stage.casefold(), row.group.casefold(), (row.round or "1").casefold(), row.home.casefold(),
            (row.away or "").casefold())


def _fixtures_by_key(competition: Competition) -> dict[tuple, Fixture]:
    fixtures = (Fixture.objects.filter(competition=competition)
                .select_related("round__stage", "group", "home", "away", "result__winner"))
    return {key: f for f in fixtures for key in _keys(f)}


def _tables(competition: Competition) -> list[dict]:
    tables, _lots = competition_tables(competition=competition)
    return [{"group": table.group.name if table.group else "",
             "rows": [{"position": r.position, "shared": r.shared, "entrant": r.name, "played": r.played,
                       "won": r.won, "drawn": r.drawn, "lost": r.lost, "goals_for": r.goals_for,
                       "goals_against": r.goals_against, "goal_difference": r.goal_difference, "points": r.points}
                      for r in table.ranked.rows]}
            for table in tables if table.ranked is not None]


def results_preview(*, competition: Competition, file: ResultsFile, update: bool = False) -> ImportPreview:
    """The import of ``file`` into ``competition`` done in a transaction that is rolled back
    (so its checks are exactly the import's, lock included): nothing is saved, nothing is sent.
    Raises ``ImportFileError`` naming the first refused line and column."""
    competition = Competition.objects.get(pk=competition.pk)
    if is_team_file(competition=competition, file=file):
        return _team_preview(competition=competition, file=file, update=update)
    rows = results_parse(file.lines(), competition=competition)
    results_check(rows, competition=competition, update=update)
    before = _fixtures_by_key(competition)
    resulted = set(Result.objects.filter(fixture__competition=competition).values_list("fixture_id", flat=True))
    had_result = {key for key, f in before.items() if f.pk in resulted}
    names_before = set(competition.entrants.values_list("name", flat=True))
    preview = None
    try:
        with transaction.atomic():
            results_import(file=file, competition=competition, update=update)
            after = _fixtures_by_key(competition)
            shown = []
            for row in rows[:PREVIEW_ROWS]:
                key = _row_key(row, competition)
                kind = "correction" if key in had_result else ("result" if key in before else "new")
                item = PreviewRow(line=row.line, stage=row.stage, group=row.group, round=row.round, home=row.home,
                                  away=row.away, given=_given(row), kind=kind)
                fixture = after.get(key)
                result = getattr(fixture, "result", None) if fixture is not None else None
                if result is not None:
                    _show_official(item, result, winner=result.winner.name if result.winner_id else "")
                shown.append(item)
            preview = _preview(competition, shown, total=len(rows), names_before=names_before)
            raise _RolledBack
    except _RolledBack:
        pass
    return preview


def _team_preview(*, competition: Competition, file: ResultsFile, update: bool) -> ImportPreview:
    """A team file's preview: its games (``table``, the players), done and rolled back."""
    rows = team_rows_parse(file.lines(), competition=competition)
    resulted = set(Result.objects.filter(fixture__competition=competition, fixture__tie__isnull=False)
                   .values_list("fixture_id", flat=True))
    names_before = set(competition.entrants.values_list("name", flat=True))
    preview = None
    try:
        with transaction.atomic():
            games_before = _games_by_key(competition)
            team_results_import(file=file, competition=competition, update=update)
            after = _games_by_key(competition)
            shown = []
            for row in rows[:PREVIEW_ROWS]:
                key = (*_row_key(row.result, competition), row.table)
                there = games_before.get(key)
                kind = "correction" if there is not None and there.pk in resulted else (
                    "result" if there is not None else "new")
                item = PreviewRow(line=row.line, stage=row.result.stage, group=row.result.group,
                                  round=row.result.round, home=row.result.home, away=row.result.away,
                                  given=_given(row.result), kind=kind, table=row.table,
                                  home_player=row.home_player, away_player=row.away_player)
                game = after.get(key)
                result = getattr(game, "result", None) if game is not None else None
                if result is not None:
                    _show_official(item, result, winner=str(
                        game.home_player if result.winner_side == "home" else game.away_player
                        if result.winner_side == "away" else ""))
                shown.append(item)
            preview = _preview(competition, shown, total=len(rows), names_before=names_before)
            raise _RolledBack
    except _RolledBack:
        pass
    return preview


def _show_official(item: PreviewRow, result: Result, *, winner: str) -> None:
    """What a preview row's result became officially: its score, outcome and winner."""
    item.official = f"{result.home_goals}–{result.away_goals}"
    item.outcome, item.outcome_side, item.winner = result.outcome, result.outcome_side, winner


def _preview(competition: Competition, shown: list[PreviewRow], *, total: int, names_before: set[str]) -> ImportPreview:
    """The preview of the rows ``shown`` (of ``total``), read inside the import's transaction:
    the corrections, the entrants it made, the standings after."""
    return ImportPreview(
        rows=shown, total=total, corrections=sum(1 for r in shown if r.kind == "correction"),
        new_entrants=sorted(set(competition.entrants.values_list("name", flat=True)) - names_before),
        tables=_tables(competition))


def _games_by_key(competition: Competition) -> dict[tuple, Fixture]:
    games = (Fixture.with_games.filter(competition=competition, tie__isnull=False)
             .select_related("tie__round__stage", "tie__group", "tie__home", "tie__away", "result", "home_player",
                             "away_player"))
    return {(*key, game.table): game for game in games for key in _keys(game.tie)}


def results_upload_import(*, competition: Competition, file: ResultsFile, update: bool = False,
                          by=None) -> ImportSummary:
    """Imports ``file`` into ``competition`` through ``results_import`` (all or nothing, the
    command's checks and limits), then recomputes its standings as the command does. Raises
    ``ImportFileError``."""
    if is_team_file(competition=competition, file=file):
        summary = team_results_import(file=file, competition=competition, update=update, recorded_by=by)
    else:
        summary = results_import(file=file, competition=competition, update=update, recorded_by=by)
    standings_recompute(competition_id=summary.competition.pk)
    return summary
