"""A club championship for the team tests: ``clubs`` clubs of ``squad`` licensed players each
(with accounts), a team competition made through the API by its organiser, a team entrant per
club with its squad and a captain (the club's first player), the fixtures drawn. Time comes in
as data: the ties kick off ``days_ahead`` days from now unless a test moves them."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import Club, ClubMembership, Competition, Entrant, Fixture, Player
from leagues.services.ties import games_of


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@dataclass
class TeamWorld:
    competition: Competition
    organiser: object
    api: APIClient
    clubs: list[Club]
    teams: list[Entrant]
    players: dict[int, list[Player]] = field(default_factory=dict)  # team id -> its squad, in order

    def captain(self, team: Entrant) -> APIClient:
        team.refresh_from_db()
        return as_user(team.captain)

    def ties(self, round_number: int | None = None) -> list[Fixture]:
        qs = Fixture.objects.filter(competition=self.competition).exclude(status=Fixture.Status.BYE)
        if round_number is not None:
            qs = qs.filter(round__number=round_number)
        return list(qs.order_by("round__stage__order", "round__number", "position"))

    def games(self, tie: Fixture) -> list[Fixture]:
        return list(games_of(tie))

    def squad_of(self, entrant_id: int) -> list[Player]:
        return self.players[entrant_id]

    def lineup(self, tie: Fixture, side: str, players: list[Player] | None = None, *, client=None):
        entrant = tie.home if side == "home" else tie.away
        players = players if players is not None else self.squad_of(entrant.pk)[: self.competition.tables_per_tie]
        return (client or self.api).post(f"/api/fixtures/{tie.pk}/lineup/",
                                         {"side": side, "players": [p.pk for p in players]}, format="json")

    def lineups(self, tie: Fixture):
        for side in ("home", "away"):
            answer = self.lineup(tie, side)
            assert answer.status_code == 200, answer.json()

    def record(self, game: Fixture, home: int, away: int, *, client=None, **extra):
        return (client or self.api).post(f"/api/fixtures/{game.pk}/result/",
                                         {"home_goals": home, "away_goals": away, **extra}, format="json")

    def play(self, tie: Fixture, scores: list[tuple[int, int]]):
        for game, (home, away) in zip(self.games(tie), scores, strict=True):
            answer = self.record(game, home, away)
            assert answer.status_code == 200, answer.json()


def make_player(club: Club, n: int, *, since: date = date(2020, 1, 1), licence: bool = True) -> Player:
    user = get_user_model().objects.create_user(username=f"{club.slug}-p{n}")
    player = Player.objects.create(first_name=f"P{n}", last_name=club.name, user=user,
                                   licence_number=f"{club.slug}-{n}" if licence else "")
    ClubMembership.objects.create(player=player, club=club, start_date=since)
    return player


def team_world(*, clubs: int = 4, squad: int = 5, days_ahead: int = 3, draw: bool = True, slug: str = "interclub",
               **settings) -> TeamWorld:
    """The championship; ``settings`` are the competition's (``format``, ``tables_per_tie``...)."""
    organiser = get_user_model().objects.create_user(username=f"{slug}-organiser", is_superuser=True)
    api = as_user(organiser)
    first = timezone.localdate() + timedelta(days=days_ahead)
    body = {"name": slug.title(), "slug": slug, "entrant_kind": "team", "first_date": first.isoformat(),
            "lots_seed": 5, **settings}
    answer = api.post("/api/competitions/", body, format="json")
    assert answer.status_code == 201, answer.json()
    competition = Competition.objects.get(slug=slug)
    prefix = "" if slug == "interclub" else f"{slug.title()} "
    made = [Club.objects.create(name=f"{prefix}Club {chr(65 + i)}", slug=f"{slug}-club-{chr(97 + i)}")
            for i in range(clubs)]
    teams, players = [], {}
    for i, club in enumerate(made):
        answer = api.post("/api/entrants/", {"competition": slug, "club": club.slug, "seed": i + 1}, format="json")
        assert answer.status_code == 201, answer.json()
        team = Entrant.objects.get(pk=answer.json()["id"])
        squad_players = [make_player(club, n) for n in range(1, squad + 1)]
        answer = api.put(f"/api/entrants/{team.pk}/squad/", {"players": [p.pk for p in squad_players],
                                                             "captain": squad_players[0].user_id}, format="json")
        assert answer.status_code == 200, answer.json()
        teams.append(team)
        players[team.pk] = squad_players
    if draw:
        answer = api.post(f"/api/competitions/{slug}/generate-fixtures/", {}, format="json")
        assert answer.status_code == 201, answer.json()
    competition.refresh_from_db()
    return TeamWorld(competition=competition, organiser=organiser, api=api, clubs=made, teams=teams, players=players)
