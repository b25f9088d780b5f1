"""A small reader of the FIDE Tournament Report File (TRF16, FIDE Handbook C.04 Annex 2), enough
to replay a published Swiss: the ``001`` player lines, ``XXR`` (the rounds) and ``XXA`` (the
virtual points of an accelerated round, a JaVaFo extension). Pure, for the tests.

A ``001`` line, by its columns (1-based): 5-8 the start rank (the pairing number), 49-52 the
rating, 81-84 the points; then one field of ten columns a round from column 92: 92-95 the
opponent's start rank (``0000`` or blank: none), 97 the colour (``w``, ``b``, ``-``), 99 the
result: ``1`` ``=`` ``0`` played, ``+`` ``-`` forfeit won or lost, ``W`` ``D`` ``L`` unrated
game, ``H`` half-point bye, ``F`` full-point bye, ``U`` pairing-allocated bye, ``Z`` (or a blank
field) absent with no point.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

FIRST_ROUND_COLUMN = 91  # 0-based start of round 1's field
ROUND_WIDTH = 10
BYE_POINTS = {"H": 0.5, "F": 1.0, "U": 1.0, "Z": 0.0, "": 0.0}  # TRF16's standard values
GAME_POINTS = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "W": 1.0, "D": 0.5, "L": 0.0}


@dataclass(frozen=True)
class Entry:
    """One player's round: ``opponent`` a start rank or None (a bye or an absence), ``colour``
    ``w``/``b``/``-``, ``result`` the TRF code ("" for a blank field)."""

    opponent: int | None
    colour: str
    result: str

    @property
    def paired(self) -> bool:
        """Paired by the pairing: a game (played or forfeited) or the pairing-allocated bye."""
        return self.opponent is not None or self.result == "U"

    @property
    def points(self) -> float:
        return GAME_POINTS[self.result] if self.opponent is not None else BYE_POINTS[self.result]


@dataclass
class Player:
    rank: int  # the start rank
    name: str
    rating: int
    points: float
    rounds: list[Entry] = field(default_factory=list)

    def entry(self, round_no: int) -> Entry:
        """Round ``round_no`` (1-based); past the last field, a blank (absent) entry."""
        return self.rounds[round_no - 1] if round_no <= len(self.rounds) else Entry(None, "-", "")


@dataclass
class Tournament:
    name: str
    rounds: int
    players: dict[int, Player]  # by start rank
    acceleration: dict[int, list[float]] = field(default_factory=dict)  # rank -> virtual points a round

    def played_rounds(self) -> int:
        """The last round in which some game was played."""
        return max((r for p in self.players.values() for r, e in enumerate(p.rounds, 1) if e.opponent), default=0)

    def virtual(self, rank: int, round_no: int) -> float:
        extra = self.acceleration.get(rank, [])
        return extra[round_no - 1] if round_no <= len(extra) else 0.0


def _entry(text: str) -> Entry:
    text = text.ljust(8)
    opponent, colour, result = text[0:4].strip(), text[5].strip() or "-", text[7].strip()
    if result not in GAME_POINTS and result not in BYE_POINTS:
        raise ValueError(f"unknown TRF result code {result!r}")
    rank = int(opponent) if opponent else 0
    return Entry(rank or None, colour, result)


def parse(text: str) -> Tournament:
    """The tournament in a TRF16 text. Raises ``ValueError`` on a result code it does not know,
    or when a player's points differ from the sum of its results (bye values as in TRF16)."""
    name, rounds = "", 0
    players: dict[int, Player] = {}
    acceleration: dict[int, list[float]] = {}
    for line in text.splitlines():
        code = line[:3]
        if code == "012":
            name = line[4:].strip()
        elif code == "XXR":
            rounds = int(line[4:].split()[0])
        elif code == "XXA":
            rank, *extra = line[4:].split()
            acceleration[int(rank)] = [float(x) for x in extra]
        elif code == "001":
            rank = int(line[4:8])
            entries = []
            for start in range(FIRST_ROUND_COLUMN, len(line.rstrip()), ROUND_WIDTH):
                entries.append(_entry(line[start:start + 8]))
            player = Player(rank=rank, name=line[14:47].strip(), rating=int(line[48:52].strip() or 0),
                            points=float(line[80:84]), rounds=entries)
            total = sum(e.points for e in entries)
            if abs(total - player.points) > 1e-9:
                raise ValueError(f"player {rank}: {player.points} points declared, {total} in its results")
            players[rank] = player
    return Tournament(name=name, rounds=rounds, players=players, acceleration=acceleration)


def load(path: Path) -> Tournament:
    return parse(path.read_text(encoding="utf-8"))
