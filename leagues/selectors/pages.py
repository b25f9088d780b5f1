"""The reads of the site's pages: the lists of fixtures and competitions, the stored tables
marked for the knockout, the knockout's columns and its placement matches, for ``leagues.views``; no writes."""
from __future__ import annotations

from django.db.models import F, Q

from leagues.models import Competition, Entrant, Fixture, Standing
from leagues.rules import bracket_layout
from leagues.rules import double_elimination as de
from leagues.rules.standings import CRITERIA
from leagues.selectors import is_third_place, knockout_rounds, related_count
from leagues.services.best_thirds import next_placed_ranking
from leagues.services.standings import competition_tables


def fixtures_qs():
    return Fixture.objects.select_related(
        "competition", "round__stage", "group", "home__club", "away__club", "home__player", "away__player",
        "result", "match",
    )


def competitions_with_progress():
    return Competition.objects.select_related("season").annotate(
        entrant_count=related_count(Entrant),
        fixture_count=related_count(Fixture, filter=~Q(status=Fixture.Status.BYE)),
        done_count=related_count(Fixture, filter=Q(status__in=Fixture.RESULTED)),
        open_count=related_count(Fixture, filter=Q(status__in=Fixture.OPEN)),
    )


def latest_results(qs=None, limit: int = 8):
    qs = fixtures_qs() if qs is None else qs
    return list(
        qs.filter(status__in=Fixture.RESULTED, result__isnull=False)
        .order_by("-date", "-status_changed_at", "-pk")[:limit]
    )


def next_fixtures(qs=None, limit: int = 8):
    qs = fixtures_qs() if qs is None else qs
    return list(
        qs.filter(status__in=Fixture.OPEN, home__isnull=False, away__isnull=False)
        # a fixture called to a hall table plays now: first (COMPETITIONS.md §12)
        .order_by(F("called_at").asc(nulls_last=True), "kickoff_at", "date", "round__stage__order",
                  "round__number", "position")[:limit]
    )


def tables_with_qualifiers(competition: Competition) -> list[dict]:
    """The stored tables, each row marked ``qualifies`` in a group that fills a knockout (the top
    of the table, the withdrawn passed over), and each table's ``shared_places`` there: places
    the criteria could not separate, which the knockout waits for."""
    tables: list[dict] = []
    by_group: dict = {}
    rows = Standing.objects.filter(competition=competition).select_related("entrant__club", "entrant__player", "group")
    for row in rows.order_by("group__name", "position", "entrant__name"):
        key = row.group.name if row.group_id else None
        if key not in by_group:
            by_group[key] = {"group": key, "rows": [], "shared_places": []}
            tables.append(by_group[key])
        by_group[key]["rows"].append(row)
    if competition.format == Competition.Format.GROUPS_KNOCKOUT:
        for table in tables:
            going = [r for r in table["rows"] if not r.entrant.withdrawn][:competition.qualifiers_per_group]
            for row in going:
                row.qualifies = True
            table["shared_places"] = sorted({r.position for r in going if r.shared})
    return tables


def next_placed_table(competition: Competition) -> dict | None:
    """The best next-placed across the groups as they stand (``leagues.services.best_thirds``),
    for the page under the groups: ``rows`` ([{"row": NextRow, "entrant": Entrant}], the
    qualifiers marked), ``criteria`` (the comparable ones), ``place`` (3: the third-placed),
    ``left_out_below`` (UEFA's rule for unequal groups, or ``None``), ``decided``, ``best``;
    ``None`` when the competition takes no best next-placed or has no groups yet."""
    if competition.format != Competition.Format.GROUPS_KNOCKOUT or competition.best_thirds < 1:
        return None
    tables, _lots = competition_tables(competition=competition)
    withdrawn = set(competition.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))
    ranking = next_placed_ranking(competition=competition, tables=tables, passed_over=withdrawn)
    if ranking is None or not ranking.rows:
        return None
    entrants = competition.entrants.select_related("club", "player").in_bulk([r.entrant for r in ranking.rows])
    return {
        "rows": [{"row": row, "entrant": entrants[row.entrant]} for row in ranking.rows],
        "criteria": [CRITERIA[key] for key in ranking.criteria],
        "place": competition.qualifiers_per_group + 1, "best": competition.best_thirds,
        "left_out_below": ranking.left_out_below, "decided": ranking.decided,
    }


def bracket_columns(competition: Competition) -> tuple[list[dict], list[dict]]:
    """The knockout stages as columns of fixtures, round after round, and the matches for the
    places below apart (``bracket_split``)."""
    return bracket_split(knockout_rounds(competition=competition, fixtures_qs=fixtures_qs()))


def _places_below(fixture: Fixture) -> tuple[int, int] | None:
    """The places a fixture below the final's plays for, by its label or (a cup imported from
    a results file, whose rounds carry the names) its round's name; ``None`` in the main bracket."""
    if is_third_place(fixture):
        return (3, 4)
    return bracket_layout.band_of_label(fixture.label) or bracket_layout.band_of_label(fixture.round.name)


def bracket_split(rounds: list[tuple]) -> tuple[list[dict], list[dict]]:
    """From the knockout rounds (``[(round, [fixture, ...]), ...]``): the main bracket's columns
    (``{"round", "fixtures"}``) and, apart, the matches for the places below the final's (the
    third-place match, the placement matches), grouped by what they play for, higher places
    first: ``{"label", "fixtures"}``."""
    columns: list[dict] = []
    below: dict[str, dict] = {}
    for rnd, fixtures in rounds:
        main = []
        for fixture in fixtures:
            band = _places_below(fixture)
            if band is None:
                main.append(fixture)
                continue
            label = fixture.label or fixture.round.name
            group = below.setdefault(label, {"label": label, "band": band, "fixtures": []})
            group["fixtures"].append(fixture)
        if main:
            columns.append({"round": rnd, "fixtures": main})
    return columns, sorted(below.values(), key=lambda g: (g["band"][0], -g["band"][1]))


# what a list of fixtures never prints: an online match's state, log and settings (JSON that
# can be large), and a result's reason
LIST_DEFERRED = ("match__state", "match__initial_state", "match__log_result", "match__rule_params",
                 "match__sides", "match__url", "match__title", "result__reason")


def competition_fixtures(competition: Competition) -> list[Fixture]:
    """Every fixture of ``competition`` in the order of its page: stage, round, group,
    position; without what a list never prints (``LIST_DEFERRED``)."""
    return list(
        Fixture.objects.filter(competition=competition)
        .select_related("round__stage", "group", "home__club", "away__club", "home__player", "away__player",
                        "result", "match")
        .defer(*LIST_DEFERRED)
        .order_by("round__stage__order", "round__number", "group__name", "position"))


def double_elimination_brackets(rounds: list[tuple]) -> list[dict]:
    """From the knockout rounds of a double elimination (``[(round, [fixture, ...]), ...]``, in
    stage and round order): one bracket per stage, winners' first, then losers', then the grand
    final, ``{"stage", "columns": [{"round", "fixtures", "straight"}], "champion"}``; a column is
    ``straight`` when the next has as many fixtures (its winners meet the dropped, one each);
    the grand final's ``champion`` is the winner of its last final played (``None`` before)."""
    brackets: list[dict] = []
    for rnd, fixtures in rounds:
        if not brackets or brackets[-1]["stage"].pk != rnd.stage_id:
            brackets.append({"stage": rnd.stage, "columns": [], "champion": None})
        brackets[-1]["columns"].append({"round": rnd, "fixtures": fixtures, "straight": False})
    for part in brackets:
        columns = part["columns"]
        for column, after in zip(columns, columns[1:], strict=False):
            column["straight"] = len(column["fixtures"]) == len(after["fixtures"])
    if brackets and brackets[-1]["stage"].order == de.STAGE_ORDER[de.GRAND_FINAL]:
        finals = [c["fixtures"][0] for c in brackets[-1]["columns"] if c["fixtures"][0].status != Fixture.Status.CANCELLED]
        last = finals[-1] if finals else None
        if last is not None and last.status in Fixture.RESULTED and last.result.winner_id:
            brackets[-1]["champion"] = last.home if last.result.winner_id == last.home_id else last.away
        elif last is not None and last.status == Fixture.Status.BYE:
            brackets[-1]["champion"] = last.home or last.away
    return brackets


def team_games_of(player) -> list[dict]:
    """The player's team games (COMPETITIONS.md §10), per team he played them for: ``entrant``
    (the team), ``competition``, ``played``, ``won``, ``drawn``, ``lost`` (walkovers count;
    games without a result do not), and ``games`` (the latest first, at most 10)."""
    games = (Fixture.with_games.filter(tie__isnull=False, status__in=Fixture.RESULTED, result__isnull=False)
             .filter(Q(home_player=player) | Q(away_player=player))
             .select_related("competition", "home", "away", "home_player", "away_player", "result", "round")
             .order_by("-kickoff_at", "-pk"))
    rows: dict[int, dict] = {}
    for game in games:
        side = "home" if game.home_player_id == player.pk else "away"
        team = game.entrant(side)
        row = rows.setdefault(team.pk, {"entrant": team, "competition": game.competition, "played": 0, "won": 0,
                                        "drawn": 0, "lost": 0, "games": []})
        row["played"] += 1
        winner = game.result.winner_side
        key = "drawn" if not winner and not game.result.is_double_no_show else "won" if winner == side else "lost"
        row[key] += 1
        if len(row["games"]) < 10:
            row["games"].append(game)
    return list(rows.values())

