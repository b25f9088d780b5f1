"""Team competitions' settings, team entrants and their squads, through the API
(COMPETITIONS.md §10)."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from leagues.models import ClubMembership, Competition, SquadMember
from tests.leagues.team_world import as_user, make_player, team_world

pytestmark = pytest.mark.django_db

TEAM_KEYS = ("entrant_kind", "tables_per_tie", "tie_points", "game_points", "lineup_deadline_minutes", "tie_decider")


@pytest.fixture
def organiser():
    return get_user_model().objects.create_user(username="boss", is_superuser=True)


class TestTeamSettings:
    def test_a_team_competition_keeps_its_settings_as_top_level_keys(self, organiser):
        answer = as_user(organiser).post("/api/competitions/", {
            "name": "Interclub", "entrant_kind": "team", "tables_per_tie": 4, "tie_points": [2, 1, 0],
            "game_points": [1, 0.5], "lineup_deadline_minutes": 45, "tie_decider": "shootout"}, format="json")
        assert answer.status_code == 201, answer.json()
        data = answer.json()
        assert {k: data[k] for k in TEAM_KEYS} == {
            "entrant_kind": "team", "tables_per_tie": 4, "tie_points": [2, 1, 0], "game_points": [1, 0.5],
            "lineup_deadline_minutes": 45, "tie_decider": "shootout"}
        assert data["tiebreak_preset"] == "teams"
        assert data["criteria"][:4] == ["points", "game_points", "goal_difference", "goals_for"]

    def test_a_player_competition_has_the_defaults(self, organiser):
        data = as_user(organiser).post("/api/competitions/", {"name": "Open"}, format="json").json()
        assert {k: data[k] for k in TEAM_KEYS} == {
            "entrant_kind": "player", "tables_per_tie": 4, "tie_points": [3, 1, 0], "game_points": [1, 0.5],
            "lineup_deadline_minutes": 30, "tie_decider": "goal_difference_then_shootout"}
        assert data["tiebreak_preset"] == "fistf"
        listed = as_user(organiser).get("/api/competitions/").json()
        rows = listed["results"] if isinstance(listed, dict) else listed
        assert all(key in rows[0] for key in TEAM_KEYS)

    @pytest.mark.parametrize(("field", "value"), [
        ("tables_per_tie", 9), ("tables_per_tie", 0), ("tie_points", [1, 3, 0]), ("tie_points", [3, 1]),
        ("tie_points", "3,1,0"), ("game_points", [0.5, 1]), ("game_points", [1, 0.3]), ("game_points", [True, 0]),
        ("tie_decider", "coin"), ("entrant_kind", "club"), ("lineup_deadline_minutes", -1),
    ])
    def test_a_bad_setting_is_a_400_naming_its_field(self, organiser, field, value):
        answer = as_user(organiser).post("/api/competitions/", {"name": "Bad", "entrant_kind": "team", field: value},
                                         format="json")
        assert answer.status_code == 400
        assert field in answer.json()
        assert not Competition.objects.filter(name="Bad").exists()

    def test_the_kind_and_the_tables_are_fixed_once_drawn(self):
        world = team_world(clubs=2)
        answer = world.api.patch(f"/api/competitions/{world.competition.slug}/",
                                 {"tables_per_tie": 2, "entrant_kind": "player", "tie_points": [2, 1, 0]},
                                 format="json")
        assert answer.status_code == 200
        world.competition.refresh_from_db()
        assert (world.competition.tables_per_tie, world.competition.entrant_kind) == (4, "team")
        assert world.competition.tie_points == [2, 1, 0]


class TestTeamEntrants:
    def test_a_club_makes_a_team_entrant_named_after_it_or_as_given(self):
        world = team_world(clubs=1, draw=False)
        club = world.clubs[0]
        assert world.teams[0].name == club.name and world.teams[0].club_id == club.pk
        answer = world.api.post("/api/entrants/", {"competition": world.competition.slug, "club": club.slug,
                                                   "name": "Club A B"}, format="json")
        assert answer.status_code == 201
        assert answer.json()["name"] == "Club A B" and answer.json()["squad"] == []

    def test_a_team_entrant_needs_a_club_and_takes_no_player(self):
        world = team_world(clubs=1, draw=False)
        slug = world.competition.slug
        player = world.players[world.teams[0].pk][0]
        assert "club" in world.api.post("/api/entrants/", {"competition": slug, "name": "X"}, format="json").json()
        answer = world.api.post("/api/entrants/", {"competition": slug, "player": player.pk,
                                                   "club": world.clubs[0].slug, "name": "Y"}, format="json")
        assert answer.status_code == 400 and "player" in answer.json()


class TestSquads:
    def test_the_squad_and_captain_are_in_the_entrant(self):
        world = team_world(clubs=1, draw=False)
        team = world.teams[0]
        data = world.api.get(f"/api/entrants/{team.pk}/").json()
        assert data["squad"] == sorted(p.pk for p in world.players[team.pk])
        assert data["captain"] == world.players[team.pk][0].user_id

    def test_the_captain_sets_the_squad_and_nobody_else_but_the_organisers(self):
        world = team_world(clubs=2, draw=False)
        team, other = world.teams
        players = [p.pk for p in world.players[team.pk]][:4]
        assert world.captain(team).put(f"/api/entrants/{team.pk}/squad/", {"players": players},
                                       format="json").status_code == 200
        assert set(SquadMember.objects.filter(entrant=team).values_list("player_id", flat=True)) == set(players)
        assert world.captain(other).put(f"/api/entrants/{team.pk}/squad/", {"players": players},
                                        format="json").status_code == 403

    def test_too_few_players_an_unlicensed_one_or_another_clubs_are_refused_naming_players(self):
        world = team_world(clubs=2, draw=False)
        team, other = world.teams
        mine = [p.pk for p in world.players[team.pk]]
        url = f"/api/entrants/{team.pk}/squad/"
        assert "players" in world.api.put(url, {"players": mine[:3]}, format="json").json()
        unlicensed = make_player(world.clubs[0], 9, licence=False)
        assert "players" in world.api.put(url, {"players": [*mine, unlicensed.pk]}, format="json").json()
        outsider = world.players[other.pk][0]
        answer = world.api.put(url, {"players": [*mine, outsider.pk]}, format="json")
        assert answer.status_code == 400 and "players" in answer.json()
        assert "players" in world.api.put(url, {"players": [*mine, mine[0]]}, format="json").json()
        assert "captain" in world.api.put(url, {"players": mine, "captain": 10**9}, format="json").json()
        assert set(SquadMember.objects.filter(entrant=team).values_list("player_id", flat=True)) == set(mine)

    def test_a_membership_that_opens_after_the_competitions_first_date_is_refused(self):
        world = team_world(clubs=1, draw=False)
        team = world.teams[0]
        late = make_player(world.clubs[0], 8, since=world.competition.first_date + timedelta(days=10))
        answer = world.api.put(f"/api/entrants/{team.pk}/squad/",
                               {"players": [*[p.pk for p in world.players[team.pk]], late.pk]}, format="json")
        assert answer.status_code == 400 and "players" in answer.json()

    def test_a_player_is_in_one_squad_per_competition(self):
        world = team_world(clubs=1, draw=False)
        team = world.teams[0]
        second = world.api.post("/api/entrants/", {"competition": world.competition.slug, "club": world.clubs[0].slug,
                                                   "name": "Club A B"}, format="json").json()["id"]
        spare = [make_player(world.clubs[0], n) for n in range(10, 14)]
        answer = world.api.put(f"/api/entrants/{second}/squad/",
                               {"players": [world.players[team.pk][0].pk, *[p.pk for p in spare[:3]]]}, format="json")
        assert answer.status_code == 400 and "squad of Club A" in answer.json()["players"][0]
        assert world.api.put(f"/api/entrants/{second}/squad/", {"players": [p.pk for p in spare]},
                             format="json").status_code == 200

    def test_after_the_first_tie_the_captain_is_refused_and_the_organiser_may_only_add(self):
        world = team_world(clubs=2)
        team = world.teams[0]
        tie = world.ties(1)[0]
        world.lineups(tie)
        assert world.record(world.games(tie)[0], 1, 0).status_code == 200
        mine = [p.pk for p in world.players[team.pk]]
        url = f"/api/entrants/{team.pk}/squad/"
        newcomer = make_player(world.clubs[0], 7)
        answer = world.captain(team).put(url, {"players": [*mine, newcomer.pk]}, format="json")
        assert answer.status_code == 409 and answer.json()["error"] == "squad_locked"
        answer = world.api.put(url, {"players": mine[1:]}, format="json")
        assert answer.status_code == 409 and answer.json()["error"] == "squad_locked"
        assert world.api.put(url, {"players": [*mine, newcomer.pk]}, format="json").status_code == 200

    def test_a_player_transferred_midway_stays_in_his_squad_and_cannot_join_a_second(self):
        world = team_world(clubs=2, days_ahead=-1)  # the first ties have kicked off
        team, other = world.teams
        moved = world.players[team.pk][1]
        today = timezone.localdate()
        ClubMembership.objects.filter(player=moved, end_date__isnull=True).update(end_date=today)
        ClubMembership.objects.create(player=moved, club=world.clubs[1], start_date=today + timedelta(days=1))
        answer = world.api.put(f"/api/entrants/{other.pk}/squad/",
                               {"players": [*[p.pk for p in world.players[other.pk]], moved.pk]}, format="json")
        assert answer.status_code == 400 and "players" in answer.json()
        assert SquadMember.objects.filter(entrant=team, player=moved).exists()
        assert moved.pk in world.api.get(f"/api/entrants/{team.pk}/").json()["squad"]

    def test_a_player_competition_knows_no_squads(self):
        world = team_world(clubs=1, draw=False)
        competition = Competition.objects.create(name="Open", slug="open", first_date=date(2026, 1, 1))
        answer = world.api.post("/api/entrants/", {"competition": "open", "name": "Ana"}, format="json")
        assert answer.status_code == 201
        answer = world.api.put(f"/api/entrants/{answer.json()['id']}/squad/",
                               {"players": [p.pk for p in world.players[world.teams[0].pk]]}, format="json")
        assert answer.status_code == 400 and "players" in answer.json()
        assert competition.entrants.count() == 1
