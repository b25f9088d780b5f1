"""Serializers of the API. They shape data and check input; every write goes through a service.

Fields a client must never set by mass assignment (a fixture's status, the official score,
standings, the drawing of lots, organisers for non-administrators) are read-only here.
"""
from __future__ import annotations

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from leagues.models import (
    FIXED_AFTER_DRAW,
    MATCH_SETTINGS,
    TEAM_FIXED_AFTER_DRAW,
    Club,
    ClubMembership,
    Competition,
    Entrant,
    Fixture,
    FixtureChange,
    KickoffProposal,
    Outcome,
    Player,
    Result,
    ResultReport,
    Round,
    Season,
    Side,
    Stage,
    Standing,
    Venue,
    match_settings_errors,
    validate_printable,
)
from leagues.permissions import can_manage_competition, is_federation_admin
from leagues.rules.best_thirds import settings_errors as best_thirds_errors
from leagues.rules.calls import table_names_error
from leagues.rules.standings import CRITERIA, validate_criteria
from leagues.services.calls import calls_beyond
from leagues.services.proposals import proposal_state
from leagues.services.reports import report_state
from leagues.services.swiss_rounds import late_entry_open
from leagues.services.teams import lineup_deadline, lineup_visible
from leagues.services.ties import games_of
from leagues.slugs import unique_slug

from .referees import referees_validate

# --- Registry -----------------------------------------------------------------------------------


class ClubSerializer(serializers.ModelSerializer):
    members = serializers.IntegerField(read_only=True, help_text="Current members.")

    class Meta:
        model = Club
        fields = ["id", "slug", "name", "short_name", "city", "founded", "members"]


class ClubRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Club
        fields = ["id", "slug", "name", "short_name"]


class MembershipSerializer(serializers.ModelSerializer):
    club = ClubRefSerializer(read_only=True)

    class Meta:
        model = ClubMembership
        fields = ["club", "start_date", "end_date"]


class PlayerSerializer(serializers.ModelSerializer):
    full_name = serializers.CharField(read_only=True)
    club = serializers.SerializerMethodField(help_text="The current club, if any.")

    class Meta:
        model = Player
        fields = ["id", "first_name", "last_name", "full_name", "licence_number", "club"]

    @extend_schema_field(ClubRefSerializer(allow_null=True))
    def get_club(self, player: Player):
        current = [m for m in player.memberships.all() if m.end_date is None]
        return ClubRefSerializer(current[0].club).data if current else None


class PlayerDetailSerializer(PlayerSerializer):
    memberships = MembershipSerializer(many=True, read_only=True)

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "memberships"]


class SeasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = Season
        fields = ["id", "slug", "name", "start_date", "end_date", "is_current"]


# --- Competitions -------------------------------------------------------------------------------


class CompetitionSerializer(serializers.ModelSerializer):
    """A competition's settings. Organisers change their own; only federation administrators
    choose the organisers. The seed of the drawing of lots and the lots drawn are read-only."""

    season = serializers.SlugRelatedField(
        slug_field="slug", queryset=Season.objects.all(), allow_null=True, required=False
    )
    organisers = serializers.SlugRelatedField(
        slug_field="username", many=True, required=False,
        queryset=Competition.organisers.field.related_model.objects.all(),
        help_text="Usernames. Only a federation administrator may set them; the creator is added.",
    )
    referees = serializers.SlugRelatedField(
        slug_field="username", many=True, required=False,
        queryset=Competition.referees.field.related_model.objects.filter(is_active=True),
        help_text="Usernames of the table referees: each records the results of the fixtures called to their "
                  "hall tables, and nothing else.",
    )
    referee_tables = serializers.JSONField(
        required=False,
        help_text='Which hall tables each referee records: {"username": [table numbers, 1..tables]}; a referee '
                  "without an entry records at every table.",
    )
    criteria = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="The tie-break criteria in order, points first."
    )
    entrant_count = serializers.IntegerField(read_only=True)
    status = serializers.SerializerMethodField(help_text="draft, in_progress or finished (derived).")
    can_edit = serializers.SerializerMethodField(help_text="Whether the requester may change it.")
    standings_current = serializers.SerializerMethodField(
        help_text="Whether the stored standings and bracket come from the latest official results "
                  "(false while the worker recomputes them)."
    )
    conflicts = serializers.JSONField(
        source="derived_conflicts", read_only=True,
        help_text="Decided or started knockout fixtures that the results would now fill otherwise: "
                    '[{"fixture", "holds": [home, away], "would_hold": [home, away]}] (entrant ids).',
    )

    class Meta:
        model = Competition
        fields = [
            "id", "slug", "name", "season", "format", "status",
            "double_round_robin", "third_place_match", "placement_matches", "grand_final_reset", "group_count",
            "qualifiers_per_group", "best_thirds", "rounds", "bye_points", "halves", "half_minutes", "extra_time",
            "extra_time_minutes", "shootout", "shootout_kicks",
            "points_win", "points_draw", "points_loss", "points_bye",
            "tiebreak_preset", "tiebreak_criteria", "criteria",
            "walkover_goals_for", "walkover_goals_against", "withdrawal_policy",
            "rule_set", "rule_params", "first_date", "days_between_rounds",
            "venue", "time_zone", "kickoff_time", "checkin_opens_minutes", "checkin_grace_minutes",
            "organisers", "lots_seed", "entrant_count", "can_edit", "standings_current", "conflicts",
            "rated", "ranking_tier", "seeding", "seeded_at",
            "player_reports", "report_confirm_hours", "report_dispute_days", "reschedule_by_players",
            "reschedule_latest_days", "overdue_days",
            "entrant_kind", "tables_per_tie", "tie_points", "game_points", "lineup_deadline_minutes", "tie_decider",
            "referees", "referee_tables",
            "tables", "table_names", "min_rest_minutes", "auto_call",
            "created_at", "updated_at",
        ]
        read_only_fields = ["lots_seed", "created_at", "updated_at", "seeding", "seeded_at"]
        extra_kwargs = {"slug": {"required": False}}

    def get_fields(self):
        fields = super().get_fields()
        request = self.context.get("request")
        if request is None or not is_federation_admin(request.user):
            fields["organisers"].read_only = True
        if self.instance is not None and not isinstance(self.instance, list | tuple) and self._has_fixtures():
            # The format cannot change under a schedule that is already drawn.
            for name in (*FIXED_AFTER_DRAW, *TEAM_FIXED_AFTER_DRAW):
                fields[name].read_only = True
        return fields

    def _has_fixtures(self) -> bool:
        return getattr(self.instance, "pk", None) is not None and self.instance.fixtures.exists()

    @extend_schema_field(serializers.ChoiceField(choices=["draft", "in_progress", "finished"]))
    def get_status(self, competition: Competition) -> str:
        return competition_status(competition)

    def get_standings_current(self, competition: Competition) -> bool:
        return competition.derived_version >= competition.results_version

    def get_can_edit(self, competition: Competition) -> bool:
        request = self.context.get("request")
        return bool(request and can_manage_competition(request.user, competition))

    def validate_tiebreak_criteria(self, value):
        if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
            raise serializers.ValidationError(_("give a list of criterion keys"))
        try:
            validate_criteria([k for k in value if k != "points"])
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc
        return value

    def validate_tie_points(self, value):
        """A tie won, drawn, lost: three whole numbers, won >= drawn >= lost >= 0."""
        if (not isinstance(value, list) or len(value) != 3
                or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 100 for v in value)
                or not value[0] >= value[1] >= value[2]):
            raise serializers.ValidationError(_("give three whole numbers from 0 to 100, won >= drawn >= lost, "
                                                "e.g. [3, 1, 0]"))
        return value

    def validate_game_points(self, value):
        """A game won, drawn: two numbers in halves, won >= drawn >= 0."""
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 100
                           and float(v) * 2 == int(float(v) * 2) for v in value)
                or not value[0] >= value[1]):
            raise serializers.ValidationError(_("give two numbers in halves from 0 to 100, won >= drawn, "
                                                "e.g. [1, 0.5]"))
        return [int(v) if float(v).is_integer() else float(v) for v in value]

    def validate_rule_params(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError(_("give an object"))
        return value

    def validate_qualifiers_per_group(self, value):
        if value < 1:
            raise serializers.ValidationError(_("at least one qualifier per group"))
        return value

    def validate_group_count(self, value):
        if value < 1:
            raise serializers.ValidationError(_("at least one group"))
        return value

    def validate_halves(self, value):
        if value < 1:
            raise serializers.ValidationError(_("at least one half"))
        return value

    def validate(self, attrs):
        def get(name):
            if name in attrs:
                return attrs[name]
            if self.instance is not None:
                return getattr(self.instance, name)
            return Competition._meta.get_field(name).get_default()

        win, draw, loss = get("points_win"), get("points_draw"), get("points_loss")
        if not win >= draw >= loss:
            raise serializers.ValidationError({"points_draw": "points must be win >= draw >= loss"})
        if get("walkover_goals_for") <= get("walkover_goals_against"):
            raise serializers.ValidationError({"walkover_goals_for": "a walkover needs a winner"})
        if get("tiebreak_preset") == "custom" and not get("tiebreak_criteria"):
            raise serializers.ValidationError({"tiebreak_criteria": "the custom preset needs criteria"})
        if self.instance is None and get("entrant_kind") == "team" and "tiebreak_preset" not in attrs:
            attrs["tiebreak_preset"] = "teams"  # tie points, then game points, goals, head-to-head (§10)
        if self.instance is None and get("format") == Competition.Format.SWISS and "tiebreak_preset" not in attrs:
            attrs["tiebreak_preset"] = "fide_swiss"  # a Swiss is ranked by the FIDE criteria unless told otherwise
        if get("format") == Competition.Format.SWISS:
            if attrs.get("withdrawal_policy") == Competition.WithdrawalPolicy.ANNUL:
                raise serializers.ValidationError({"withdrawal_policy": Competition.SWISS_KEEPS_RESULTS})
            attrs["withdrawal_policy"] = Competition.WithdrawalPolicy.FORFEIT_REMAINING
        if get("placement_matches") and get("format") == Competition.Format.LEAGUE:
            raise serializers.ValidationError({"placement_matches": _(
                "placement matches are played after a knockout; a league's standings decide its places")})
        if get("format") == Competition.Format.GROUPS_KNOCKOUT:
            entrants = self.instance.entrants.filter(withdrawn_at__isnull=True).count() if self.instance else None
            error = best_thirds_errors(get("group_count"), get("qualifiers_per_group"), get("best_thirds"),
                                       entrants=entrants)
            if error:
                raise serializers.ValidationError({"best_thirds": error})
        if get("format") == Competition.Format.DOUBLE_ELIMINATION:
            for name in ("placement_matches", "third_place_match"):
                if get(name):
                    raise serializers.ValidationError({name: _(
                        "a double elimination places everyone by its losers' bracket; it has no "
                        "third-place or placement matches")})
        if "table_names" in attrs or "tables" in attrs:
            error = table_names_error(get("table_names"), get("tables"))
            if error:
                raise serializers.ValidationError({"table_names": error})
        if self.instance is not None and "tables" in attrs:
            beyond = calls_beyond(competition=self.instance, tables=attrs["tables"])
            if beyond:
                raise serializers.ValidationError({"tables": _(
                    "table %(table)s holds a call: withdraw it before the hall has fewer tables")
                    % {"table": beyond[-1]}})
        errors = match_settings_errors({name: get(name) for name in (*MATCH_SETTINGS, "rule_set")})
        if errors:
            raise serializers.ValidationError(errors)
        referees_validate(attrs, get, self.instance)
        if self.instance is None and not attrs.get("slug"):
            attrs["slug"] = unique_slug(attrs.get("name", ""), model=Competition, max_length=80,
                                        fallback="competition")
        return attrs


def competition_status(competition: Competition) -> str:
    """``draft`` (no fixtures), ``in_progress`` (open fixtures left) or ``finished``."""
    fixtures = getattr(competition, "fixture_count", None)
    open_ = getattr(competition, "open_fixture_count", None)
    if fixtures is None:
        fixtures = competition.fixtures.count()
        open_ = competition.fixtures.filter(status__in=Fixture.OPEN).count()
    if not fixtures:
        return "draft"
    return "in_progress" if open_ else "finished"


class CompetitionRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Competition
        fields = ["id", "slug", "name"]


class WholePrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """A primary key that is a whole number (or its digits): ``1.5`` or ``true`` is refused, not
    taken as ``1``."""

    def to_internal_value(self, data):
        if isinstance(data, bool | float):
            self.fail("incorrect_type", data_type=type(data).__name__)
        return super().to_internal_value(data)


class EntrantSerializer(serializers.ModelSerializer):
    """An entrant. ``competition`` is set on creation and fixed after; ``withdrawn_at`` is set
    only by the withdraw action."""

    competition = serializers.SlugRelatedField(slug_field="slug", queryset=Competition.objects.all())
    player = WholePrimaryKeyRelatedField(queryset=Player.objects.all(), allow_null=True, required=False)
    club = serializers.SlugRelatedField(
        slug_field="slug", queryset=Club.objects.all(), allow_null=True, required=False
    )
    # methods, not ``source="player.full_name", default=None``: DRF leaves a field with a default
    # out of a partial update's answer (PATCH), and these are always in it
    player_name = serializers.SerializerMethodField()
    club_name = serializers.SerializerMethodField()
    name = serializers.CharField(max_length=160, required=False, validators=[validate_printable])

    squad = serializers.SerializerMethodField(help_text="A team entrant: its squad's player ids (else []).")

    def get_squad(self, entrant: Entrant) -> list[int]:
        if not (entrant.club_id and entrant.competition.is_team):
            return []  # a player competition's entrants have no squad (and cost no query)
        return sorted(entrant.squad.values_list("player_id", flat=True))

    def get_player_name(self, entrant: Entrant) -> str | None:
        return entrant.player.full_name if entrant.player_id else None

    def get_club_name(self, entrant: Entrant) -> str | None:
        return entrant.club.name if entrant.club_id else None

    class Meta:
        model = Entrant
        fields = ["id", "competition", "name", "player", "player_name", "club", "club_name", "seed", "withdrawn_at",
                  "captain", "squad"]
        read_only_fields = ["withdrawn_at", "captain"]
        validators = []  # uniqueness is checked in ``validate`` with the field named

    def get_fields(self):
        fields = super().get_fields()
        if self.instance is not None:
            fields["competition"].read_only = True
        return fields

    def validate_competition(self, competition):
        request = self.context.get("request")
        if request is not None and not can_manage_competition(request.user, competition):
            raise serializers.ValidationError(_("you do not organise this competition"))
        if competition.fixtures.exists() and not late_entry_open(competition):
            raise serializers.ValidationError(_("the fixtures are drawn: entrants can no longer be added"))
        return competition

    def validate_seed(self, value):
        if value is not None and value < 1:
            raise serializers.ValidationError(_("1 is the top seed"))
        return value

    def validate(self, attrs):
        competition = attrs.get("competition") or self.instance.competition
        player = attrs.get("player", getattr(self.instance, "player", None))
        club = attrs.get("club", getattr(self.instance, "club", None))
        if competition.is_team:
            if attrs.get("player") is not None:
                raise serializers.ValidationError({"player": _("a team competition enters clubs: give the club "
                                                              "(and a name), then set the squad")})
            if club is None:
                raise serializers.ValidationError({"club": _("a team entrant is a club: give its slug")})
            if "name" not in attrs and self.instance is None:
                attrs["name"] = club.name
        if "name" not in attrs and self.instance is None:
            if player is None:
                raise serializers.ValidationError({"name": "give a name or a player"})
            attrs["name"] = player.full_name
        if player is not None and club is None and "club" not in attrs and self.instance is None:
            attrs["club"] = player.current_club
        others = competition.entrants.exclude(pk=getattr(self.instance, "pk", None))
        if attrs.get("player") is not None and others.filter(player=attrs["player"]).exists():
            raise serializers.ValidationError({"player": "this player is entered already"})
        if "name" in attrs and others.filter(name=attrs["name"]).exists():
            raise serializers.ValidationError({"name": "another entrant has this name"})
        if attrs.get("seed") is not None and others.filter(seed=attrs["seed"]).exists():
            raise serializers.ValidationError({"seed": "another entrant has this seed"})
        return attrs


class SquadSerializer(serializers.Serializer):
    """A team entrant's squad and captain (``PUT /api/entrants/{id}/squad/``)."""

    players = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**62), max_length=200,
                                    help_text="Player ids: licensed, with an open membership in the team's club.")
    captain = serializers.IntegerField(min_value=1, max_value=2**62, required=False, allow_null=True, default=None,
                                       help_text="The user id of the captain (sets the squad and line-ups).")


class LineupSerializer(serializers.Serializer):
    """A side's line-up of a tie (``POST /api/fixtures/{tie_id}/lineup/``)."""

    side = serializers.ChoiceField(choices=[("home", "home"), ("away", "away")])
    players = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**62), max_length=8,
                                    help_text="Player ids of the side's squad in table order (table 1 first).")


class TieShootoutSerializer(serializers.Serializer):
    home_shootout = serializers.IntegerField(min_value=0, max_value=99)
    away_shootout = serializers.IntegerField(min_value=0, max_value=99)


class EntrantRefSerializer(serializers.ModelSerializer):
    club = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)

    class Meta:
        model = Entrant
        fields = ["id", "name", "player", "club", "seed"]


# --- Schedule, results --------------------------------------------------------------------------


class StageSerializer(serializers.ModelSerializer):
    class Meta:
        model = Stage
        fields = ["id", "order", "name", "kind"]


class RoundSerializer(serializers.ModelSerializer):
    competition = serializers.SlugRelatedField(source="stage.competition", slug_field="slug", read_only=True)
    stage = StageSerializer(read_only=True)
    label = serializers.CharField(source="__str__", read_only=True)
    fixture_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Round
        fields = ["id", "competition", "stage", "number", "name", "label", "date", "fixture_count"]


class ResultSerializer(serializers.ModelSerializer):
    """A fixture's official result: the score recorded (at the table, or by the online match's
    log), the official score, who owns it (``source``) and, for a decision, its ``reason``."""

    official = serializers.BooleanField(source="is_official", read_only=True)
    outcome_side = serializers.ChoiceField(
        choices=Side.choices, allow_blank=True, read_only=True,
        help_text='A walkover: the side that did not show (both: a double no-show); a disqualification: the side '
                  'disqualified; "" otherwise.')
    winner_side = serializers.CharField(read_only=True, help_text='"home", "away", or "" for a draw or nobody.')
    match = serializers.IntegerField(source="match_id", read_only=True, allow_null=True,
                                     help_text="The online match it comes from, or that the decision was taken on.")

    class Meta:
        model = Result
        fields = [
            "outcome", "outcome_side", "table_home_goals", "table_away_goals",
            "home_et_goals", "away_et_goals", "home_shootout", "away_shootout",
            "home_discipline", "away_discipline",
            "home_goals", "away_goals", "winner_side", "official", "source", "reason", "match",
            "recorded_at", "adjudicated_at",
        ]
        read_only_fields = fields


def shown_report(fixture: Fixture) -> ResultReport | None:
    """The fixture's latest report not replaced by its reporter (prefetched as ``shown_reports``)."""
    rows = getattr(fixture, "shown_reports", None)
    if rows is None:
        rows = list(fixture.reports.exclude(status=ResultReport.Status.REPLACED).order_by("-pk")[:1])
    return rows[0] if rows else None


def shown_proposal(fixture: Fixture) -> KickoffProposal | None:
    rows = getattr(fixture, "shown_proposals", None)
    if rows is None:
        rows = list(fixture.kickoff_proposals.order_by("-pk")[:1])
    return rows[0] if rows else None


def fixture_result(fixture: Fixture) -> Result | None:
    try:
        return fixture.result
    except Fixture.result.RelatedObjectDoesNotExist:
        return None


class FixtureSerializer(serializers.ModelSerializer):
    competition = CompetitionRefSerializer(read_only=True)
    stage = serializers.CharField(source="round.stage.name", read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)
    round_name = serializers.CharField(source="round.__str__", read_only=True)
    group = serializers.CharField(source="group.name", read_only=True, default=None, allow_null=True)
    home = EntrantRefSerializer(read_only=True, allow_null=True, help_text="null: not known yet, or a bye.")
    away = EntrantRefSerializer(read_only=True, allow_null=True, help_text="null: not known yet, or a bye.")
    result = serializers.SerializerMethodField()
    winner_to_slot = serializers.CharField(
        read_only=True, help_text='Knockout: "home" or "away" slot of ``winner_to`` the winner fills.'
    )
    venue = serializers.ChoiceField(source="effective_venue", choices=Venue.choices, read_only=True,
                                    help_text="Where it is played: the fixture's own venue, or its competition's.")
    checkin_opens_at = serializers.DateTimeField(read_only=True, allow_null=True,
                                                 help_text="Online: when check-in opens (the kick-off minus the "
                                                           "competition's checkin_opens_minutes); null at a table.")
    checkin_closes_at = serializers.DateTimeField(read_only=True, allow_null=True,
                                                  help_text="Online: the kick-off plus the check-in grace.")
    match = serializers.IntegerField(source="match_id", read_only=True, allow_null=True,
                                     help_text="The id of its online match, once set up.")
    report = serializers.SerializerMethodField(
        help_text='At a table: the latest result a player reported, {"id", "by": side, "home_goals", "away_goals", '
                  '..., "status": waiting, disputed, official or closed, "confirm_by", ...}; null: none.')
    kickoff_proposal = serializers.SerializerMethodField(
        help_text='The latest kick-off a player proposed, {"id", "by", "kickoff_at", "reason", "status": open, '
                  'accepted, declined or withdrawn}; null: none.')

    class Meta:
        model = Fixture
        fields = [
            "id", "competition", "stage", "round", "round_name", "group", "position", "label",
            "home", "away", "date", "kickoff_at", "venue", "checkin_opens_at", "checkin_closes_at", "match",
            "status", "winner_to", "winner_to_slot", "result", "report", "kickoff_proposal",
            "hall_table", "called_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_report(self, fixture: Fixture):
        report = shown_report(fixture)
        if report is None:
            return None
        state = report_state(report)
        state.pop("by_user", None)
        return state

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_kickoff_proposal(self, fixture: Fixture):
        proposal = shown_proposal(fixture)
        return proposal_state(proposal) if proposal is not None else None

    @extend_schema_field(ResultSerializer(allow_null=True))
    def get_result(self, fixture: Fixture):
        result = fixture_result(fixture)
        return ResultSerializer(result).data if result is not None else None

    def to_representation(self, fixture: Fixture) -> dict:
        data = super().to_representation(fixture)
        if not fixture.is_online:  # at a table there is no check-in
            data["checkin_opens_at"] = data["checkin_closes_at"] = None
        if fixture.competition.is_team:
            data.update(team_fixture_data(fixture, user=getattr(self.context.get("request"), "user", None)))
        return data


def _player_ref(player: Player | None) -> dict | None:
    return {"id": player.pk, "full_name": player.full_name} if player is not None else None


def team_fixture_data(fixture: Fixture, *, user) -> dict:
    """A team competition's fixture: a game's ``tie``, ``table`` and players; a tie's ``games``
    (each ``id``, ``table``, ``home_player``, ``away_player``, ``status``, ``result``), its
    ``lineups`` (whether each side's is in; a side's players are hidden from the other team until
    both are in or the deadline has passed), ``lineup_deadline``, the game points and the tie's
    shoot-out (COMPETITIONS.md §10)."""
    if fixture.tie_id is not None:
        tie = fixture.tie
        shown = {side: lineup_visible(tie, side, user=user, now=timezone.now()) for side in ("home", "away")}
        return {"tie": fixture.tie_id, "table": fixture.table,
                "home_player": _player_ref(fixture.home_player) if shown["home"] else None,
                "away_player": _player_ref(fixture.away_player) if shown["away"] else None}
    now = timezone.now()
    shown = {side: lineup_visible(fixture, side, user=user, now=now) for side in ("home", "away")}
    games = list(games_of(fixture).select_related("home_player", "away_player", "result"))
    points = tie_points_of(fixture, games)
    deadline = lineup_deadline(fixture)
    return {
        "tie": None, "table": None,
        "games": [{
            "id": g.pk, "table": g.table, "status": g.status,
            "home_player": _player_ref(g.home_player) if shown["home"] else None,
            "away_player": _player_ref(g.away_player) if shown["away"] else None,
            "result": ResultSerializer(fixture_result(g)).data if fixture_result(g) is not None else None,
        } for g in games],
        "lineups": {side: {"submitted": getattr(fixture, f"{side}_lineup_at") is not None,
                           "visible": shown[side]} for side in ("home", "away")},
        "lineup_deadline": deadline.isoformat() if deadline else None,
        "home_game_points": points[0], "away_game_points": points[1],
        "home_tie_shootout": fixture.home_tie_shootout, "away_tie_shootout": fixture.away_tie_shootout,
    }


def tie_points_of(tie: Fixture, games: list[Fixture]) -> tuple[float, float]:
    """The game points the tie's games with a result give each side so far."""
    win, draw = tie.competition.game_points
    home = away = 0
    for game in games:
        result = fixture_result(game)
        if result is None or game.status not in Fixture.RESULTED or result.is_double_no_show:
            continue
        if result.winner_side == "home":
            home += win
        elif result.winner_side == "away":
            away += win
        else:
            home += draw
            away += draw
    return home, away


class ResultListSerializer(ResultSerializer):
    """A result with its fixture, for the results list."""

    fixture = serializers.IntegerField(source="fixture_id", read_only=True)
    competition = serializers.CharField(source="fixture.competition.slug", read_only=True)
    home = serializers.CharField(source="fixture.home.name", read_only=True, default=None, allow_null=True)
    away = serializers.CharField(source="fixture.away.name", read_only=True, default=None, allow_null=True)
    date = serializers.DateField(source="fixture.date", read_only=True)

    class Meta(ResultSerializer.Meta):
        fields = ["id", "fixture", "competition", "date", "home", "away", *ResultSerializer.Meta.fields]
        read_only_fields = fields


class ResultRecordSerializer(serializers.Serializer):
    """What an organiser records from the table. The official score is computed, never sent.
    A walkover needs only its side (``both``: a double no-show); a played match or a
    disqualification needs the goals (a disqualification's: the score at that moment)."""

    outcome = serializers.ChoiceField(choices=Outcome.choices, default="played",
                                      help_text="played, walkover or disqualification (a bye is never recorded).")
    outcome_side = serializers.ChoiceField(
        choices=Side.choices, required=False, allow_blank=True, default="",
        help_text="Walkover: the side that did not show (both: a double no-show). Disqualification: the side "
                  "disqualified.",
    )
    home_goals = serializers.IntegerField(min_value=0, max_value=99, required=False,
                                          help_text="Regulation time, on the table (not for a walkover).")
    away_goals = serializers.IntegerField(min_value=0, max_value=99, required=False)
    home_et_goals = serializers.IntegerField(min_value=0, max_value=99, default=0)
    away_et_goals = serializers.IntegerField(min_value=0, max_value=99, default=0)
    home_shootout = serializers.IntegerField(min_value=0, max_value=99, required=False, allow_null=True, default=None)
    away_shootout = serializers.IntegerField(min_value=0, max_value=99, required=False, allow_null=True, default=None)
    home_discipline = serializers.IntegerField(min_value=0, max_value=99, default=0)
    away_discipline = serializers.IntegerField(min_value=0, max_value=99, default=0)

    cascade = serializers.BooleanField(
        default=False, help_text="In a knockout, when the winner has played on: put the later fixtures it changes "
                                 "back to scheduled with their new entrant (their results kept in the history).")
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000,
                                   help_text="Why (kept in the fixture's history).")
    home = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**62,
                                    help_text="The home entrant's id you saw; when the fixture's entrants have "
                                              "changed since, the result is refused (409 entrants_changed).")
    away = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**62,
                                    help_text="The away entrant's id you saw (with home).")

    def validate_outcome(self, value):
        if value == Outcome.BYE:
            raise serializers.ValidationError(_("a bye is made by the draw, not recorded"))
        return value

    def validate(self, attrs):
        if "home" in attrs or "away" in attrs:
            attrs["expected_entrants"] = (attrs.pop("home", None), attrs.pop("away", None))
        if attrs.get("outcome") == Outcome.WALKOVER:
            for name in ("home_goals", "away_goals", "home_et_goals", "away_et_goals"):
                attrs[name] = 0
            attrs["home_shootout"] = attrs["away_shootout"] = None
            return attrs
        missing = {name: ["This field is required."] for name in ("home_goals", "away_goals") if name not in attrs}
        if missing:
            raise serializers.ValidationError(missing)
        if attrs.get("outcome_side") == Side.BOTH:
            raise serializers.ValidationError({"outcome_side": ["both is only a walkover: a double no-show"]})
        return attrs


class ReportAnswerSerializer(serializers.Serializer):
    """The opponent's confirmation of a reported result."""

    report = serializers.IntegerField(required=False, min_value=1, max_value=2**62,
                                      help_text="The report's id you saw; when the reporter has replaced it since, "
                                                "409 report_changed. Absent: the report as it stands.")


class ReportDisputeSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=1000, help_text="Why; the organisers read it.")


class ProposalAnswerSerializer(serializers.Serializer):
    proposal = serializers.IntegerField(required=False, min_value=1, max_value=2**62,
                                        help_text="The proposal's id you saw (409 proposal_changed when replaced).")
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)


DECISION_OUTCOMES = [(Outcome.WALKOVER.value, Outcome.WALKOVER.label),
                     (Outcome.DISQUALIFICATION.value, Outcome.DISQUALIFICATION.label)]


class DecisionSerializer(serializers.Serializer):
    """An organiser's decision on an online fixture; it overrides the match's log."""

    outcome = serializers.ChoiceField(choices=DECISION_OUTCOMES, help_text="walkover or disqualification")
    outcome_side = serializers.ChoiceField(choices=Side.choices,
                                           help_text="The side that did not show (both: a double no-show), "
                                                     "or the side disqualified.")
    reason = serializers.CharField(max_length=1000, help_text="Why; kept with the result and shown on the fixture.")
    cascade = serializers.BooleanField(default=False)
    home = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**62,
                                    help_text="The home entrant's id you saw; when the fixture's entrants have "
                                              "changed since, the decision is refused (409 entrants_changed).")
    away = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**62,
                                    help_text="The away entrant's id you saw (with home).")

    def validate(self, attrs):
        if "home" in attrs or "away" in attrs:
            attrs["expected_entrants"] = (attrs.pop("home", None), attrs.pop("away", None))
        if attrs["outcome"] == Outcome.DISQUALIFICATION and attrs["outcome_side"] == Side.BOTH:
            raise serializers.ValidationError({"outcome_side": ["a disqualification is of one side"]})
        if not attrs["reason"].strip():
            raise serializers.ValidationError({"reason": ["give the reason for this decision"]})
        return attrs


class EntrantWithdrawSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="",
                                   help_text="Why (kept with the walkovers it makes and in the history); empty: "
                                             "\"<entrant> withdrew.\"")


class AnnulMatchSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=1000, help_text="Why; kept in the fixture's history.")
    cascade = serializers.BooleanField(default=False)

    def validate_reason(self, value):
        if not value.strip():
            raise serializers.ValidationError(_("give the reason for annulling the match"))
        return value


class RescheduleSerializer(serializers.Serializer):
    kickoff_at = serializers.CharField(
        max_length=40, help_text="ISO 8601, e.g. 2026-12-05T18:00:00-03:00; without an offset, the time is the "
                                 "competition's local time (its time_zone).")
    reason = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")

    def validate_kickoff_at(self, value):
        try:
            parsed = parse_datetime(value.strip())
        except ValueError:
            parsed = None
        if parsed is None:
            raise serializers.ValidationError(_("give an ISO 8601 date and time, e.g. 2026-12-05T18:00:00-03:00"))
        if not 1900 <= parsed.year <= 2200:
            raise serializers.ValidationError(_("give a year from 1900 to 2200"))
        return parsed


class FixtureChangeSerializer(serializers.ModelSerializer):
    by = serializers.CharField(source="by.get_username", read_only=True, default=None, allow_null=True)

    class Meta:
        model = FixtureChange
        fields = ["id", "kind", "at", "by", "reason", "before", "after"]
        read_only_fields = fields


# --- Standings, bracket -------------------------------------------------------------------------


class StandingRowSerializer(serializers.ModelSerializer):
    entrant = serializers.CharField(source="entrant.name", read_only=True)
    entrant_id = serializers.IntegerField(read_only=True)
    club = serializers.CharField(source="entrant.club.slug", read_only=True, default=None, allow_null=True)
    withdrawn = serializers.BooleanField(source="entrant.withdrawn", read_only=True)

    class Meta:
        model = Standing
        fields = [
            "position", "entrant", "entrant_id", "club", "played", "won", "drawn", "lost",
            "goals_for", "goals_against", "goal_difference", "points", "discipline",
            "tiebreak", "tiebreak_criterion", "shared", "withdrawn",
        ]
        read_only_fields = fields


class StandingsTableSerializer(serializers.Serializer):
    group = serializers.CharField(allow_null=True)
    rows = StandingRowSerializer(many=True)


class CriterionSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    abbr = serializers.CharField()


class StandingsSerializer(serializers.Serializer):
    competition = serializers.CharField()
    criteria = CriterionSerializer(many=True)
    computed_at = serializers.DateTimeField(allow_null=True)
    tables = StandingsTableSerializer(many=True)


class BracketRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    stage = serializers.CharField(help_text="Its stage: a double elimination's \"Winners' bracket\", "
                                            "\"Losers' bracket\" or \"Grand final\".")
    fixtures = FixtureSerializer(many=True)


class BracketSerializer(serializers.Serializer):
    competition = serializers.CharField()
    stage = serializers.CharField(allow_null=True)
    rounds = BracketRoundSerializer(many=True)


class PlacingSerializer(serializers.Serializer):
    entrant = serializers.CharField(help_text="The entrant's name.")
    entrant_id = serializers.IntegerField()
    place = serializers.IntegerField(help_text="The first place of its band.")
    place_to = serializers.IntegerField(help_text="The last place of its band: above place when shared (5th-8th).")


class GenerateFixturesSerializer(serializers.Serializer):
    fixtures = serializers.IntegerField(read_only=True, help_text="How many fixtures were created.")
    seeding = serializers.ChoiceField(
        choices=["hand", "rating", "ranking"], default="hand",
        help_text="How the entrants are seeded: by hand (their typed seeds), by rating or by the federation ranking.",
    )


def criteria_info(competition: Competition) -> list[dict]:
    return [
        {"key": c.key, "name": c.name, "abbr": c.abbr}
        for c in (CRITERIA[k] for k in competition.criteria if k in CRITERIA)
    ]

