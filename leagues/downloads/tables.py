"""A competition's standings, fixtures and results as tables to take away (CSV and XLSX, by
tablib), and the fixtures of a round for its printable sheet.

- ``standings_dataset``: the stored standings, one row per entrant and group, in the columns of
  ``manage.py standings --json`` (COMPETITIONS.md §7) with ``group`` first and ``club`` added;
  a competition with a knockout adds its final placings.
- ``fixtures_dataset``: every fixture but the byes (a Swiss's byes too: they are its rounds'
  fixtures, ``away`` empty), with its kick-off in the competition's zone (ISO 8601 with its
  offset), venue, status and official score.
- ``results_dataset``: the official results in exactly the columns of the results import
  (COMPETITIONS.md §6, ``leagues.services.imports``): a file exported from one competition
  imports into a fresh one and gives the same standings. ``home_goals``/``away_goals`` are the
  goals at the table (for a disqualification, the score when it happened), as the import takes
  them; it applies §4 again. A third-place match is given its label as its round, so that the
  import knows it (its two entrants lost the round before). A Swiss's byes are rows with an
  empty ``away`` (and empty goals), which the import takes back as byes.

A team competition (COMPETITIONS.md §10) carries its games: its fixtures export has each tie's
row followed by a row per game (``tie`` the tie's id, ``table``, ``home_player``,
``away_player``, the game's status and score; the players once the line-ups may be shown), and
its results export is the team file of the import (``leagues.services.team_imports``): a row per
game with a result, its tie's round and teams, its table, players and score, so that it imports
back into a fresh competition with the same team standings.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date

import tablib
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.styles import Font

from leagues.downloads.cells import csv_value, xlsx_cell
from leagues.models import Competition, Fixture, Outcome, Round, Stage, Standing
from leagues.rules import bracket_layout
from leagues.selectors import is_third_place
from leagues.services.imports import OPTIONAL, REQUIRED
from leagues.services.ratings import placings_now
from leagues.services.team_imports import TEAM_COLUMNS
from leagues.services.teams import lineup_visible
from leagues.services.ties import games_of

RESULT_COLUMNS = (*REQUIRED, *OPTIONAL)
STANDINGS_COLUMNS = ("group", "position", "shared", "entrant", "club", "played", "won", "drawn", "lost", "goals_for",
                     "goals_against", "goal_difference", "points", "tiebreak")
FIXTURES_COLUMNS = ("id", "stage", "group", "round", "date", "kickoff", "time_zone", "home", "away", "venue",
                    "status", "home_goals", "away_goals")
TEAM_FIXTURES_COLUMNS = (*FIXTURES_COLUMNS, "tie", "table", "home_player", "away_player")  # a game's row: its tie
FORMATS = {
    "csv": ("text/csv; charset=utf-8", "csv"),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
}


def _fixtures(competition: Competition) -> QuerySet[Fixture]:
    return (Fixture.objects.filter(competition=competition)
            .select_related("round__stage", "group", "home", "away", "result")
            .order_by("round__stage__order", "round__number", "group__name", "position", "pk"))


def _kickoff(fixture: Fixture, competition: Competition) -> str:
    if fixture.kickoff_at is None:
        return ""
    return timezone.localtime(fixture.kickoff_at, competition.zone).isoformat(timespec="minutes")


def _round_label(fixture: Fixture) -> str:
    """The round as the import reads it: its number in a league or group stage; in a knockout,
    its name (the third-place match and the placement matches: their label)."""
    rnd = fixture.round
    if rnd.stage.kind != Stage.Kind.KNOCKOUT:
        return str(rnd.number)
    if (is_third_place(fixture) or bracket_layout.band_of_label(fixture.label)) and fixture.label:
        return fixture.label
    return rnd.name or str(rnd.number)


def standings_dataset(competition: Competition) -> tablib.Dataset:
    """The stored standings (a league's, a group stage's), then, for a competition with a
    knockout, its final placings as the results stand (``leagues.services.ratings.placings_now``:
    ``group`` "Final placings", ``position`` the first place of the band, ``shared`` when the band
    is shared, the counts empty). ``position`` is a number, ``shared`` a boolean."""
    data = tablib.Dataset(headers=list(STANDINGS_COLUMNS), title=_("Standings"))
    rows = (Standing.objects.filter(competition=competition).select_related("entrant__club", "group")
            .order_by("group__name", "position", "entrant__name"))
    for row in rows:
        data.append([
            row.group.name if row.group_id else "", row.position, bool(row.shared),
            row.entrant.name, row.entrant.club.name if row.entrant.club_id else "",
            row.played, row.won, row.drawn, row.lost, row.goals_for, row.goals_against,
            row.goal_difference, row.points, row.tiebreak,
        ])
    if competition.stages.filter(kind=Stage.Kind.KNOCKOUT).exists():
        bands = placings_now(competition=competition)
        entrants = {e.pk: e for e in competition.entrants.filter(pk__in=bands).select_related("club")}
        label = _("Final placings")
        for pk, band in sorted(bands.items(), key=lambda item: (item[1].place, item[1].place_to,
                                                                entrants[item[0]].name)):
            entrant = entrants[pk]
            data.append([label, band.place, band.shared, entrant.name,
                         entrant.club.name if entrant.club_id else "", *[""] * (len(STANDINGS_COLUMNS) - 5)])
    return data


def _fixture_row(fixture: Fixture, competition: Competition, *, tie: Fixture | None = None) -> list:
    shown = tie or fixture  # a game's stage, group, round and kick-off are its tie's
    result = getattr(fixture, "result", None) if fixture.status in Fixture.RESULTED else None
    return [
        fixture.pk, shown.round.stage.name, shown.group.name if shown.group_id else "",
        _round_label(shown), fixture.date.isoformat() if fixture.date else "",
        _kickoff(fixture, competition), competition.time_zone,
        fixture.home.name if fixture.home_id else "", fixture.away.name if fixture.away_id else "",
        fixture.effective_venue, fixture.status,
        result.home_goals if result else "", result.away_goals if result else "",
    ]


def _games_by_tie(competition: Competition) -> dict[int, list[Fixture]]:
    """Each tie's games, table by table, with their players and results (one query)."""
    games: dict[int, list[Fixture]] = {}
    for game in (Fixture.with_games.filter(competition=competition, tie__isnull=False)
                 .select_related("home", "away", "home_player", "away_player", "result", "competition")
                 .order_by("tie_id", "table")):
        games.setdefault(game.tie_id, []).append(game)
    return games


def _hall_table(fixture: Fixture, games: list[Fixture] | None = None) -> int | str:
    """The hall table a fixture is or was called to (a number; empty when never); a team tie's:
    its games' tables ("3 4 5 6")."""
    if games is not None:
        return " ".join(str(game.hall_table) for game in games if game.hall_table is not None)
    return _blank(fixture.hall_table)


def fixtures_dataset(competition: Competition) -> tablib.Dataset:
    """Every fixture but the byes; a team competition's ties each followed by their games
    (``TEAM_FIXTURES_COLUMNS``: the players blank while the line-ups are hidden); a competition
    with hall tables adds ``hall_table`` (``_hall_table``)."""
    team, hall = competition.is_team, bool(competition.tables)
    columns = list(TEAM_FIXTURES_COLUMNS if team else FIXTURES_COLUMNS) + (["hall_table"] if hall else [])
    data = tablib.Dataset(headers=columns, title=_("Fixtures"))
    fixtures = _fixtures(competition)
    if competition.format != Competition.Format.SWISS:
        fixtures = fixtures.exclude(status=Fixture.Status.BYE)
    games = _games_by_tie(competition) if team else {}
    now = timezone.now()
    for fixture in fixtures:
        if not team:
            data.append([*_fixture_row(fixture, competition), *([_hall_table(fixture)] if hall else [])])
            continue
        tie_games = games.get(fixture.pk, [])
        data.append([*_fixture_row(fixture, competition), "", "", "", "",
                     *([_hall_table(fixture, tie_games)] if hall else [])])
        fixture.competition = competition
        shown = {side: lineup_visible(fixture, side, user=None, now=now) for side in ("home", "away")}
        for game in tie_games:
            players = [getattr(game, f"{side}_player") if shown[side] else None for side in ("home", "away")]
            data.append([*_fixture_row(game, competition, tie=fixture), fixture.pk, game.table,
                         *[player.full_name if player is not None else "" for player in players],
                         *([_hall_table(game)] if hall else [])])
    return data


def _blank(value: int | None) -> int | str:
    return "" if value is None else value


def results_dataset(competition: Competition) -> tablib.Dataset:
    """The official results (played and walkovers), and a Swiss's byes (its rounds' fixtures: a
    row with an empty away); a league's or a knockout's byes are left out (its schedule makes them).
    A team competition's: its games (``team_results_dataset``)."""
    if competition.is_team:
        return team_results_dataset(competition)
    data = tablib.Dataset(headers=list(RESULT_COLUMNS), title=_("Results"))
    resulted = Q(status__in=Fixture.RESULTED, result__isnull=False, home__isnull=False, away__isnull=False)
    if competition.format == Competition.Format.SWISS:
        resulted |= Q(status=Fixture.Status.BYE, home__isnull=False, away__isnull=True)
    fixtures = _fixtures(competition).filter(resulted).exclude(result__outcome=Outcome.BYE)
    for fixture in fixtures:
        if fixture.status == Fixture.Status.BYE:
            values = dict.fromkeys(RESULT_COLUMNS, "")
            values.update(home=fixture.home.name, stage=fixture.round.stage.name, round=_round_label(fixture),
                          date=fixture.date.isoformat() if fixture.date else "")
            data.append([values[column] for column in RESULT_COLUMNS])
            continue
        result = fixture.result
        values = {
            "home": fixture.home.name, "away": fixture.away.name,
            "home_goals": result.table_home_goals, "away_goals": result.table_away_goals,
            "stage": fixture.round.stage.name, "group": fixture.group.name if fixture.group_id else "",
            "round": _round_label(fixture), "date": fixture.date.isoformat() if fixture.date else "",
            "outcome": result.outcome, "outcome_side": result.outcome_side,
            "home_et_goals": result.home_et_goals, "away_et_goals": result.away_et_goals,
            "home_shootout": _blank(result.home_shootout), "away_shootout": _blank(result.away_shootout),
            "home_discipline": result.home_discipline, "away_discipline": result.away_discipline,
        }
        data.append([values[column] for column in RESULT_COLUMNS])
    return data


def team_results_dataset(competition: Competition) -> tablib.Dataset:
    """A team competition's official game results as the team file of the import (``TEAM_COLUMNS``):
    a row per game with a result, tie by tie in the order of the fixtures, table by table."""
    data = tablib.Dataset(headers=list(TEAM_COLUMNS), title=_("Results"))
    games = _games_by_tie(competition)
    for tie in _fixtures(competition).exclude(status=Fixture.Status.BYE).filter(home__isnull=False, away__isnull=False):
        for game in games.get(tie.pk, []):
            result = getattr(game, "result", None) if game.status in Fixture.RESULTED else None
            if result is None:
                continue
            values = {
                "round": _round_label(tie), "home": tie.home.name, "away": tie.away.name, "table": game.table,
                "home_player": game.home_player.full_name if game.home_player_id else "",
                "away_player": game.away_player.full_name if game.away_player_id else "",
                "home_goals": result.table_home_goals, "away_goals": result.table_away_goals,
                "stage": tie.round.stage.name, "group": tie.group.name if tie.group_id else "",
                "date": tie.date.isoformat() if tie.date else "",
                "outcome": result.outcome, "outcome_side": result.outcome_side,
                "home_et_goals": result.home_et_goals, "away_et_goals": result.away_et_goals,
                "home_shootout": _blank(result.home_shootout), "away_shootout": _blank(result.away_shootout),
                "home_discipline": result.home_discipline, "away_discipline": result.away_discipline,
            }
            data.append([values[column] for column in TEAM_COLUMNS])
    return data


DATASETS = {"standings": standings_dataset, "fixtures": fixtures_dataset, "results": results_dataset}


def export(competition: Competition, what: str, fmt: str) -> bytes:
    """``what`` (standings, fixtures, results) of ``competition`` as ``fmt`` (csv, xlsx) bytes,
    every text cell guarded (``leagues.downloads.cells``): no cell is a formula. Raises
    ``KeyError`` for another ``what`` or ``fmt``."""
    data = DATASETS[what](competition)
    if fmt not in FORMATS:
        raise KeyError(fmt)
    if fmt == "csv":
        return csv_bytes(data)
    return xlsx_bytes(data)


def csv_bytes(data: tablib.Dataset) -> bytes:
    """``data`` as UTF-8 CSV: the header, then its rows; text quoted (so that a ``;`` or a
    newline in a name never starts a cell of its own, whatever separator the spreadsheet
    expects) and guarded, numbers bare."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(data.headers)
    writer.writerows([csv_value(value) for value in row] for row in data)
    return out.getvalue().encode("utf-8")


def xlsx_bytes(data: tablib.Dataset) -> bytes:
    """``data`` as an XLSX workbook of one sheet named after its title: the header in bold and
    frozen, then its rows; text cells typed string (never formula), numbers numbers."""
    book = Workbook(write_only=True)
    sheet = book.create_sheet(title=data.title)
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)
    header = []
    for name in data.headers:
        cell = xlsx_cell(sheet, name)
        cell.font = bold
        header.append(cell)
    sheet.append(header)
    for row in data:
        sheet.append([xlsx_cell(sheet, value) for value in row])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@dataclass
class RoundSheet:
    """One round's printable sheet: its fixtures (byes apart) and the day it is played."""

    round: Round
    fixtures: list[Fixture]
    byes: list[Fixture]
    day: date | None


def round_sheet(competition: Competition, rnd: Round) -> RoundSheet:
    fixtures = list(_fixtures(competition).filter(round=rnd).select_related("home__club", "away__club"))
    playing = [f for f in fixtures if f.status != Fixture.Status.BYE]
    if competition.is_team:  # a line per table, with its players once the line-ups may be shown
        now = timezone.now()
        for tie in playing:
            shown = {side: lineup_visible(tie, side, user=None, now=now) for side in ("home", "away")}
            tie.sheet_games = list(games_of(tie).select_related("home_player", "away_player", "result"))
            for game in tie.sheet_games:
                game.sheet_home = game.home_player if shown["home"] else None
                game.sheet_away = game.away_player if shown["away"] else None
    days = sorted({timezone.localtime(f.kickoff_at, competition.zone).date() if f.kickoff_at else f.date
                   for f in playing if f.kickoff_at or f.date})
    return RoundSheet(round=rnd, fixtures=playing, byes=[f for f in fixtures if f.status == Fixture.Status.BYE],
                      day=days[0] if days else rnd.date)
