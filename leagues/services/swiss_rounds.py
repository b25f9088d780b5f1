"""A Swiss competition's rounds (COMPETITIONS.md §9), stored one round at a time.

The pairing is the pure ``leagues.rules.swiss.pair_round``; this module reads what it needs from
the stored fixtures (every round paired so far, the points of its official results) and stores
the round it returns: one stage ("Swiss", a league stage: one table), a ``Round`` per round
paired, a fixture per pair (home = white) and, with an odd field, the bye: a fixture of its round
with ``away`` empty and status ``bye``, official at once (it counts the competition's
``bye_points``, no goals), as a knockout's byes are.

A round is paired only once the one before is decided (no fixture scheduled or postponed), and
never again: a correction of an earlier round moves the standings, not the pairings made since.
The caller (``leagues.services.fixtures.fixtures_generate``) holds the competition's lock, so two
requests at once pair one round; each refusal is a ``PairingConflict`` (409) and writes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Max
from django.utils.translation import gettext as _

from leagues.models import Competition, Entrant, Fixture, Outcome, Round, Side, Stage
from leagues.rules import swiss
from leagues.services.results import ResultConflict

STAGE_NAME = "Swiss"


class PairingConflict(ResultConflict):
    """The next round cannot be paired now (HTTP 409): ``round_not_finished`` (``fixtures``: the
    ids of the open ones), ``all_rounds_paired``, or ``no_legal_pairing`` (``rule``: the key of
    ``leagues.rules.swiss.RULES`` that cannot be met)."""


def swiss_stage(competition: Competition) -> Stage | None:
    return competition.stages.filter(order=1).first()


def rounds_paired(competition: Competition) -> int:
    """How many rounds of the Swiss are paired (0 before round 1)."""
    return Round.objects.filter(stage__competition=competition).aggregate(last=Max("number"))["last"] or 0


def late_entry_open(competition: Competition) -> bool:
    """Whether an entrant may still join a competition whose fixtures are made: only a Swiss whose
    rounds are not all paired (it joins from the next round, at zero points)."""
    return (competition.format == Competition.Format.SWISS and competition.rounds is not None
            and rounds_paired(competition) < competition.rounds)


def _seed_order(competition: Competition) -> list[Entrant]:
    """Every entrant, the withdrawn too (their games are the others' history), in seeding order:
    the seeded by seed, then the unseeded (a late entrant) by name."""
    return sorted(competition.entrants.all(), key=lambda e: (e.seed is None, e.seed or 0, e.name, e.pk))


def _open_fixtures(competition: Competition, number: int) -> list[Fixture]:
    return list(Fixture.objects.filter(competition=competition, round__number=number, status__in=Fixture.OPEN)
                .select_related("home", "away").order_by("position", "pk"))


def refusal(competition: Competition) -> PairingConflict | None:
    """Why the next round cannot be paired now (without trying the pairing), or None."""
    paired = rounds_paired(competition)
    if paired and competition.rounds is not None and paired >= competition.rounds:
        return PairingConflict("all_rounds_paired", _("all %(rounds)s rounds are paired") % {"rounds": competition.rounds})
    if paired:
        still = _open_fixtures(competition, paired)
        if still:
            listed = ", ".join(f"#{f.pk} {f.home.name if f.home_id else '?'} v {f.away.name if f.away_id else '?'}"
                               for f in still)
            return PairingConflict(
                "round_not_finished",
                _("round %(round)s is not finished; still open: %(fixtures)s") % {"round": paired, "fixtures": listed},
                fixtures=[f.pk for f in still])
    return None


@dataclass(frozen=True)
class NextRound:
    """For the competition page: the number of the round to pair next and, when it cannot be
    paired now, the reason (a sentence in the reader's language)."""

    number: int
    refused: str = ""
    code: str = ""


def next_round(competition: Competition) -> NextRound:
    refused = refusal(competition)
    return NextRound(number=rounds_paired(competition) + 1, refused=refused.detail if refused else "",
                     code=refused.code if refused else "")


def _points(competition: Competition, result, side: str) -> int:
    """The competition's points ``side`` earned by ``result`` (a double no-show: none)."""
    if result.outcome == Outcome.WALKOVER and result.outcome_side == Side.BOTH:
        return 0
    if not result.winner_side:
        return competition.points_draw
    return competition.points_win if result.winner_side == side else competition.points_loss


def swiss_games(competition: Competition) -> list[swiss.Game]:
    """Every fixture of the rounds paired as the engine reads it: a bye; a result with the points
    each side earned (a walkover too, ``played`` False: the two met, neither took a colour); a result struck by a withdrawal (annulled) as a game that
    gave no points (the two met). A fixture cancelled unplayed is no game."""
    games = []
    fixtures = (Fixture.objects.filter(competition=competition)
                .exclude(status__in=(Fixture.Status.CANCELLED, *Fixture.OPEN))
                .select_related("round", "result").order_by("round__number", "position"))
    for fixture in fixtures:
        number = fixture.round.number
        if fixture.status == Fixture.Status.BYE or fixture.away_id is None:
            games.append(swiss.Game(number, fixture.home_id, None))
            continue
        result = getattr(fixture, "result", None) if fixture.status in Fixture.RESULTED else None
        home = _points(competition, result, "home") if result else 0
        away = _points(competition, result, "away") if result else 0
        walkover = result is not None and result.outcome == Outcome.WALKOVER
        games.append(swiss.Game(number, fixture.home_id, fixture.away_id, home, away, played=not walkover))
    return games


def swiss_round_pair(*, competition: Competition, now: datetime) -> list[Fixture]:
    """Pairs and stores the next round of the Swiss ``competition`` (locked by the caller, its
    ``rounds`` checked before round 1); returns its fixtures, the bye last.

    Raises ``PairingConflict``: ``all_rounds_paired`` after the last round, ``round_not_finished``
    while the current round has open fixtures, ``no_legal_pairing`` when the engine finds no
    pairing that keeps the absolute rules (nothing is stored then)."""
    refused = refusal(competition)
    if refused is not None:
        raise refused
    number = rounds_paired(competition) + 1
    entrants = _seed_order(competition)
    withdrawn = {e.pk for e in entrants if e.withdrawn}
    try:
        paired = swiss.pair_round(
            [e.pk for e in entrants], swiss_games(competition), round_no=number, rounds=competition.rounds,
            bye_points=competition.bye_value, win_points=competition.points_win, withdrawn=withdrawn,
        )
    except swiss.NoLegalPairing as exc:
        raise PairingConflict("no_legal_pairing", str(exc), rule=exc.rule) from exc
    stage = swiss_stage(competition) or Stage.objects.create(
        competition=competition, order=1, name=STAGE_NAME, kind=Stage.Kind.LEAGUE)
    rnd = Round.objects.create(stage=stage, number=number, name=f"Round {number}", date=competition.round_date(number))
    kickoff = competition.kickoff_on(rnd.date)
    boards = [*paired.pairs, *([(paired.bye, None)] if paired.bye is not None else [])]
    return [
        Fixture.objects.create(
            competition=competition, round=rnd, position=position, home_id=home, away_id=away,
            date=rnd.date, kickoff_at=kickoff, status=Fixture.Status.BYE if away is None else Fixture.Status.SCHEDULED,
            status_changed_at=now, playable_since=now,
        )
        for position, (home, away) in enumerate(boards)
    ]
