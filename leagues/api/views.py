"""API views. Reads are open to everyone; writes go through ``leagues`` services.

A user error raised by a service (``ScheduleError``, ``EntrantError``, ``ResultError``) becomes
a 400 naming the field; a state that refuses the change (``ResultConflict``, ``PlayError``,
``Busy``) its own status (409, 403) with ``{"error": CODE, "detail": SENTENCE}``; anything
else is a bug and stays a 500.
"""
from __future__ import annotations

import json
import time
from contextlib import contextmanager

from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, Prefetch, Q
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from config.api_schema import RefusalSerializer
from leagues import pagecache
from leagues.models import (
    Club,
    ClubMembership,
    Competition,
    Entrant,
    Fixture,
    KickoffProposal,
    Player,
    Result,
    ResultReport,
    Round,
    Season,
    Stage,
    Standing,
    aware_in,
)
from leagues.permissions import can_manage_competition, is_referee, referee_refusal, result_role
from leagues.rules.official import ResultError
from leagues.selectors import knockout_rounds, related_count, standings_api_tables
from leagues.services import online as fixture_online
from leagues.services.competitions import SlugTaken, competition_create, competition_update
from leagues.services.entrants import EntrantError, entrant_add, entrant_remove, entrant_withdraw
from leagues.services.fixtures import ScheduleError, fixtures_generate
from leagues.services.kickoffs import fixture_reschedule
from leagues.services.locks import Busy
from leagues.services.proposals import kickoff_accept, kickoff_decline, kickoff_propose
from leagues.services.ratings import placings_now
from leagues.services.referees import referee_result_record
from leagues.services.reports import RECORDED_FIELDS, report_confirm, report_dispute, report_submit
from leagues.services.result_requests import result_once
from leagues.services.results import (
    ResultConflict,
    decision_record,
    match_annul_decision,
    result_record,
)
from leagues.services.seeding import SeedingError
from leagues.services.standings import standings_recompute
from leagues.services.teams import lineup_set, squad_set, tie_shootout_record
from matches.services.online import match_public
from matches.services.play import PlayError

from . import filters, serializers
from .calls import FixtureCallActions
from .permissions import OrganiserOrReadOnly


class Refused(APIException):
    """A change the current state refuses: its status (409, 403) and ``{"error", "detail"}``."""

    def __init__(self, status_code: int, body: dict):
        super().__init__(body.get("detail", ""))
        self.status_code = status_code
        self.detail = body


@contextmanager
def user_errors(default_field: str):
    """Turns a service's user error into a 400 naming the field (``ResultError`` names its own),
    and a refusal of the current state into its status with ``{"error", "detail"}``."""
    try:
        yield
    except ResultError as exc:
        raise ValidationError({exc.field: [exc.message]}) from exc
    except (ScheduleError, EntrantError, SeedingError) as exc:
        raise ValidationError({getattr(exc, "field", None) or default_field: [str(exc)]}) from exc
    except (ResultConflict, PlayError) as exc:
        raise Refused(exc.status_code, exc.to_json()) from exc
    except Busy as exc:
        raise Refused(409, {"error": exc.code, "detail": exc.detail}) from exc
    except PermissionError as exc:
        raise PermissionDenied(str(exc)) from exc


CONFLICT = OpenApiResponse(RefusalSerializer, description='The state refuses it: {"error": CODE, "detail": SENTENCE}.')


class ApiMixin:
    # the authentication is the API's default: the token, then the session (config.settings)
    permission_classes = [OrganiserOrReadOnly]
    schema_conflicts = True  # writes go through services that may refuse them with a 409 (config.api_schema)


# --- Registry -----------------------------------------------------------------------------------


@extend_schema_view(list=extend_schema(summary="Clubs"), retrieve=extend_schema(summary="A club"))
class ClubViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.ClubSerializer
    filterset_class = filters.ClubFilter
    search_fields = ["name", "short_name", "city"]
    ordering_fields = ["name", "city", "founded"]
    lookup_field = "slug"

    def get_queryset(self):
        return Club.objects.annotate(
            members=Count("memberships", filter=Q(memberships__end_date__isnull=True))
        ).order_by("name")


@extend_schema_view(list=extend_schema(summary="Players"), retrieve=extend_schema(summary="A player"))
class PlayerViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    filterset_class = filters.PlayerFilter
    search_fields = ["first_name", "last_name", "licence_number"]
    ordering_fields = ["last_name", "first_name", "licence_number"]

    def get_serializer_class(self):
        return serializers.PlayerDetailSerializer if self.action == "retrieve" else serializers.PlayerSerializer

    def get_queryset(self):
        return Player.objects.prefetch_related(
            Prefetch("memberships", queryset=ClubMembership.objects.select_related("club").order_by("-start_date"))
        ).order_by("last_name", "first_name", "pk")


@extend_schema_view(list=extend_schema(summary="Seasons"), retrieve=extend_schema(summary="A season"))
class SeasonViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Season.objects.order_by("-start_date")
    serializer_class = serializers.SeasonSerializer
    filterset_class = filters.SeasonFilter
    search_fields = ["name"]
    ordering_fields = ["start_date", "name"]
    lookup_field = "slug"


# --- Competitions -------------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(summary="Competitions"),
    retrieve=extend_schema(summary="A competition"),
    create=extend_schema(summary="Create a competition (the creator becomes an organiser)"),
    update=extend_schema(summary="Change a competition's settings"),
    partial_update=extend_schema(summary="Change some of a competition's settings"),
)
class CompetitionViewSet(ApiMixin, mixins.CreateModelMixin, mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.CompetitionSerializer
    filterset_class = filters.CompetitionFilter
    search_fields = ["name", "slug"]
    ordering_fields = ["name", "created_at", "first_date"]
    lookup_field = "slug"
    creates_competitions = True

    def get_queryset(self):
        return (
            Competition.objects.select_related("season")
            .prefetch_related("organisers", "referees")
            .annotate(
                # subqueries, not joins: entrants x fixtures multiplies rows (a big groups stage is millions)
                entrant_count=related_count(Entrant),
                fixture_count=related_count(Fixture),
                open_fixture_count=related_count(Fixture, filter=Q(status__in=Fixture.OPEN)),
            )
            .order_by("-created_at", "name")
        )

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        self.perform_create(serializer)
        # read back as a list reads it (its counts are annotations), so the answer has every field
        data = self.get_serializer(self.get_queryset().get(pk=serializer.instance.pk)).data
        return Response(data, status=status.HTTP_201_CREATED, headers=self.get_success_headers(data))

    def perform_create(self, serializer):
        data = serializer.validated_data
        slug_given = hasattr(self.request.data, "get") and bool(self.request.data.get("slug"))

        fields = {name: value for name, value in data.items() if name not in ("organisers", "referees")}
        try:
            serializer.instance = competition_create(fields=fields, auto_slug=not slug_given, organiser=self.request.user,
                                                     organisers=data.get("organisers", ()),
                                                     referees=data.get("referees", ()))
        except SlugTaken as exc:
            raise ValidationError({"slug": [str(exc)]}) from exc
        except IntegrityError as exc:  # a constraint the validation did not foresee
            raise ValidationError({"non_field_errors": [f"these settings contradict each other: {exc}"]}) from exc

    def perform_update(self, serializer):
        try:
            competition_update(competition=serializer.instance, data=serializer.validated_data, by=self.request.user)
        except IntegrityError as exc:  # a constraint the validation did not foresee
            raise ValidationError({"non_field_errors": [f"these settings contradict each other: {exc}"]}) from exc

    @extend_schema(summary="A competition's standings, each row with its tie-break explanation",
                   responses=serializers.StandingsSerializer)
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def standings(self, request, slug=None):
        # read by every fan at once on a championship day: one small query and one cache read
        # when nothing changed (``leagues.pagecache``), a 304 to a client that has it already
        scope = pagecache.competition_scope(slug or "")
        if scope is None:
            raise NotFound()  # DRF's own "Not found.", in the reader's language
        key = pagecache.scoped_key("standings-api", scope)
        etag = f'"{key.rsplit(":", 1)[1]}"'
        entry = cache.get(key)
        if entry is None:
            competition = Competition.objects.select_related("season").get(pk=scope[0])
            data = standings_data(competition)
            body = JSONRenderer().render(data)
            # plain data (to pickle), and the bytes an anonymous client is served early
            # (``pagecache.early_answer``)
            entry = {"data": json.loads(body), "content": body, "type": "application/json", "at": time.time()}
            cache.set(key, entry, pagecache.PAGE_TTL)
            pagecache.keep_for_outage("standings-api", slug, key=key, entry=entry)
        if pagecache.not_modified(request, etag, entry["at"]):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        elif request.accepted_renderer.format == "json":
            # the bytes rendered once, for a signed-in reader too (an anonymous one is answered
            # them earlier still, by ``pagecache.early_answer``)
            response = HttpResponse(entry["content"], content_type=entry["type"])
        else:
            response = Response(entry["data"])  # the browsable API's page
        pagecache.validators(response, etag, entry["at"], public=pagecache.cacheable(request))
        return response

    @extend_schema(summary="A competition's knockout bracket, round by round",
                   responses=serializers.BracketSerializer)
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def bracket(self, request, slug=None):
        competition = self.get_object()
        return Response(serializers.BracketSerializer(bracket_payload(competition)).data)

    @extend_schema(summary="A competition's placings as the results stand: a league's from its standings, a "
                           "knockout's from the round each entrant went out in (shared places as place..place_to)",
                   responses=serializers.PlacingSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def placings(self, request, slug=None):
        competition = self.get_object()
        return Response(serializers.PlacingSerializer(placings_payload(competition), many=True).data)

    @extend_schema(summary="Generate every stage, round and fixture from the entrants and the format, "
                           "seeding the entrants by hand, by rating or by ranking; a Swiss: pair its next round",
                   request=serializers.GenerateFixturesSerializer,
                   responses={201: serializers.GenerateFixturesSerializer,
                              400: OpenApiResponse(description="The schedule cannot be made."),
                              409: OpenApiResponse(RefusalSerializer, description=(
                                  "A Swiss's next round cannot be paired now: round_not_finished (fixtures), "
                                  "all_rounds_paired, no_legal_pairing (rule)."))})
    @action(detail=True, methods=["post"], url_path="generate-fixtures", pagination_class=None, filter_backends=[])
    def generate_fixtures(self, request, slug=None):
        competition = self.get_object()
        data = serializers.GenerateFixturesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        seeding = data.validated_data["seeding"]
        with user_errors("fixtures"):
            fixtures = fixtures_generate(competition=competition, seeding=seeding)
        return Response({"fixtures": len(fixtures), "seeding": seeding}, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Recompute the stored standings from all the official results",
                   request=None, responses=serializers.StandingsSerializer)
    @action(detail=True, methods=["post"], url_path="recompute-standings", pagination_class=None, filter_backends=[])
    def recompute_standings(self, request, slug=None):
        competition = self.get_object()
        with user_errors("competition"):
            standings_recompute(competition_id=competition.pk, force=True)
        return Response(standings_data(competition))


def standings_data(competition: Competition) -> dict:
    """The standings answer (``serializers.StandingsSerializer``'s shape): its head through the
    serializer, its rows as read (``leagues.selectors.standings_api_tables``), already in the
    row serializer's output (a DRF field per value of 6,668 rows would be most of the answer's
    time)."""
    tables, computed_at = standings_api_tables(competition=competition)
    head = serializers.StandingsSerializer({
        "competition": competition.slug, "criteria": serializers.criteria_info(competition),
        "computed_at": computed_at, "tables": [],
    }).data
    return {**head, "tables": tables}


def kickoff_of(fixture: Fixture, data: dict):
    """``data["kickoff_at"]`` aware: a time without an offset is the competition's local time.
    Raises ``ValidationError`` naming ``kickoff_at`` for a local time its zone skips."""
    kickoff_at = data["kickoff_at"]
    if kickoff_at.tzinfo is not None:
        return kickoff_at
    try:
        return aware_in(fixture.competition.zone, kickoff_at)
    except DjangoValidationError as exc:
        raise ValidationError({"kickoff_at": exc.messages}) from exc


def fixture_queryset(*, games: bool = False):
    """Fixtures with what their JSON reads; ``games``: the games of team ties too."""
    return (Fixture.with_games if games else Fixture.objects).select_related(
        "competition", "round__stage", "group", "home__club", "away__club", "result",
        "home_player", "away_player", "tie__competition",
    ).prefetch_related(
        Prefetch("reports", queryset=ResultReport.objects.exclude(status=ResultReport.Status.REPLACED).order_by("-pk"),
                 to_attr="shown_reports"),
        Prefetch("kickoff_proposals", queryset=KickoffProposal.objects.order_by("-pk"), to_attr="shown_proposals"),
    )


def bracket_payload(competition: Competition) -> dict:
    """The knockout rounds of every knockout stage, in order, each naming its stage (a double
    elimination's bracket); ``stage`` names the first."""
    stage = competition.stages.filter(kind=Stage.Kind.KNOCKOUT).order_by("order").first()
    rounds = [{"number": rnd.number, "name": str(rnd), "stage": rnd.stage.name, "fixtures": fixtures}
              for rnd, fixtures in knockout_rounds(competition=competition, fixtures_qs=fixture_queryset())]
    return {"competition": competition.slug, "stage": stage.name if stage else None, "rounds": rounds}


def placings_payload(competition: Competition) -> list[dict]:
    """Every placed entrant, by place then name (``leagues.services.ratings.placings_now``)."""
    bands = placings_now(competition=competition)
    names = dict(competition.entrants.filter(pk__in=bands).values_list("pk", "name"))
    rows = [{"entrant": names[pk], "entrant_id": pk, "place": band.place, "place_to": band.place_to}
            for pk, band in bands.items()]
    return sorted(rows, key=lambda r: (r["place"], r["place_to"], r["entrant"], r["entrant_id"]))


@extend_schema_view(
    list=extend_schema(summary="Entrants"),
    retrieve=extend_schema(summary="An entrant"),
    create=extend_schema(summary="Enter a player or a name into a competition (before the fixtures are drawn)"),
    update=extend_schema(summary="Change an entrant's name, club or seed"),
    partial_update=extend_schema(summary="Change some of an entrant's details"),
    destroy=extend_schema(summary="Remove an entrant (before the fixtures are drawn)"),
)
class EntrantViewSet(ApiMixin, viewsets.ModelViewSet):
    serializer_class = serializers.EntrantSerializer
    filterset_class = filters.EntrantFilter
    search_fields = ["name", "player__last_name", "club__name"]
    ordering_fields = ["name", "seed"]

    def get_queryset(self):
        return Entrant.objects.select_related("competition", "player", "club").order_by("competition", "seed", "name")

    def create(self, request, *args, **kwargs):
        # A competition named in the body that the requester does not organise is a 403, not a 400.
        slug = request.data.get("competition") if hasattr(request.data, "get") else None
        if isinstance(slug, str):
            competition = Competition.objects.filter(slug=slug).first()
            if competition is not None and not can_manage_competition(request.user, competition):
                raise PermissionDenied(OrganiserOrReadOnly.message)
        return super().create(request, *args, **kwargs)

    def perform_create(self, serializer):
        data = serializer.validated_data
        with user_errors("competition"):
            serializer.instance = entrant_add(
                competition=data["competition"], name=data.get("name", ""),
                player=data.get("player"), club=data.get("club"), seed=data.get("seed"),
            )

    def perform_update(self, serializer):
        try:
            with transaction.atomic():
                serializer.save()
        except IntegrityError as exc:  # a name or seed taken by a request at the same moment
            raise ValidationError({"name": ["this entrant contradicts another one (name, player or seed)"]}) from exc

    def perform_destroy(self, instance):
        with user_errors("competition"):
            entrant_remove(entrant=instance)

    @extend_schema(summary="Set a team entrant's squad and captain (an organiser or its captain; fixed after the "
                           "first tie, when an organiser may still add players)",
                   request=serializers.SquadSerializer,
                   responses={200: serializers.EntrantSerializer,
                              400: OpenApiResponse(description="Bad input; the field is named."),
                              403: OpenApiResponse(description="Neither an organiser nor the team's captain."),
                              409: CONFLICT})
    @action(detail=True, methods=["put"], permission_classes=[permissions.IsAuthenticated])
    def squad(self, request, pk=None):
        entrant = self.get_object()
        body = serializers.SquadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with user_errors("players"):
            squad_set(entrant=entrant, players=body.validated_data["players"],
                      captain=body.validated_data["captain"], by=request.user)
        entrant.refresh_from_db()
        return Response(self.get_serializer(entrant).data)

    @extend_schema(summary="Withdraw an entrant; the competition's withdrawal policy applies",
                   request=serializers.EntrantWithdrawSerializer, responses=serializers.EntrantSerializer)
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        entrant = self.get_object()
        body = serializers.EntrantWithdrawSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with user_errors("withdrawn_at"):
            entrant = entrant_withdraw(entrant=entrant, by=request.user, reason=body.validated_data["reason"])
        entrant.refresh_from_db()
        return Response(self.get_serializer(entrant).data)


# --- Schedule, results --------------------------------------------------------------------------


@extend_schema_view(list=extend_schema(summary="Rounds"), retrieve=extend_schema(summary="A round"))
class RoundViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.RoundSerializer
    filterset_class = filters.RoundFilter
    ordering_fields = ["number", "date"]

    def get_queryset(self):
        return (
            Round.objects.select_related("stage__competition")
            .annotate(fixture_count=Count("fixtures"))
            .order_by("stage__competition", "stage__order", "number")
        )


@extend_schema_view(list=extend_schema(summary="Fixtures"), retrieve=extend_schema(summary="A fixture"))
class FixtureViewSet(ApiMixin, FixtureCallActions, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.FixtureSerializer
    filterset_class = filters.FixtureFilter
    search_fields = ["home__name", "away__name", "label"]
    ordering_fields = ["date", "kickoff_at", "round__number", "position"]

    def get_queryset(self):
        return fixture_queryset(games=True).order_by("kickoff_at", "date", "competition", "round__stage__order", "round__number",
                                           "group__name", "position", "pk")

    def _write(self, request, serializer_class, write, default_field: str = "fixture") -> Response:
        """Checks the body with ``serializer_class``, calls ``write(fixture, data)`` (a service),
        and answers with the fixture as it now stands."""
        fixture = self.get_object()
        body = serializer_class(data=request.data)
        body.is_valid(raise_exception=True)
        with user_errors(default_field):
            write(fixture, body.validated_data)
        return Response(serializers.FixtureSerializer(fixture_queryset(games=True).get(pk=fixture.pk),
                                                      context={"request": request}).data)

    @extend_schema(
        summary="A team's line-up of a tie: its squad's players in table order (an organiser or its captain, "
                "until the line-up deadline)",
        request=serializers.LineupSerializer,
        responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="Bad input; the field is named."),
                   403: OpenApiResponse(description="Neither an organiser nor the side's captain."), 409: CONFLICT},
    )
    @action(detail=True, methods=["post"], serializer_class=serializers.LineupSerializer,
            permission_classes=[permissions.IsAuthenticated])
    def lineup(self, request, pk=None):
        return self._write(request, serializers.LineupSerializer, lambda fixture, data: lineup_set(
            tie=fixture, side=data["side"], players=data["players"], by=request.user), default_field="players")

    @extend_schema(
        summary="The shoot-out of a knockout tie level after its games",
        request=serializers.TieShootoutSerializer,
        responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="Bad input; the field is named."),
                   409: CONFLICT},
    )
    @action(detail=True, methods=["post"], url_path="tie-shootout", serializer_class=serializers.TieShootoutSerializer)
    def tie_shootout(self, request, pk=None):
        return self._write(request, serializers.TieShootoutSerializer, lambda f, data: tie_shootout_record(
            tie=f, by=request.user, **data), default_field="home_shootout")

    @extend_schema(
        summary="Record (or correct) the result of a fixture played at a real table; from one of its players, "
                "a report for the opponent to confirm (202); from a table referee, official at their table",
        request=serializers.ResultRecordSerializer,
        parameters=[OpenApiParameter(
            "Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
            description="1 to 100 printable ASCII characters, the sender's: a retry with the same key and body "
                        "gets the first answer again (`Idempotent-Replayed: true`) and stores nothing twice; the "
                        "same key with another body is a 409 idempotency_key_reused.")],
        responses={200: serializers.FixtureSerializer,
                   202: OpenApiResponse(serializers.FixtureSerializer, description="A player's report: the fixture "
                                        "with its report, nothing official yet."),
                   400: OpenApiResponse(description="Bad input; the field is named."),
                   403: OpenApiResponse(description="Neither an organiser, a player of the fixture nor a referee at "
                                                    "its table; a referee's cascade, or a correction of a result "
                                                    "someone else recorded."),
                   409: CONFLICT},
    )
    @action(detail=True, methods=["post"], serializer_class=serializers.ResultRecordSerializer,
            permission_classes=[permissions.IsAuthenticated])
    def result(self, request, pk=None):
        fixture = self.get_object()
        role = result_role(request.user, fixture)
        if role is None:
            refusal = referee_refusal(request.user, fixture) if is_referee(request.user, fixture.competition) else None
            raise PermissionDenied(refusal or OrganiserOrReadOnly.message)
        body = serializers.ResultRecordSerializer(data=request.data)
        payload = request.data if isinstance(request.data, dict) else {}
        with user_errors("fixture"):
            answer = result_once(fixture=fixture, user=request.user, key=request.headers.get("Idempotency-Key"),
                                 body=dict(payload), write=lambda: self._result_write(request, fixture, role, body))
        response = Response(answer.data, status=answer.status_code)
        if answer.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    def _result_write(self, request, fixture: Fixture, role: str, body) -> tuple[int, dict]:
        """The result of ``role`` (``result_role``) from the checked ``body``: its status and the
        fixture as it now stands, as JSON."""
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if role == "official":
            result_record(fixture=fixture, recorded_by=request.user, **data)
        elif role == "referee":
            referee_result_record(fixture=fixture, referee=request.user, **data)
        else:
            report_submit(fixture=fixture, user=request.user,
                          **{name: data[name] for name in RECORDED_FIELDS if name in data})
        shown = serializers.FixtureSerializer(fixture_queryset(games=True).get(pk=fixture.pk),
                                              context={"request": request}).data
        return (status.HTTP_202_ACCEPTED if role == "report" else status.HTTP_200_OK), json.loads(
            JSONRenderer().render(shown))

    def _player_write(self, request, serializer_class, write) -> Response:
        """A write by one of the fixture's players (the service checks who): the fixture as it now stands."""
        fixture = self.get_object()
        body = serializer_class(data=request.data if request.data is not None else {})
        body.is_valid(raise_exception=True)
        with user_errors("fixture"):
            write(fixture, body.validated_data)
        return Response(serializers.FixtureSerializer(fixture_queryset(games=True).get(pk=fixture.pk)).data)

    @extend_schema(summary="Confirm the opponent's reported result: it becomes official",
                   request=serializers.ReportAnswerSerializer,
                   responses={200: serializers.FixtureSerializer, 403: CONFLICT, 409: CONFLICT})
    @action(detail=True, methods=["post"], url_path="confirm-result", permission_classes=[permissions.IsAuthenticated])
    def confirm_result(self, request, pk=None):
        return self._player_write(request, serializers.ReportAnswerSerializer, lambda fixture, data: report_confirm(
            fixture=fixture, user=request.user, report_id=data.get("report")))

    @extend_schema(summary="Dispute the opponent's reported result: the organisers decide",
                   request=serializers.ReportDisputeSerializer,
                   responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="No reason."),
                              403: CONFLICT, 409: CONFLICT})
    @action(detail=True, methods=["post"], url_path="dispute-result", permission_classes=[permissions.IsAuthenticated])
    def dispute_result(self, request, pk=None):
        return self._player_write(request, serializers.ReportDisputeSerializer, lambda fixture, data: report_dispute(
            fixture=fixture, user=request.user, reason=data["reason"]))

    @extend_schema(summary="Propose a new kick-off to the opponent (a player of the fixture)",
                   request=serializers.RescheduleSerializer,
                   responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="Outside the limits."),
                              403: CONFLICT, 409: CONFLICT})
    @action(detail=True, methods=["post"], url_path="propose-kickoff", permission_classes=[permissions.IsAuthenticated])
    def propose_kickoff(self, request, pk=None):
        def write(fixture, data):
            kickoff_propose(fixture=fixture, user=request.user, kickoff_at=kickoff_of(fixture, data),
                            reason=data["reason"])
        return self._player_write(request, serializers.RescheduleSerializer, write)

    @extend_schema(summary="Accept the opponent's proposed kick-off: the fixture moves to it",
                   request=serializers.ProposalAnswerSerializer,
                   responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="Outside the limits."),
                              403: CONFLICT, 409: CONFLICT})
    @action(detail=True, methods=["post"], url_path="accept-kickoff", permission_classes=[permissions.IsAuthenticated])
    def accept_kickoff(self, request, pk=None):
        return self._player_write(request, serializers.ProposalAnswerSerializer, lambda fixture, data: kickoff_accept(
            fixture=fixture, user=request.user, proposal_id=data.get("proposal")))

    @extend_schema(summary="Decline the opponent's proposed kick-off: the fixture keeps its kick-off",
                   request=serializers.ProposalAnswerSerializer,
                   responses={200: serializers.FixtureSerializer, 403: CONFLICT, 409: CONFLICT})
    @action(detail=True, methods=["post"], url_path="decline-kickoff", permission_classes=[permissions.IsAuthenticated])
    def decline_kickoff(self, request, pk=None):
        return self._player_write(request, serializers.ProposalAnswerSerializer, lambda fixture, data: kickoff_decline(
            fixture=fixture, user=request.user, proposal_id=data.get("proposal"), reason=data.get("reason", "")))

    @extend_schema(
        summary="An organiser's decision on an online fixture: a walkover or a disqualification; it overrides "
                "the match's log",
        request=serializers.DecisionSerializer,
        responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="Bad input; the field is named."),
                   409: CONFLICT},
    )
    @action(detail=True, methods=["post"], serializer_class=serializers.DecisionSerializer)
    def decision(self, request, pk=None):
        return self._write(request, serializers.DecisionSerializer, lambda fixture, data: decision_record(
            fixture=fixture, decided_by=request.user, **data))

    @extend_schema(
        summary="Annul the fixture's online match, to be replayed (its result, if any, is struck)",
        request=serializers.AnnulMatchSerializer,
        responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="Bad input; the field is named."),
                   409: CONFLICT},
    )
    @action(detail=True, methods=["post"], url_path="annul-match", serializer_class=serializers.AnnulMatchSerializer)
    def annul_match(self, request, pk=None):
        return self._write(request, serializers.AnnulMatchSerializer, lambda fixture, data: match_annul_decision(
            fixture=fixture, decided_by=request.user, **data))

    @extend_schema(
        summary="Move the fixture's kick-off",
        request=serializers.RescheduleSerializer,
        responses={200: serializers.FixtureSerializer, 400: OpenApiResponse(description="Bad input; the field is named."),
                   409: CONFLICT},
    )
    @action(detail=True, methods=["post"], serializer_class=serializers.RescheduleSerializer)
    def reschedule(self, request, pk=None):
        def write(fixture, data):
            fixture_reschedule(fixture=fixture, by=request.user, kickoff_at=kickoff_of(fixture, data),
                               reason=data["reason"])

        return self._write(request, serializers.RescheduleSerializer, write, default_field="kickoff_at")

    @extend_schema(
        summary="Check in, as one of the fixture's two players, to play it online (inside its window)",
        request=None,
        responses={200: OpenApiResponse(description="The online match: its status, check-ins and state."),
                   403: CONFLICT, 409: CONFLICT},
    )
    @action(detail=True, methods=["post"], url_path="check-in", permission_classes=[permissions.IsAuthenticated])
    def check_in(self, request, pk=None):
        fixture = self.get_object()
        with user_errors("fixture"):
            match = fixture_online.fixture_check_in(fixture=fixture, user=request.user, now=timezone.now())
        return Response(match_public(match, user=request.user))

    @extend_schema(summary="The fixture's history: every accepted change of its result, entrants and kick-off "
                           "(organisers)",
                   responses={200: serializers.FixtureChangeSerializer(many=True),
                              403: OpenApiResponse(description="Only its competition's organisers read it.")})
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def history(self, request, pk=None):
        fixture = self.get_object()
        if not can_manage_competition(request.user, fixture.competition):
            raise PermissionDenied(OrganiserOrReadOnly.message)
        changes = fixture.changes.select_related("by").order_by("-at", "-pk")
        return Response(serializers.FixtureChangeSerializer(changes, many=True).data)


@extend_schema_view(list=extend_schema(summary="Results"), retrieve=extend_schema(summary="A result"))
class ResultViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.ResultListSerializer
    filterset_class = filters.ResultFilter
    ordering_fields = ["recorded_at", "adjudicated_at", "fixture__date"]

    def get_queryset(self):
        return (
            Result.objects.select_related("fixture__competition", "fixture__home", "fixture__away")
            .order_by("-fixture__date", "-recorded_at", "-pk")
        )


@extend_schema_view(list=extend_schema(summary="Standings rows"), retrieve=extend_schema(summary="A standings row"))
class StandingViewSet(ApiMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.StandingRowSerializer
    filterset_class = filters.StandingFilter
    ordering_fields = ["position", "points"]

    def get_queryset(self):
        return Standing.objects.select_related("entrant__club", "group", "competition").order_by(
            "competition", "group__name", "position"
        )
