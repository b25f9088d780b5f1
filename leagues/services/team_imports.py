"""The results file of a team competition (COMPETITIONS.md §6, §10): one row per game of a tie,
imported whole or not at all, through the same command, upload and limits as the single file
(``leagues.services.imports``).

A **team file** is the file of a competition whose ``entrant_kind`` is ``team``; a competition
the import creates (``--create``) is a team competition when the file's header has a ``table``
column (``tables_per_tie``: the file's highest table; ``tie_points``: ``--points``). Columns:
``round``, ``home`` and ``away`` (the teams), ``table`` (1 to 8), ``home_player``,
``away_player`` (a player's full name or licence number), ``home_goals``, ``away_goals``;
optional, as the single file's for a game: ``stage``, ``group``, ``date``, ``outcome``,
``outcome_side``, ``home_et_goals``, ``away_et_goals``, ``home_shootout``, ``away_shootout``,
``home_discipline``, ``away_discipline`` (a game may end drawn, so the rules refuse extra time
and shoot-outs on one).

Every row is checked first (``team_rows_parse``: its columns, each game once, a player at one
table of a tie and for one team of the file); then, in one transaction under the competition's
lock, ``team_results_import`` finds or makes the teams (in a competition with entrants, a name
that is none of them is refused), finds each player in the registry (a licence number, or a full
name that one player holds: the registry's players only; an unknown or ambiguous name is refused)
and in its team's squad (added when in no squad of the competition; in another team's squad:
refused), finds or makes each tie and its games, puts the file's players at each table and
records each game's result (a game with a result already is refused unless ``update``, which
corrects it); then each tie is derived from its games (``results.settle``). The first problem
raises ``ImportFileError`` with its line and column and nothing is saved.
"""
from __future__ import annotations

import csv
import functools
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Value
from django.db.models.functions import Concat, Lower
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from leagues import names
from leagues.models import (
    Club,
    Competition,
    Entrant,
    EntrantKind,
    Fixture,
    FixtureChange,
    Group,
    Player,
    Result,
    SquadMember,
    Stage,
    Venue,
)
from leagues.services.history import change_record, fixture_state
from leagues.services.import_files import ImportFileError, ResultsFile
from leagues.services.imports import (
    ImportSummary,
    ResultRow,
    _add_members,
    _check_knockouts_go_on,
    _competition_save,
    _default_stage,
    _groups_of,
    _official_of,
    _round_for,
    _row,
    _text,
    csv_records,
    is_knockout_stage,
    season_for,
)
from leagues.services.locks import lock_competition
from leagues.services.results import ResultConflict, current_result, result_write, settle
from leagues.services.ties import games_create, games_of

TEAM_REQUIRED = ("round", "home", "away", "table", "home_player", "away_player", "home_goals", "away_goals")
TEAM_OPTIONAL = ("stage", "group", "date", "outcome", "outcome_side", "home_et_goals", "away_et_goals",
                 "home_shootout", "away_shootout", "home_discipline", "away_discipline")
TEAM_COLUMNS = TEAM_REQUIRED + TEAM_OPTIONAL
MAX_TABLES = 8  # Competition.tables_per_tie
PLAYER_NAME_MAX = 161  # a first and a last name of 80, and the space between


@dataclass(slots=True)
class GameRow:
    """A row of a team file: the game's result (``result``: the single file's row, ``home`` and
    ``away`` the teams) at ``table`` between ``home_player`` and ``away_player``."""

    result: ResultRow
    table: int
    home_player: str | Player | None  # the name or licence number read; the player once found ("": nobody)
    away_player: str | Player | None

    @property
    def line(self) -> int:
        return self.result.line

    def tie_key(self, competition: Competition) -> tuple[str, str, str, str, str]:
        row = self.result
        return ((row.stage or _default_stage(competition)).casefold(), row.group.casefold(),
                (row.round or "1").casefold(), row.home.casefold(), row.away.casefold())


def header_of(file: ResultsFile) -> list[str]:
    """The file's header row, its names stripped (empty: no header)."""
    try:
        return [name.strip() for name in next(csv.reader(file.lines()), [])]
    except csv.Error:
        return []


def is_team_file(*, competition: Competition, file: ResultsFile) -> bool:
    """Whether ``file`` is read as a team file: a saved competition's ``entrant_kind`` says so; a
    competition the import creates is a team competition when the header has a ``table`` column."""
    if competition.pk is not None:
        return competition.is_team
    return "table" in header_of(file)


def _table(raw: str, *, line: int, most: int) -> int:
    raw = (raw or "").strip()
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= most:
        raise ImportFileError(line, "table", _("must be a table of the tie, a whole number from 1 to %(most)s, not "
                                               "%(raw)r") % {"most": most, "raw": raw})
    return int(raw)


def team_rows_parse(lines: Iterable[str], *, competition: Competition) -> list[GameRow]:
    """Reads and checks every row of a team file (``lines``: ``ResultsFile.lines()``) against its
    columns and §4 for a game (never a knockout match: a tie's game may end drawn). Each game
    (tie and table) once; a player once in a tie, and for one team in the whole file. Raises
    ``ImportFileError`` at the first problem."""
    reader = csv.reader(lines)
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        raise ImportFileError(1, None, _("the file is empty; it needs a header row")) from None
    except csv.Error as exc:
        raise ImportFileError(1, None, _("is not readable CSV (%(error)s)") % {"error": exc}) from None
    seen: set[str] = set()
    for name in header:
        if name not in TEAM_COLUMNS:
            raise ImportFileError(1, name or _("(empty)"), _("unknown column of a team file; its columns are "
                                                              "%(columns)s") % {"columns": ", ".join(TEAM_COLUMNS)})
        if name in seen:
            raise ImportFileError(1, name, _("appears twice"))
        seen.add(name)
    for name in TEAM_REQUIRED:
        if name not in seen:
            raise ImportFileError(1, name, _("required column of a team file missing"))
    most = competition.tables_per_tie if competition.pk is not None else MAX_TABLES
    rows: list[GameRow] = []
    games: dict[tuple, int] = {}
    in_tie: dict[tuple, int] = {}  # (tie, side, player) -> line
    team_of: dict[str, tuple[str, int]] = {}  # player -> (team, line)
    for line, raw in csv_records(reader, header):
        if not raw.get("away"):
            raise ImportFileError(line, "away", _("is empty; give the team's name"))
        table = _table(raw["table"], line=line, most=most)
        if not raw.get("round"):
            raise ImportFileError(line, "round", _("is empty; give the round's number or name"))
        result = _row({k: v for k, v in raw.items() if k in TEAM_OPTIONAL or k in ("round", "home", "away",
                                                                                     "home_goals", "away_goals")},
                      line=line, competition=competition, knockout=lambda _stage: False)
        for side, column in (("home", "home_player"), ("away", "away_player")):
            _text(raw, column, line=line, max_length=PLAYER_NAME_MAX)
            absent = result.outcome == "walkover" and result.outcome_side in (side, "both")
            if not raw.get(column) and not absent:  # an empty table is a walkover against its side
                raise ImportFileError(line, column, _("is empty; give the player's name or licence number (only the "
                                                      "side that did not show in a walkover may have none)"))
        row = GameRow(result=result, table=table, home_player=raw["home_player"], away_player=raw["away_player"])
        tie = row.tie_key(competition)
        if (tie, table) in games:
            raise ImportFileError(line, "table", _("table %(table)s of %(home)s v %(away)s is already on line "
                                                   "%(line)s; a game is played once") % {
                "table": table, "home": result.home, "away": result.away, "line": games[(tie, table)]})
        games[(tie, table)] = line
        for side, column in (("home", "home_player"), ("away", "away_player")):
            player, team = getattr(row, column).casefold(), getattr(result, side)
            if not player:
                continue
            if (tie, player) in in_tie:
                raise ImportFileError(line, column, _("%(player)s already plays in this tie (line %(line)s): a "
                                                      "player is at one table of a tie") % {
                    "player": getattr(row, column), "line": in_tie[(tie, player)]})
            in_tie[(tie, player)] = line
            earlier = team_of.setdefault(player, (team, line))
            if earlier[0].casefold() != team.casefold():
                raise ImportFileError(line, column, _("%(player)s plays for %(team)s on line %(line)s: a player is "
                                                      "in one team's squad per competition") % {
                    "player": getattr(row, column), "team": earlier[0], "line": earlier[1]})
        rows.append(row)
    if not rows:
        raise ImportFileError(2, None, _("no results after the header"))
    return rows


class _Players:
    """The registry's players a team file names, found by licence number or by a full name one
    player holds (read once for the file); each one's squad in the competition."""

    def __init__(self, competition: Competition, rows: list[GameRow]):
        wanted = {getattr(row, c).casefold() for row in rows for c in ("home_player", "away_player")} - {""}
        self.by_licence = {p.licence_number.casefold(): p for p in Player.objects.filter(
            licence_number__in={getattr(row, c) for row in rows for c in ("home_player", "away_player")})}
        self.by_name: dict[str, list[Player]] = {}
        full_name = Lower(Concat("first_name", Value(" "), "last_name"))
        for player in Player.objects.annotate(full=full_name).filter(full__in={name.lower() for name in wanted}):
            if player.full_name.casefold() in wanted:
                self.by_name.setdefault(player.full_name.casefold(), []).append(player)
        self.squad = {m.player_id: m for m in SquadMember.objects.filter(competition=competition)
                      .select_related("entrant")}

    def find(self, text: str, *, line: int, column: str) -> Player:
        player = self.by_licence.get(text.casefold())
        if player is not None:
            return player
        found = self.by_name.get(text.casefold(), [])
        if not found:
            raise ImportFileError(line, column, _("no player of the registry has the licence number or the name "
                                                  "%(name)r: register him first, or give his licence number")
                                  % {"name": text})
        if len(found) > 1:
            raise ImportFileError(line, column, _("%(count)s players are named %(name)r: give his licence number")
                                  % {"count": len(found), "name": text})
        return found[0]


def team_results_import(*, competition: Competition, file: ResultsFile, recorded_by=None, update: bool = False
                        ) -> ImportSummary:
    """Imports the team file ``file`` into ``competition`` (saved here when new, as a team
    competition of the file's highest table), all in one transaction: see the module. Raises
    ``ImportFileError`` (nothing saved) or ``imports.CompetitionExists``. Returns the summary
    (``results``: the games recorded; ``entrants_created``: the teams made)."""
    created = competition.pk is None
    if not created:
        competition = Competition.objects.get(pk=competition.pk)
    rows = team_rows_parse(file.lines(), competition=competition)
    now = timezone.now()
    if created:
        competition.slug = competition.slug or slugify(competition.name)
        competition.venue = Venue.TABLE
        competition.entrant_kind = EntrantKind.TEAM
        competition.tables_per_tie = max(row.table for row in rows)
        competition.tie_points = [competition.points_win, competition.points_draw, competition.points_loss]
        if competition.season_id is None:
            competition.season = season_for([row.result for row in rows])
    with transaction.atomic():
        if created:
            _competition_save(competition)
        competition = lock_competition(competition.pk)
        teams_made = _games_write(competition, rows, update=update, by=recorded_by, now=now)
    return ImportSummary(competition=competition, created=created, results=len(rows), entrants_created=teams_made)


def _teams_of(competition: Competition, rows: list[GameRow]) -> tuple[dict[str, Entrant], int]:
    """Folded team name -> its entrant, the new ones made (a club of that name, when there is
    one, is theirs); in a competition with entrants, a name that is none of them is refused."""
    teams = {e.name.casefold(): e for e in competition.entrants.all()}
    closed = bool(teams)
    made = 0
    for row in rows:
        for column in ("home", "away"):
            name = getattr(row.result, column)
            if name.casefold() in teams:
                continue
            if closed:
                raise ImportFileError(row.line, column, _("no team named %(name)r in %(competition)s")
                                      % {"name": name, "competition": competition.slug})
            club = Club.objects.filter(name__iexact=name).first()
            if club is not None and competition.entrants.filter(club=club).exists():
                club = None  # a second team of one club: "Botonera B"
            teams[name.casefold()] = Entrant.objects.create(competition=competition, name=name, club=club)
            made += 1
    return teams, made


def _games_write(competition: Competition, rows: list[GameRow], *, update: bool, by, now) -> int:
    """Writes the checked ``rows`` (the competition locked, in the caller's transaction): teams,
    squads, ties, games and their results, then ``settle``. Returns how many teams were made."""
    fold = functools.cache(str.casefold)
    default = _default_stage(competition)
    teams, made = _teams_of(competition, rows)
    players = _Players(competition, rows)
    stages = {s.name.casefold(): s for s in competition.stages.all()}
    next_order = max((s.order for s in stages.values()), default=0) + 1
    wanted_groups: dict[tuple[int, str], None] = {}
    for row in rows:
        name = row.result.stage or default
        if fold(name) not in stages:
            kind = (Stage.Kind.KNOCKOUT if is_knockout_stage(row.result.stage, competition=competition)
                    else Stage.Kind.GROUPS if row.result.group else Stage.Kind.LEAGUE)
            stages[fold(name)] = Stage.objects.create(competition=competition, order=next_order, name=name, kind=kind)
            next_order += 1
        if row.result.group:
            wanted_groups[(stages[fold(name)].pk, row.result.group)] = None
    groups = _groups_of(competition, wanted_groups)
    members: dict[int, set[int]] = {}
    rounds: dict = {}
    ties: dict[tuple, Fixture] = {}
    lines: dict[int, int] = {}
    squad_added: list[SquadMember] = []
    for row in rows:
        result = row.result
        stage = stages[fold(result.stage or default)]
        group_id = groups[(stage.pk, result.group)] if result.group else None
        home, away = teams[fold(result.home)], teams[fold(result.away)]
        if group_id is not None:
            members.setdefault(group_id, set()).update((home.pk, away.pk))
        rnd = _round_for(stage, result.round or "1", rounds)
        key = row.tie_key(competition)
        if key not in ties:
            ties[key] = _tie_for(competition, rnd, group_id, home, away, day=result.date or rnd.date, now=now)
            lines.setdefault(ties[key].pk, row.line)
        for side, column in (("home", "home_player"), ("away", "away_player")):
            team = home if side == "home" else away
            if not getattr(row, column):
                setattr(row, column, None)  # nobody at this side of the table: its walkover
                continue
            player = players.find(getattr(row, column), line=row.line, column=column)
            member = players.squad.get(player.pk)
            if member is None:
                member = SquadMember(competition=competition, entrant=team, player=player, added_at=now)
                players.squad[player.pk] = member
                squad_added.append(member)
            elif member.entrant_id != team.pk:
                raise ImportFileError(row.line, column, _("%(player)s is in the squad of %(team)s, not of %(other)s")
                                      % {"player": player.full_name, "team": member.entrant.name, "other": team.name})
            setattr(row, column, player)  # the name read, the player found
    SquadMember.objects.bulk_create(squad_added)
    games_create(competition=competition, now=now)
    for row in rows:
        tie = ties[row.tie_key(competition)]
        game = games_of(tie).select_for_update(of=("self",)).select_related("round__stage", "home", "away").filter(
            table=row.table).first()
        if game is None:
            raise ImportFileError(row.line, "table", _("this tie has %(count)s tables") % {
                "count": competition.tables_per_tie})
        game.competition = competition
        _game_write(game, row, update=update, by=by, now=now)
    _add_members(members, existing=_members_there(competition))
    try:
        settle(competition=competition, by=by, now=now)
    except ResultConflict as exc:
        raise ImportFileError(rows[-1].line, None, exc.detail) from None
    _check_knockouts_go_on(competition, lines)
    return made


def _members_there(competition: Competition) -> set[tuple[int, int]]:
    through = Group.entrants.through
    return set(through.objects.filter(group__stage__competition=competition).values_list("group_id", "entrant_id"))


def _tie_for(competition: Competition, rnd, group_id: int | None, home: Entrant, away: Entrant, *, day, now
             ) -> Fixture:
    """The tie of (home, away) in this round and group: there already, or made (its games follow)."""
    tie = (Fixture.objects.filter(competition=competition, round=rnd, group_id=group_id, home=home, away=away)
           .exclude(status__in=(Fixture.Status.ANNULLED, Fixture.Status.BYE)).order_by("pk").first())
    if tie is not None:
        return tie
    position = (Fixture.objects.filter(competition=competition, round=rnd, group_id=group_id)
                .order_by("-position").values_list("position", flat=True).first())
    return Fixture.objects.create(competition=competition, round=rnd, group_id=group_id,
                                  position=0 if position is None else position + 1, home=home, away=away, date=day,
                                  kickoff_at=competition.kickoff_on(day), status_changed_at=now, playable_since=now)


def _game_write(game: Fixture, row: GameRow, *, update: bool, by, now) -> None:
    """Puts the row's players at ``game``'s table and records its result, checked as the single
    import checks a fixture there already (a result there needs ``update``; a match under way or
    a game that takes no result is refused)."""
    result_row = row.result
    previous = current_result(game)
    if previous is not None and not update:
        raise ImportFileError(row.line, "home", _("table %(table)s of %(home)s v %(away)s already has a result "
                                                  "(%(result)s); give --update to correct it") % {
            "table": row.table, "home": result_row.home, "away": result_row.away, "result": previous})
    if game.match_id is not None and game.match.is_started:
        raise ImportFileError(row.line, None, _("table %(table)s of %(home)s v %(away)s is played online and its "
                                                "match has started: its result comes from the match") % {
            "table": row.table, "home": result_row.home, "away": result_row.away})
    if game.status not in Fixture.OPEN | Fixture.RESULTED:
        raise ImportFileError(row.line, None, _("table %(table)s of %(home)s v %(away)s is %(status)s and takes no "
                                                "result") % {"table": row.table, "home": result_row.home,
                                                             "away": result_row.away,
                                                             "status": game.get_status_display().lower()})
    before = fixture_state(game, result=previous)
    wanted = tuple(player.pk if player is not None else None for player in (row.home_player, row.away_player))
    if (game.home_player_id, game.away_player_id) != wanted:
        game.home_player, game.away_player = row.home_player, row.away_player
        game.save(update_fields=["home_player", "away_player"])
    recorded, official = _official_of(game, result_row)
    result = result_write(fixture=game, recorded=recorded, official=official, source=Result.Source.IMPORT,
                          match=None, discipline=(result_row.home_discipline, result_row.away_discipline), by=by,
                          now=now)
    change_record(fixture=game, kind=FixtureChange.Kind.CORRECTION if previous else FixtureChange.Kind.RESULT,
                  before=before, after=fixture_state(game, result=result), by=by, now=now,
                  reason=names.IMPORT_LINE % {"line": row.line})

