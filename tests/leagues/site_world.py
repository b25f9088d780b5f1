"""A small federation for the API, page and permission tests: five kinds of requester and two
competitions, one organised by ``organiser`` and one by ``other``."""
from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import Group, Permission

from leagues.models import ClubMembership, Competition, Entrant, Player
from leagues.permissions import FEDERATION_ADMINS_GROUP
from leagues.services.fixtures import fixtures_generate
from leagues.services.tokens import token_create
from tests.leagues.factories import ClubFactory, PlayerFactory, SeasonFactory, UserFactory

ACTORS = ("anonymous", "player", "organiser", "other_organiser", "federation_admin")


@dataclass
class World:
    users: dict
    competition: Competition
    other_competition: Competition
    clubs: list
    players: list[Player]

    def token(self, actor: str) -> str | None:
        user = self.users.get(actor)
        return token_create(user=user)[1] if user else None

    def entrants(self) -> list[Entrant]:
        return list(self.competition.entrants.order_by("seed"))

    def draw(self):
        return fixtures_generate(competition=self.competition)


def build_world(*, entrants: int = 4, fmt: str = Competition.Format.LEAGUE) -> World:
    add_competition = Permission.objects.get(codename="add_competition", content_type__app_label="leagues")
    organisers = Group.objects.get_or_create(name="Organisers")[0]
    organisers.permissions.add(add_competition)
    admins = Group.objects.get_or_create(name=FEDERATION_ADMINS_GROUP)[0]

    users = {name: UserFactory(username=name) for name in ACTORS if name != "anonymous"}
    for name in ("organiser", "other_organiser"):
        users[name].groups.add(organisers)
    users["federation_admin"].groups.add(admins)

    season = SeasonFactory(slug="2026-27", name="Season 2026-27", is_current=True)
    clubs = [ClubFactory(name="Mesa Verde", slug="mesa-verde", city="Porto"),
             ClubFactory(name="Flick United", slug="flick-united", city="Lisboa")]
    players = []
    for i in range(entrants):
        player = PlayerFactory(first_name=f"Ana{i}", last_name=f"Silva{i}")
        ClubMembership.objects.create(player=player, club=clubs[i % 2], start_date="2020-01-01")
        players.append(player)
    if players:
        players[0].user = users["player"]
        players[0].save()

    competition = Competition.objects.create(
        name="Liga", slug="liga", season=season, format=fmt, lots_seed=7, first_date="2026-09-01",
    )
    competition.organisers.add(users["organiser"])
    for i, player in enumerate(players, start=1):
        Entrant.objects.create(competition=competition, name=player.full_name, player=player,
                               club=clubs[(i - 1) % 2], seed=i)
    other = Competition.objects.create(name="Taça", slug="taca", format=Competition.Format.KNOCKOUT, lots_seed=3)
    other.organisers.add(users["other_organiser"])
    for i in range(1, 5):
        Entrant.objects.create(competition=other, name=f"T{i}", seed=i)
    return World(users=users, competition=competition, other_competition=other, clubs=clubs, players=players)
