"""A double elimination as stored (COMPETITIONS.md §9 ``"format": "double_elimination"``): its
fixtures made at the draw, its placings read from the results. The structure is the pure
``leagues.rules.double_elimination``; who fills each slot is derived by ``leagues.services.bracket``
like any knockout's (the reset final cancelled unless it is needed).

Each bracket is a knockout stage ("Winners' bracket" 1, "Losers' bracket" 2, "Grand final" 3;
a field of two has no losers' bracket), each of its rounds a round ("Winners' bracket round 1",
..., "Grand final", "Grand final (reset)"); a fixture's position is its position in the layout,
so that (bracket, round number, position) is the layout's id. A round is dated by its place in
the playing order (the losers' bracket round 1 after the winners' round 1, and so on).
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from leagues.models import Competition, Entrant, Fixture, Round, Stage
from leagues.rules import double_elimination as de
from leagues.rules.placings import Band


def is_double_elimination(competition: Competition) -> bool:
    return competition.format == Competition.Format.DOUBLE_ELIMINATION


def layout_id(fixture: Fixture) -> tuple[str, int, int] | None:
    """The layout's id of a stored fixture ((bracket, round, position)), from its stage's order."""
    bracket_name = de.BRACKET_OF_STAGE.get(fixture.round.stage.order)
    return None if bracket_name is None else (bracket_name, fixture.round.number, fixture.position)


def stored_layout(competition: Competition, fixtures: Sequence[Fixture]) -> list[de.Fixture]:
    """The layout of the stored fixtures (``fixtures``: the competition's knockout ones): its
    bracket's size from the winners' first round; empty when nothing is drawn."""
    first = sum(1 for f in fixtures if layout_id(f) is not None and layout_id(f)[:2] == (de.WINNERS, 1))
    if not first:
        return []
    return de.layout(2 * first, grand_final_reset=competition.grand_final_reset)


def play_orders(competition: Competition, fixtures: Sequence[Fixture]) -> dict[int, tuple]:
    """Stored fixture id -> a key that sorts every fixture after those that feed it (the
    layout's playing order, then its id)."""
    order = {f.id: f.order for f in stored_layout(competition, fixtures)}
    out = {}
    for f in fixtures:
        key = layout_id(f)
        out[f.pk] = (order.get(key, 0), de.STAGE_ORDER.get(key[0], 0) if key else 0, f.round.number, f.position)
    return out


def double_elimination_generate(competition: Competition, entrants: Sequence[Entrant], *,
                                now: datetime) -> list[Fixture]:
    """Stores every fixture of both brackets and the grand final(s) (``entrants`` in seed
    order; byes to the top seeds as in a knockout): the winners' first round holds the draw,
    every other slot waits for the results. Returns them in playing order. Raises
    ``ValueError`` below 2 entrants."""
    laid_out = de.layout(len(entrants), grand_final_reset=competition.grand_final_reset)
    stages: dict[str, Stage] = {}
    rounds: dict[tuple[str, int], Round] = {}
    made: dict[tuple, Fixture] = {}
    for spot in laid_out:
        if spot.bracket not in stages:
            stages[spot.bracket] = Stage.objects.create(
                competition=competition, order=de.STAGE_ORDER[spot.bracket], name=de.STAGE_NAMES[spot.bracket],
                kind=Stage.Kind.KNOCKOUT)
        key = (spot.bracket, spot.round)
        if key not in rounds:
            rounds[key] = Round.objects.create(stage=stages[spot.bracket], number=spot.round,
                                               name=de.round_name(*key), date=competition.round_date(spot.order))
        rnd = rounds[key]
        made[spot.id] = Fixture.objects.create(
            competition=competition, round=rnd, position=spot.id[2], date=rnd.date,
            kickoff_at=competition.kickoff_on(rnd.date), status_changed_at=now, playable_since=now,
        )
    for fixture_id, goes in de.destinations(laid_out).items():
        fixture = made[fixture_id]
        for who, (to, slot) in goes.items():
            setattr(fixture, f"{who}_to", made[to])
            setattr(fixture, f"{who}_to_slot", slot)
        if goes:
            fixture.save(update_fields=["winner_to", "winner_to_slot", "loser_to", "loser_to_slot"])
    for spot in laid_out:
        if spot.bracket != de.WINNERS or spot.round != 1:
            continue
        fixture = made[spot.id]
        home, away = (None if s.entrant is None else entrants[s.entrant - 1]
                      for s in (spot.home_source, spot.away_source))
        fixture.home, fixture.away = home, away
        if (home is None) != (away is None):  # a bye: the seeded entrant goes straight through
            fixture.home, fixture.away = home or away, None
            fixture.status = Fixture.Status.BYE
        fixture.save(update_fields=["home", "away", "status"])
    return [made[spot.id] for spot in laid_out]


def _game(spot: de.Fixture, fixture: Fixture | None) -> de.Game:
    """A stored fixture as the structure's game: played (a result stands), a bye, cancelled, or
    still to be decided (any other status: nobody placed by it yet)."""
    if fixture is None:
        return de.Game(spot, None, None, de.CANCELLED, None, None)
    home, away = fixture.home_id, fixture.away_id
    if fixture.status in Fixture.RESULTED:
        result = getattr(fixture, "result", None)
        winner = result.winner_id if result is not None else None
        loser = None if winner is None else (away if winner == home else home)
        return de.Game(spot, home, away, de.PLAYED, winner, loser)
    if fixture.status == Fixture.Status.BYE:
        return de.Game(spot, home, away, de.BYE, home or away, None)
    if fixture.status in (Fixture.Status.CANCELLED, Fixture.Status.ANNULLED):
        return de.Game(spot, home, away, de.CANCELLED, None, None)
    return de.Game(spot, home, away, "pending", None, None)


def double_elimination_placings(*, competition: Competition, fixtures: Sequence[Fixture],
                                withdrawn: set[int]) -> dict[int, Band]:
    """Entrant id -> band, as the results stand (``leagues.rules.double_elimination.placings``:
    by the round it went out in; 5th-6th shared, ...); entrants still in, and the withdrawn,
    are not placed. ``fixtures``: the competition's, with their results."""
    by_id = {layout_id(f): f for f in fixtures}
    laid_out = stored_layout(competition, fixtures)
    games = [_game(spot, by_id.get(spot.id)) for spot in laid_out]
    bands = de.placings(laid_out, games)
    return {entrant: band for entrant, band in bands.items() if entrant not in withdrawn}


def follow_reset(derivation, *, stage: Sequence, fixtures: dict[int, Fixture]) -> None:
    """Applies the reset's rule (``leagues.rules.double_elimination.reset_follows``) to the
    derivation of the stored fixtures (``stage``: their ``KnockoutFixture``s, by stored id)."""
    by_layout = {layout_id(fixtures[f.id]): f for f in stage}
    first, reset = by_layout.get(de.FIRST_FINAL), by_layout.get(de.RESET)
    if first is not None and reset is not None:
        de.reset_follows(derivation, first=first, reset=reset)
