"""Double elimination, pure: the two brackets, the grand final, who goes where, and the placings
(no ORM; COMPETITIONS.md §9 ``"format": "double_elimination"``).

``layout(n, grand_final_reset=True)`` lays out the fixtures for ``n`` entrants seeded 1..n in a
bracket of ``S`` slots (the smallest power of two holding them, 2^R; byes to the top seeds as in
a knockout, ``leagues.rules.pairings.knockout_first_round``):

- the **winners' bracket**, rounds W1..WR, as a knockout: W1 from the draw, each later fixture
  fed by the winners of two;
- the **losers' bracket**, rounds L1..L(2R-2): L1 pairs the losers of W1 (fixtures 2i and 2i+1);
  each even round L(2r-2) drops the losers of Wr against the survivors, **crossed**: its fixture
  i takes the loser of Wr's fixture i XOR 1, from the other half of the region its survivors come
  from, so two entrants who met in the winners' bracket never meet at once after a drop (only
  the last drop, the loser of the winners' final, has no other half to come from); each odd
  round from L3 pairs the survivors;
- the **grand final**: the winners' bracket winner against the losers' bracket winner; with
  ``grand_final_reset`` a second final, played only when the losers' bracket winner wins the
  first (then both have lost once).

With 2 entrants there is no losers' bracket: the loser of the one winners' fixture meets the
winner again in the grand final.

``play(fixtures, decide)`` runs the brackets on results given as data (``decide(fixture,
home, away)`` says who won, ``None`` for a double no-show): a slot nobody can fill (a bye, a
double no-show) is empty; one entrant and an empty slot is a bye (it goes on, having lost
nothing); two empty slots, or a reset not needed, are cancelled. A double no-show sends nobody
on: both are out. ``placings(fixtures, games)`` places each entrant by the round it went out in:
the grand final's winner 1st, its loser 2nd, the loser of the losers' final 3rd, of the round
before 4th, then the losers of each earlier losers' round share as many places as the round has
fixtures (5th-6th, 7th-8th, 9th-12th, ...), as published brackets do.

Stored (``leagues.services.double_elimination``), each bracket is a stage (``STAGE_NAMES``,
``STAGE_ORDER``) and each of its rounds a round (``round_name``: "Winners' bracket round 1",
"Grand final (reset)"); ``destinations`` says where each fixture's winner and loser go, the
reset fed by the first final (its loser at home, its winner away: the same two entrants, in
the same slots, when the losers' bracket winner won it), and ``reset_follows`` cancels the
reset in a ``leagues.rules.bracket.derive`` of the stored fixtures unless the first final's
away side (the losers' bracket winner) won it.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from leagues.rules import bracket
from leagues.rules.bracket import Fixed, Loser, Source, Winner
from leagues.rules.i18n import gettext as _
from leagues.rules.pairings import bracket_size, knockout_first_round
from leagues.rules.placings import Band

WINNERS, LOSERS, GRAND_FINAL = "winners", "losers", "grand_final"
PLAYED, BYE, CANCELLED = "played", "bye", "cancelled"


@dataclass(frozen=True)
class Fixture:
    """One fixture: its ``id`` ((bracket, round, position)), its two sources (``Fixed`` seeds in
    W1, else the ``Winner``/``Loser`` of an earlier fixture), and ``order`` (every fixture after
    those that feed it). ``reset``: the second grand final, played only when needed."""

    id: tuple[str, int, int]
    home_source: Source
    away_source: Source
    order: int
    reset: bool = False

    @property
    def bracket(self) -> str:
        return self.id[0]

    @property
    def round(self) -> int:
        return self.id[1]


@dataclass(frozen=True)
class Game:
    """A fixture as played: its entrants (``None``: an empty slot), its ``status`` (played, bye
    or cancelled) and its ``winner`` and ``loser`` (``None`` when there is none)."""

    fixture: Fixture
    home: Hashable | None
    away: Hashable | None
    status: str
    winner: Hashable | None
    loser: Hashable | None


def losers_rounds(size: int) -> int:
    """The losers' bracket's rounds for ``size`` slots (a power of two): 2R - 2, none for 2."""
    return 2 * (size.bit_length() - 1) - 2


def layout(n: int, *, grand_final_reset: bool = True) -> list[Fixture]:
    """Every fixture of a double elimination of ``n`` entrants (seeds 1..n), in playing order
    (see the module). Raises ``ValueError`` below 2 entrants."""
    if n < 2:
        raise ValueError(_("a double elimination needs at least 2 entrants"))
    size = bracket_size(n)
    rounds = size.bit_length() - 1
    out: list[Fixture] = []
    for i, (home, away) in enumerate(knockout_first_round(n)):
        out.append(Fixture((WINNERS, 1, i), Fixed(home), Fixed(away), order=1))
    for r in range(2, rounds + 1):
        for i in range(size >> r):
            out.append(Fixture((WINNERS, r, i), Winner((WINNERS, r - 1, 2 * i)), Winner((WINNERS, r - 1, 2 * i + 1)),
                               order=2 * r - 1))
    last_losers = losers_rounds(size)
    for i in range(size >> 2):
        out.append(Fixture((LOSERS, 1, i), Loser((WINNERS, 1, 2 * i)), Loser((WINNERS, 1, 2 * i + 1)), order=2))
    for d in range(2, last_losers + 1):
        if d % 2 == 0:  # the losers of W(d/2 + 1) drop in, crossed
            r = d // 2 + 1
            count = size >> r
            for i in range(count):
                dropped = i ^ 1 if count >= 2 else i
                out.append(Fixture((LOSERS, d, i), Winner((LOSERS, d - 1, i)), Loser((WINNERS, r, dropped)),
                                   order=d + 2))
        else:
            count = size >> (d // 2 + 2)
            for i in range(count):
                out.append(Fixture((LOSERS, d, i), Winner((LOSERS, d - 1, 2 * i)), Winner((LOSERS, d - 1, 2 * i + 1)),
                                   order=d + 2))
    champion_of_losers = Winner((LOSERS, last_losers, 0)) if last_losers else Loser((WINNERS, 1, 0))
    final_order = max(2 * rounds, last_losers + 2) + 1
    out.append(Fixture((GRAND_FINAL, 1, 0), Winner((WINNERS, rounds, 0)), champion_of_losers, order=final_order))
    if grand_final_reset:
        out.append(Fixture((GRAND_FINAL, 2, 0), Winner((WINNERS, rounds, 0)), champion_of_losers,
                           order=final_order + 1, reset=True))
    return sorted(out, key=lambda f: (f.order, f.id))


Decide = Callable[[Fixture, Hashable, Hashable], Hashable | None]


def play(fixtures: Sequence[Fixture], decide: Decide, *, seeds: Sequence[Hashable] | None = None) -> list[Game]:
    """The games of the brackets with the results ``decide`` gives (see the module), in playing
    order. ``seeds``: the entrants in seed order (default: the seed numbers themselves)."""
    games: dict[tuple, Game] = {}

    def resolve(source: Source) -> Hashable | None:
        if isinstance(source, Fixed):
            if source.entrant is None:
                return None
            return seeds[source.entrant - 1] if seeds is not None else source.entrant
        game = games.get(source.fixture)
        if game is None:
            return None
        return game.winner if isinstance(source, Winner) else game.loser

    out = []
    for f in sorted(fixtures, key=lambda f: (f.order, f.id)):
        home, away = resolve(f.home_source), resolve(f.away_source)
        if f.reset:
            first = games.get((GRAND_FINAL, 1, 0))
            if first is None or first.status != PLAYED or first.winner is None or first.winner != first.away:
                game = Game(f, home, away, CANCELLED, None, None)  # the winners' side won: no reset
                games[f.id] = game
                out.append(game)
                continue
            home, away = first.home, first.away
        if home is not None and away is not None:
            winner = decide(f, home, away)
            if winner not in (home, away, None):
                raise ValueError(f"{winner!r} did not play in {f.id}")
            loser = None if winner is None else (away if winner == home else home)
            game = Game(f, home, away, PLAYED, winner, loser)
        elif home is None and away is None:
            game = Game(f, None, None, CANCELLED, None, None)
        else:
            game = Game(f, home, away, BYE, home if home is not None else away, None)
        games[f.id] = game
        out.append(game)
    return out


def _losers_bands(fixtures: Sequence[Fixture]) -> dict[int, Band]:
    """Losers' round -> the band its losers share: the last round 3rd, the one before 4th, then
    as many places as each earlier round has fixtures."""
    counts: dict[int, int] = {}
    for f in fixtures:
        if f.bracket == LOSERS:
            counts[f.round] = counts.get(f.round, 0) + 1
    bands, start = {}, 3
    for d in sorted(counts, reverse=True):
        bands[d] = Band(start, start + counts[d] - 1)
        start += counts[d]
    return bands


def placings(fixtures: Sequence[Fixture], games: Sequence[Game]) -> dict[Hashable, Band]:
    """Each entrant's band from the round it went out in (see the module). A double no-show in
    the winners' bracket puts both out in the losers' round its loser would have entered; in
    the grand final both are 2nd (nobody is champion). Entrants still in are not placed."""
    bands = _losers_bands(fixtures)
    drop_round = {}  # winners' fixture -> the losers' round its loser enters
    for f in fixtures:
        for source in (f.home_source, f.away_source):
            if isinstance(source, Loser) and f.bracket == LOSERS:
                drop_round[source.fixture] = f.round
    out: dict[Hashable, Band] = {}
    finals = [g for g in games if g.fixture.bracket == GRAND_FINAL and g.status != CANCELLED]
    for game in games:
        f = game.fixture
        if game.status != PLAYED:
            continue
        if f.bracket == LOSERS:
            for entrant in ((game.loser,) if game.winner is not None else (game.home, game.away)):
                out[entrant] = bands[f.round]
        elif f.bracket == WINNERS and game.winner is None and f.id in drop_round:
            for entrant in (game.home, game.away):
                out[entrant] = bands[drop_round[f.id]]
    if finals:
        last = finals[-1]
        if last.status == PLAYED and last.winner is not None:
            out[last.winner], out[last.loser] = Band(1, 1), Band(2, 2)
        elif last.status == PLAYED:
            out[last.home] = out[last.away] = Band(2, 2)
        else:  # a bye: one entrant left
            out[last.winner] = Band(1, 1)
    return {e: b for e, b in out.items() if e is not None}


# --- Stored as stages and rounds ------------------------------------------------------------------

STAGE_NAMES = {WINNERS: "Winners' bracket", LOSERS: "Losers' bracket", GRAND_FINAL: "Grand final"}
STAGE_ORDER = {WINNERS: 1, LOSERS: 2, GRAND_FINAL: 3}
BRACKET_OF_STAGE = {order: name for name, order in STAGE_ORDER.items()}
FIRST_FINAL, RESET = (GRAND_FINAL, 1, 0), (GRAND_FINAL, 2, 0)


def round_name(bracket_name: str, number: int) -> str:
    """The stored (English) name of a round: "Winners' bracket round 2", "Losers' bracket round
    3", "Grand final", "Grand final (reset)" (pages show it translated: ``matches.names``)."""
    if bracket_name == GRAND_FINAL:
        return "Grand final" if number == 1 else "Grand final (reset)"
    return f"{STAGE_NAMES[bracket_name]} round {number}"


def destinations(fixtures: Sequence[Fixture]) -> dict[tuple, dict[str, tuple[tuple, str]]]:
    """Fixture id -> {"winner": (fixture id, slot), "loser": (fixture id, slot)} where its
    winner and loser go next (slot ``"home"`` or ``"away"``; a key left out: nowhere). Every
    source of the layout names one destination, but the reset's: it is fed by the first
    final, its loser at home and its winner away (see the module)."""
    out: dict[tuple, dict[str, tuple[tuple, str]]] = {f.id: {} for f in fixtures}
    for f in fixtures:
        if f.reset:
            out[FIRST_FINAL]["loser"] = (f.id, "home")
            out[FIRST_FINAL]["winner"] = (f.id, "away")
            continue
        for slot, source in (("home", f.home_source), ("away", f.away_source)):
            if isinstance(source, Winner | Loser):
                out[source.fixture]["winner" if isinstance(source, Winner) else "loser"] = (f.id, slot)
    return out


def reset_follows(derivation: bracket.Derivation, *, first: bracket.KnockoutFixture,
                  reset: bracket.KnockoutFixture) -> None:
    """Corrects ``derivation`` (of the stored fixtures, ``leagues.rules.bracket.derive``) for the
    reset: unless the first final's away side (the losers' bracket winner) won it, or it is
    still to be decided, the reset is cancelled with nobody in it; a reset decided or started
    that is not to be played is a conflict."""
    slot = derivation.slots.get(first.id)
    if first.result is not None:
        needed = first.result.winner is not None and first.result.winner == first.away
    elif slot is None or slot.status is None or slot.status == bracket.SCHEDULED:
        return  # the first final is still to be played (or under way): the reset waits
    else:
        needed = False  # a bye (the winners' side alone) or cancelled
    if needed:
        return
    if reset.result is None and not reset.started:
        derivation.slots[reset.id] = bracket.Slotting(None, None, bracket.CANCELLED)
        return
    derivation.conflicts.pop(reset.id, None)
    if (reset.home, reset.away) != (None, None):
        derivation.conflicts[reset.id] = ((reset.home, reset.away), (None, None))
