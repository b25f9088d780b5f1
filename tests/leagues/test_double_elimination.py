"""Double elimination's structure (``leagues.rules.double_elimination``): the rulebook's
promises over random fields of 2 to 64 entrants and random results, and the published shape
of a bracket of 8. Bounded like tests/test_hostile_input.py (the machine is shared)."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leagues.rules import double_elimination as de
from leagues.rules.bracket import Loser
from leagues.rules.placings import Band

BOUNDED = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def run(data, n, *, reset, no_shows):
    fixtures = de.layout(n, grand_final_reset=reset)
    choices = ["home", "away", "both"] if no_shows else ["home", "away"]

    def decide(fixture, home, away):
        side = data.draw(st.sampled_from(choices), label=str(fixture.id))
        return {"home": home, "away": away, "both": None}[side]

    return fixtures, de.play(fixtures, decide)


def losses_in_order(games):
    """Entrant -> the number of games it lost, checking none plays after going out."""
    losses: Counter = Counter()
    out: set = set()
    for game in games:
        if game.status != de.PLAYED:
            continue
        for entrant in (game.home, game.away):
            assert entrant not in out, f"{entrant} plays in {game.fixture.id} after going out"
        beaten = [game.loser] if game.winner is not None else [game.home, game.away]
        for entrant in beaten:
            losses[entrant] += 1
            if losses[entrant] == 2 or game.winner is None or game.fixture.bracket == de.LOSERS:
                out.add(entrant)
    return losses


@BOUNDED
@given(data=st.data(), n=st.integers(2, 64), reset=st.booleans())
def test_every_entrant_loses_at_most_twice_and_there_is_exactly_one_champion(data, n, reset):
    fixtures, games = run(data, n, reset=reset, no_shows=False)
    losses = losses_in_order(games)
    assert max(losses.values()) <= 2
    places = de.placings(fixtures, games)
    assert set(places) == set(range(1, n + 1))  # everyone placed, nobody still in
    champions = [e for e, band in places.items() if band == Band(1, 1)]
    assert len(champions) == 1 and losses[champions[0]] <= 1
    if reset:
        assert all(losses[e] == 2 for e in places if e != champions[0])
    for band, count in Counter(places.values()).items():
        assert count <= band.place_to - band.place + 1, (band, count)


@BOUNDED
@given(data=st.data(), n=st.integers(2, 64), reset=st.booleans())
def test_double_no_shows_send_nobody_on_and_nobody_plays_on_after_going_out(data, n, reset):
    fixtures, games = run(data, n, reset=reset, no_shows=True)
    assert max(losses_in_order(games).values(), default=0) <= 2
    champions = [e for e, band in de.placings(fixtures, games).items() if band == Band(1, 1)]
    assert len(champions) <= 1


@BOUNDED
@given(data=st.data(), n=st.integers(2, 64), reset=st.booleans())
def test_two_who_met_in_the_winners_bracket_do_not_meet_again_at_once_after_a_drop(data, n, reset):
    fixtures, games = run(data, n, reset=reset, no_shows=False)
    met = {frozenset((g.home, g.away)) for g in games
           if g.fixture.bracket == de.WINNERS and g.status == de.PLAYED}
    per_round = Counter(f.round for f in fixtures if f.bracket == de.LOSERS)
    for game in games:
        f = game.fixture
        dropping = f.bracket == de.LOSERS and f.round > 1 and isinstance(f.away_source, Loser)
        if dropping and per_round[f.round] >= 2 and game.status == de.PLAYED:
            assert frozenset((game.home, game.away)) not in met, f.id


def test_eight_entrants_play_fifteen_fixtures_and_share_places_as_published():
    fixtures = de.layout(8)
    assert Counter(f.bracket for f in fixtures) == {de.WINNERS: 7, de.LOSERS: 6, de.GRAND_FINAL: 2}
    assert [sum(1 for f in fixtures if f.id[:2] == (de.LOSERS, d)) for d in (1, 2, 3, 4)] == [2, 2, 1, 1]
    # the losers of W2's fixture 0 (region of seeds 1, 8, 4, 5) drop against the survivors of seeds 2, 7, 3, 6
    assert next(f for f in fixtures if f.id == (de.LOSERS, 2, 0)).away_source == Loser((de.WINNERS, 2, 1))
    games = de.play(fixtures, lambda f, home, away: min(home, away))  # the better seed wins
    places = de.placings(fixtures, games)
    assert places[1] == Band(1, 1) and places[2] == Band(2, 2) and places[3] == Band(3, 3)
    assert places[4] == Band(4, 4) and {places[5], places[6]} == {Band(5, 6)} and {places[7], places[8]} == {Band(7, 8)}
    reset = next(g for g in games if g.fixture.reset)
    assert reset.status == de.CANCELLED  # the winners' side won the first final


def test_the_losers_side_winning_the_first_final_plays_the_reset_and_six_have_byes_below():
    fixtures = de.layout(6)
    games = de.play(fixtures, lambda f, home, away: away if f.bracket == de.GRAND_FINAL and f.round == 1
                    else min(home, away))
    finals = [g for g in games if g.fixture.bracket == de.GRAND_FINAL]
    assert [g.status for g in finals] == [de.PLAYED, de.PLAYED] and finals[0].winner == 2
    assert [g.status for g in games if g.fixture.id[:2] == (de.LOSERS, 1)] == [de.BYE, de.BYE]  # byes above
    assert set(de.placings(fixtures, games)) == set(range(1, 7))


def test_two_entrants_meet_again_in_the_grand_final_and_one_is_refused():
    fixtures = de.layout(2)
    assert [f.bracket for f in fixtures] == [de.WINNERS, de.GRAND_FINAL, de.GRAND_FINAL]
    games = de.play(fixtures, lambda f, home, away: home)
    assert de.placings(fixtures, games) == {1: Band(1, 1), 2: Band(2, 2)}
    with pytest.raises(ValueError):
        de.layout(1)
