"""The best next-placed entrants of a groups-then-knockout competition, from its ranked tables
(``leagues.services.standings.competition_tables``): their ranking across the groups and the
knockout slots they fill (``leagues.rules.best_thirds``). Reads only; the worker's
recomputation writes the bracket (``leagues.services.standings.group_places``)."""
from __future__ import annotations

from collections.abc import Sequence

from leagues.models import Competition, Stage
from leagues.rules import best_thirds, pairings, standings
from leagues.rules.bracket import NOBODY


def next_placed_ranking(*, competition: Competition, tables: Sequence, passed_over: frozenset | set = frozenset()
                        ) -> best_thirds.NextRanking | None:
    """The next-placed of the competition's groups ranked across them (the withdrawn in
    ``passed_over`` skipped when counting places); ``None`` unless the competition takes best
    next-placed entrants. ``tables``: ranked tables (``Table``: ``group``, ``lines``, ``ranked``)."""
    if competition.format != Competition.Format.GROUPS_KNOCKOUT or competition.best_thirds < 1:
        return None
    stage = competition.stages.filter(kind=Stage.Kind.GROUPS).values_list("pk", flat=True).first()
    groups = [
        best_thirds.GroupResults(name=table.group.name, ranked=[(r.entrant, r.name) for r in table.ranked.rows],
                                 lines=table.lines)
        for table in tables
        if table.group is not None and table.group.stage_id == stage and table.ranked is not None
    ]
    points = standings.Points(win=competition.points_win, draw=competition.points_draw,
                              loss=competition.points_loss, bye=competition.points_bye)
    return best_thirds.next_placed_ranking(
        groups, competition.qualifiers_per_group + 1, competition.criteria, best=competition.best_thirds,
        points=points, seed=competition.lots_seed, lots={int(k): v for k, v in competition.lots_drawn.items()},
        passed_over=passed_over,
    )


def next_placed_slots(*, competition: Competition, tables: Sequence, passed_over: frozenset | set = frozenset()
                      ) -> dict[tuple[str, int], object] | None:
    """The knockout slots of the best next-placed, ``("#3", 1)`` -> entrant (the keys of
    ``best_thirds.parse_code``), for a competition whose groups are complete; ``{}`` when it
    takes none; ``None`` while the cut between the qualifiers and the rest is shared (the
    criteria cannot separate them: the slots wait for the organisers). A slot the groups cannot
    fill (too few entrants left) is ``NOBODY``."""
    ranking = next_placed_ranking(competition=competition, tables=tables, passed_over=passed_over)
    if ranking is None:
        return {}
    if not ranking.decided:
        return None
    plan = best_thirds.layout(competition.group_count, competition.qualifiers_per_group, competition.best_thirds)
    qualified = ranking.qualified
    place = f"{best_thirds.NEXT_GROUP_PREFIX}{plan.place}"
    if ranking.short or len(qualified) != plan.best:
        return {(place, slot): NOBODY for slot in range(1, plan.best + 1)}
    index = {pairings.group_letter(i): i for i in range(plan.groups)}
    allocation = best_thirds.allocate(plan, [index[row.group] for row in qualified])
    return {(place, slot): qualified[i].entrant for slot, i in allocation.items()}

