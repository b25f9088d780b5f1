"""The Swiss engine (``leagues.rules.swiss``) replaying two published FIDE-rated Swiss opens
(Dutch system), round by round, from their Tournament Report Files (TRF16):

- the 4° Open Capo D'Orso 2012 (Palau, ITA; 84 players, 9 rounds, paired by JaVaFo with an
  acceleration in rounds 1 to 7, its ``XXA`` lines): the "TRF(x) Acceleration Sample" of the
  JaVaFo Advanced User Manual (Roberto Ricca, rrweb.org/javafo/aum/JaVaFo2_AUM.htm);
- the XX Open Internacional de Gros 2010 (Donostia, ESP; 52 players, 9 rounds): the manual's
  "TRF(x) Sample", its first four rounds (the file pairs round 5).

Both copied from the manual's Markdown copy in github.com/vladimirshefer/ChessGrinder,
``docs/javafo-aum.md`` (see ``data/README.md``).

For each round r from 2 on, the engine is given the real games of rounds 1 to r-1 (white is
home; a win 1, a draw 0.5; a forfeit as its result, a game not played: no colour; the ``U`` pairing-allocated bye as the
engine's bye; ``H``, ``F``, ``Z`` and blank rounds as rounds not paired, with their points),
the players not paired in round r as withdrawn for that round, and the seeding by start rank.
Asserted: (a) the engine's round keeps the absolute rules, checked here on our own; (b) where
the event paired by plain score groups (every round of Gros, rounds 8 and 9 of Capo D'Orso),
the engine's round has the event's score-group structure: the same multiset of pairs' scores,
and a bye in the same score group. In Capo D'Orso's accelerated rounds the event paired by
score plus virtual points, which the engine does not know: there only (a) is asserted.
Printed (``-s``): per round, the pairs and colours the engine found as the event had them.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from django.utils import translation

from leagues.rules.swiss import Game, pair_round

from . import trf

DATA = Path(__file__).parent / "data"
EVENTS = {
    "open-capo-d-orso-2012": {8, 9},  # the rounds paired by plain score groups (no XXA points)
    "open-internacional-de-gros-2010": {2, 3, 4},
}


@pytest.fixture(autouse=True)
def in_english():
    with translation.override("en"):
        yield


def history(event: trf.Tournament, before: int) -> list[Game]:
    """The engine's games of rounds 1 to ``before`` - 1."""
    games = []
    for player in event.players.values():
        for rnd in range(1, before):
            entry = player.entry(rnd)
            if entry.opponent is not None:
                if entry.colour == "w":
                    other = event.players[entry.opponent].entry(rnd)
                    games.append(Game(rnd, player.rank, entry.opponent, entry.points, other.points,
                                      played=entry.result not in "+-"))
            elif entry.result == "U":
                games.append(Game(rnd, player.rank, None))
            else:
                games.append(Game(rnd, player.rank, None, entry.points, allocated=False))
    return games


def published(event: trf.Tournament, rnd: int) -> tuple[list[tuple[int, int]], int | None]:
    """The event's round: (white, black) pairs and the pairing-allocated bye."""
    pairs, bye = [], None
    for player in event.players.values():
        entry = player.entry(rnd)
        if entry.opponent is not None and entry.colour == "w":
            pairs.append((player.rank, entry.opponent))
        elif entry.opponent is None and entry.result == "U":
            bye = player.rank
    return pairs, bye


def scores(event: trf.Tournament, before: int) -> dict[int, float]:
    return {rank: sum(p.entry(r).points for r in range(1, before)) for rank, p in event.players.items()}


def structure(pairs, bye, score) -> tuple[Counter, float | None]:
    """The multiset of pairs' (higher, lower) scores, and the bye's score."""
    return (Counter(tuple(sorted((score[a], score[b]), reverse=True)) for a, b in pairs),
            None if bye is None else score[bye])


def check_absolute_rules(games: list[Game], pairs, bye, active: set, score: dict, *, last: bool) -> None:
    """No rematch; no second bye while an active player has none; no colour three times running
    nor a difference past 2, but between two topscorers of the last round (C.04.3 A.7, C.3)."""
    met, colours, byes = set(), {e: {} for e in active}, Counter()
    for game in games:
        if game.away is None:
            byes[game.home] += game.allocated
            continue
        met.add(frozenset((game.home, game.away)))
        if not game.played:
            continue
        for who, colour in ((game.home, "H"), (game.away, "A")):
            if who in colours:
                colours[who][game.round] = colour
    paired = [e for pair in pairs for e in pair] + ([bye] if bye is not None else [])
    assert sorted(paired) == sorted(active)
    if bye is not None:
        assert byes[bye] == 0 or all(byes[e] for e in active), "a second bye while another has none"
    played_rounds = max((g.round for g in games), default=0)
    topscorer = {e for e in active if last and score[e] > played_rounds / 2}
    for home, away in pairs:
        assert frozenset((home, away)) not in met, f"a rematch: {home} - {away}"
        if topscorer & {home, away}:
            continue
        for who, colour in ((home, "H"), (away, "A")):
            seq = [colours[who][r] for r in sorted(colours[who])] + [colour]
            assert seq[-3:] != [colour] * 3, f"{who} {colour} three times running"
            assert abs(seq.count("H") - seq.count("A")) <= 2, f"{who}: homes and aways more than 2 apart"


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_the_engine_replays_a_published_swiss(name):
    event = trf.load(DATA / f"{name}.trf")
    rounds = max(event.rounds, event.played_rounds())
    entrants = sorted(event.players)
    same_pairs = same_colours = 0
    report = []
    for rnd in range(2, event.played_rounds() + 1):
        games = history(event, rnd)
        absent = {rank for rank, p in event.players.items() if not p.entry(rnd).paired}
        got = pair_round(entrants, games, round_no=rnd, rounds=rounds, bye_points=1, win_points=1,
                         withdrawn=absent)
        score = scores(event, rnd)
        check_absolute_rules(games, got.pairs, got.bye, set(entrants) - absent, score, last=rnd == rounds)
        pairs, bye = published(event, rnd)
        if rnd in EVENTS[name]:
            assert structure(got.pairs, got.bye, score) == structure(pairs, bye, score), f"round {rnd}"
        pairings = {frozenset(p) for p in got.pairs} == {frozenset(p) for p in pairs} and got.bye == bye
        same_pairs += pairings
        same_colours += pairings and set(got.pairs) == set(pairs)
        report.append(f"round {rnd}: {len({frozenset(p) for p in got.pairs} & {frozenset(p) for p in pairs})}"
                      f"/{len(pairs)} pairs and {len(set(got.pairs) & set(pairs))} colours as the event"
                      + ("" if got.bye == bye else f", bye {got.bye} (the event's {bye})"))
    print(f"\n{event.name}: {same_pairs} rounds paired exactly as the event, {same_colours} with its colours")
    print("\n".join(report))


def test_the_reader_checks_each_players_points_against_its_results():
    event = trf.load(DATA / "open-internacional-de-gros-2010.trf")
    assert (len(event.players), event.rounds, event.played_rounds()) == (52, 9, 4)
    assert event.players[52].entry(1) == trf.Entry(None, "-", "U")
    assert event.players[13].entry(1) == trf.Entry(39, "w", "+")
    bad = (DATA / "open-internacional-de-gros-2010.trf").read_text(encoding="utf-8").replace(
        "Player 1                          2527 AZE                         4.0",
        "Player 1                          2527 AZE                         3.0")
    with pytest.raises(ValueError, match="player 1: 3.0 points declared"):
        trf.parse(bad)
