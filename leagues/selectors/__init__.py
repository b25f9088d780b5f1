"""Reads of ``leagues``: keyword-only, typed, no writes."""
from __future__ import annotations

from datetime import datetime

from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from leagues.models import Competition, Fixture, Standing
from matches.selectors import live_matches

STANDINGS_ROW_KEYS = (
    "position", "entrant", "played", "won", "drawn", "lost",
    "goals_for", "goals_against", "goal_difference", "points", "tiebreak",
)


def related_count(model, *, field: str = "competition", filter: Q | None = None):  # noqa: A002
    """The number of ``model`` rows whose ``field`` is the outer row, as a correlated subquery.

    Annotate counts over two relations with this instead of ``Count("a") + Count("b")`` in one
    ``annotate``: two multi-valued joins multiply each other's rows (entrants x fixtures)."""
    rows = model.objects.filter(**{field: OuterRef("pk")})
    if filter is not None:
        rows = rows.filter(filter)
    counted = rows.order_by().values(field).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def competition_get(*, slug: str) -> Competition | None:
    return Competition.objects.filter(slug=slug).first()


def standings_rows(*, competition: Competition) -> QuerySet[Standing]:
    return (
        Standing.objects.filter(competition=competition)
        .select_related("entrant", "group")
        .order_by("group__name", "position", "entrant__name")
    )


def standings_tables(*, competition: Competition) -> dict:
    """The stored standings as COMPETITIONS.md §7 prints them with ``--json``: one entry in
    ``tables`` per group (``"group": None`` for a plain league)."""
    tables: list[dict] = []
    by_group: dict = {}
    for row in standings_rows(competition=competition):
        key = row.group.name if row.group_id else None
        if key not in by_group:
            by_group[key] = {"group": key, "rows": []}
            tables.append(by_group[key])
        by_group[key]["rows"].append({
            "position": row.position,
            "entrant": row.entrant.name,
            "played": row.played,
            "won": row.won,
            "drawn": row.drawn,
            "lost": row.lost,
            "goals_for": row.goals_for,
            "goals_against": row.goals_against,
            "goal_difference": row.goal_difference,
            "points": row.points,
            "tiebreak": row.tiebreak,
            **({"shared": True} if row.shared else {}),  # §5: only on rows that share a place
        })
    return {"competition": competition.slug, "tables": tables}


# The API's standings row (``leagues.api.serializers.StandingRowSerializer``): key -> the value read.
STANDING_ROW_VALUES = {
    "position": "position", "entrant": "entrant__name", "entrant_id": "entrant_id", "club": "entrant__club__slug",
    "played": "played", "won": "won", "drawn": "drawn", "lost": "lost", "goals_for": "goals_for",
    "goals_against": "goals_against", "goal_difference": "goal_difference", "points": "points",
    "discipline": "discipline", "tiebreak": "tiebreak", "tiebreak_criterion": "tiebreak_criterion",
    "shared": "shared",
}


def standings_api_tables(*, competition: Competition) -> tuple[list[dict], datetime | None]:
    """The stored standings in the API's shape, read as values (no model built per row: a
    groups stage of 1,667 tables has 6,668 rows): one ``{"group": name or None, "rows": [...]}``
    per group, each row the keys of ``STANDING_ROW_VALUES`` and ``withdrawn`` (and a team
    competition's ``game_points``); and the latest
    ``computed_at`` (None with no row)."""
    tables: list[dict] = []
    by_group: dict = {}
    computed_at = None
    keys = list(STANDING_ROW_VALUES)
    rows = (Standing.objects.filter(competition=competition)
            .order_by("group__name", "position", "entrant__name")
            .values_list("group__name", "computed_at", "entrant__withdrawn_at", "game_points",
                         *STANDING_ROW_VALUES.values()))
    team = competition.is_team
    for group, computed, withdrawn_at, game_points, *values in rows:
        if group not in by_group:
            by_group[group] = {"group": group, "rows": []}
            tables.append(by_group[group])
        row = dict(zip(keys, values, strict=True))
        row["withdrawn"] = withdrawn_at is not None
        if team:  # a team's game points (COMPETITIONS.md §10): 2.5, or 3
            row["game_points"] = int(game_points) if game_points == int(game_points) else float(game_points)
        by_group[group]["rows"].append(row)
        computed_at = max(computed_at, computed) if computed_at else computed
    return tables, computed_at


def live_matches_of(*, competition: Competition):
    """The live online matches of the competition's fixtures, newest first."""
    return live_matches(ids=Fixture.with_games.filter(competition=competition, match__isnull=False)
                        .values("match_id"))  # a team tie's games too


def knockout_rounds(*, competition: Competition, fixtures_qs=None) -> list[tuple]:
    """The rounds of every knockout stage of the competition, in order (an imported cup may
    have one stage per round: "Semi-finals", "Final"), each with its fixtures:
    ``[(round, [fixture, ...]), ...]``."""
    qs = (fixtures_qs if fixtures_qs is not None else Fixture.objects.select_related("home", "away", "round__stage"))
    fixtures = list(qs.filter(competition=competition, round__stage__kind="knockout")
                    .order_by("round__stage__order", "round__number", "position"))
    rounds: list[tuple] = []
    for fixture in fixtures:
        if not rounds or rounds[-1][0].pk != fixture.round_id:
            rounds.append((fixture.round, []))
        rounds[-1][1].append(fixture)
    return rounds


def is_third_place(fixture: Fixture) -> bool:
    """The third-place match: its label, or its round's or stage's name, says so."""
    text = f"{fixture.label} {fixture.round.name} {fixture.round.stage.name}".casefold()
    return any(word in text for word in ("third", "3rd", "bronze", "terceiro", "tercer", "terzo"))
