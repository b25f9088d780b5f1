"""API of the federation's year: ratings, the federation ranking (its scale and tiers), the
draw's seeding, and sign-up for competitions. Reads are open to everyone; writes go through
the services; a user error is a 400 naming the field, a refused state a 409
``{"error", "detail"}``."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import date

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, mixins, permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from leagues.api.permissions import OrganiserOrReadOnly
from leagues.api.views import CONFLICT, Refused
from leagues.models import (
    Competition,
    Player,
    PlayerRating,
    RankingScale,
    RankingTier,
    Registration,
    SignUp,
)
from leagues.permissions import can_manage_competition, is_federation_admin
from leagues.rules.placings import format_points, ordinal_band
from leagues.selectors.year import (
    current_ratings_now,
    federation_ranking,
    is_provisional,
    rank_history,
    rating_history,
    rating_now,
)
from leagues.services.locks import Busy
from leagues.services.registration import (
    RegistrationError,
    SignUpRefused,
    places_held,
    registration_open,
    sign_up,
    sign_up_confirm,
    sign_up_refuse,
    sign_up_withdraw,
)


class FederationAdminOrReadOnly(permissions.BasePermission):
    message = "Only a federation administrator may change this."

    def has_permission(self, request, view) -> bool:
        return request.method in permissions.SAFE_METHODS or is_federation_admin(request.user)


def _day(request, name: str = "at") -> date | None:
    raw = request.query_params.get(name)
    if not raw:
        return None
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        raise ValidationError({name: ["give a date as YYYY-MM-DD"]}) from None
    if not date(1900, 1, 1) <= day <= date(2200, 12, 31):
        raise ValidationError({name: ["give a date from 1900-01-01 to 2200-12-31"]})
    return day


# --- Ratings ------------------------------------------------------------------------------------


class RatingSerializer(serializers.ModelSerializer):
    player_name = serializers.CharField(source="player.full_name", read_only=True)
    provisional = serializers.SerializerMethodField(
        help_text="True when the deviation is above RATING_PROVISIONAL_RD (default 110): too few recent games.")

    class Meta:
        model = PlayerRating
        fields = ["player", "player_name", "period_start", "rating", "deviation", "volatility", "games", "wins",
                  "draws", "losses", "provisional"]

    def get_provisional(self, row: PlayerRating) -> bool:
        return is_provisional(row)


@extend_schema(summary="Every rated player's current Glicko-2 rating (the deviation aged to the current period), "
                       "highest first")
class RatingListView(generics.ListAPIView):
    serializer_class = RatingSerializer
    queryset = PlayerRating.objects.none()  # the schema's model; the rows are aged on reading
    filter_backends = []  # a list, in its one order (highest first): no ordering or search parameters

    def get_queryset(self):
        return current_ratings_now()


class RatingHistorySerializer(serializers.Serializer):
    player = serializers.IntegerField()
    current = RatingSerializer(allow_null=True, help_text="The rating now: the latest, its deviation widened for "
                                                          "every rating period without games up to the current one.")
    history = RatingSerializer(many=True, help_text="The rating at the end of each rating period, earliest first.")


@extend_schema(summary="A player's rating and its history, period by period", responses=RatingHistorySerializer)
class RatingHistoryView(APIView):
    def get(self, request, player_id: int):
        player = generics.get_object_or_404(Player, pk=player_id)
        history = rating_history(player=player)
        return Response({"player": player.pk,
                         "current": RatingSerializer(rating_now(history[-1])).data if history else None,
                         "history": RatingSerializer(history, many=True).data})


# --- The federation ranking ----------------------------------------------------------------------


class FinishSerializer(serializers.Serializer):
    competition = serializers.IntegerField()
    competition_name = serializers.CharField()
    place = serializers.IntegerField()
    place_to = serializers.IntegerField()
    placing = serializers.CharField(help_text='e.g. "1st", "3rd-4th".')
    finished_on = serializers.DateField()
    factor = serializers.DecimalField(max_digits=4, decimal_places=2)
    points = serializers.CharField()


class RankingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    shared = serializers.BooleanField()
    player = serializers.IntegerField()
    player_name = serializers.CharField()
    points = serializers.CharField(help_text="A decimal number, as text.")
    explanation = serializers.CharField(help_text='"from 3 competitions: 1st in ..., 3rd-4th in ..."')
    finishes = FinishSerializer(many=True)


class RankingSerializer(serializers.Serializer):
    at = serializers.DateField()
    window_months = serializers.IntegerField()
    rows = RankingRowSerializer(many=True)


def ranking_payload(at: date | None) -> dict:
    at = at or timezone.localdate()
    rows = federation_ranking(at=at)
    scale = RankingScale.current()
    return {"at": at, "window_months": scale.window_months, "rows": [{
        "rank": r.row.rank, "shared": r.row.shared, "player": r.player.pk, "player_name": r.player.full_name,
        "points": format_points(r.row.points), "explanation": r.row.explanation,
        "finishes": [{"competition": f.competition, "competition_name": f.competition_name, "place": f.band.place,
                      "place_to": f.band.place_to, "placing": ordinal_band(f.band), "finished_on": f.finished_on,
                      "factor": f.factor, "points": format_points(points)} for f, points in r.row.finishes],
    } for r in rows]}


@extend_schema(summary="The federation ranking on a day (default today), each row with its explanation",
               parameters=[OpenApiParameter("at", OpenApiTypes.DATE, description="The day (YYYY-MM-DD).")],
               responses=RankingSerializer)
class RankingView(APIView):
    def get(self, request):
        return Response(RankingSerializer(ranking_payload(_day(request))).data)


class RankPointSerializer(serializers.Serializer):
    day = serializers.DateField()
    rank = serializers.IntegerField(allow_null=True, help_text="null: not ranked that day.")
    points = serializers.CharField()


@extend_schema(summary="A player's rank at the end of each of the last twelve months, and today",
               parameters=[OpenApiParameter("at", OpenApiTypes.DATE, description="The last day (YYYY-MM-DD).")],
               responses=RankPointSerializer(many=True))
class RankHistoryView(APIView):
    def get(self, request, player_id: int):
        player = generics.get_object_or_404(Player, pk=player_id)
        history = rank_history(player=player, at=_day(request))
        return Response(RankPointSerializer([{"day": d, "rank": r, "points": format_points(p)} for d, r, p in history],
                                            many=True).data)


class ScaleSerializer(serializers.ModelSerializer):
    class Meta:
        model = RankingScale
        fields = ["first", "second", "third_fourth", "fifth_eighth", "ninth_sixteenth", "other", "window_months"]


@extend_schema(summary="The ranking's points by placing and its window (federation administrators change it)")
class ScaleView(generics.RetrieveUpdateAPIView):
    permission_classes = [FederationAdminOrReadOnly]
    serializer_class = ScaleSerializer

    def get_object(self):
        return RankingScale.current()


class TierSerializer(serializers.ModelSerializer):
    class Meta:
        model = RankingTier
        fields = ["id", "name", "factor"]


@extend_schema(summary="Ranking tiers: a competition's tier multiplies its placings' points")
class TierViewSet(viewsets.ModelViewSet):
    permission_classes = [FederationAdminOrReadOnly]
    serializer_class = TierSerializer
    queryset = RankingTier.objects.all()

    def perform_destroy(self, instance):
        if instance.competitions.exists():
            raise ValidationError({"id": ["competitions have this tier: give them another first"]})
        instance.delete()


# --- Sign-up ------------------------------------------------------------------------------------


@contextmanager
def sign_up_errors():
    """A ``RegistrationError`` is a 400 naming its field; a refusal a 409 ``{"error", "detail"}``."""
    try:
        yield
    except RegistrationError as exc:
        raise ValidationError({exc.field: [str(exc)]}) from exc
    except SignUpRefused as exc:
        raise Refused(409, exc.to_json()) from exc
    except Busy as exc:
        raise Refused(409, {"error": exc.code, "detail": exc.detail}) from exc


class RegistrationSerializer(serializers.ModelSerializer):
    places_held = serializers.SerializerMethodField()
    waiting = serializers.SerializerMethodField()

    class Meta:
        model = Registration
        fields = ["opens_at", "closes_at", "capacity", "licence_required", "waiting_list", "places_held", "waiting"]

    def get_places_held(self, registration: Registration) -> int:
        return places_held(registration.competition)

    def get_waiting(self, registration: Registration) -> int:
        return registration.competition.sign_ups.filter(status=SignUp.Status.WAITING).count()


@extend_schema_view(
    get=extend_schema(summary="A competition's registration (404 when it takes no sign-up)"),
    put=extend_schema(summary="Open or change a competition's registration (its organisers)",
                      responses={200: RegistrationSerializer, 400: OpenApiResponse(description="The field is named."),
                                 409: CONFLICT}),
)
class RegistrationView(generics.GenericAPIView):
    schema_conflicts = True  # a refused sign-up, a lock held: 409 (config.api_schema)
    permission_classes = [OrganiserOrReadOnly]
    serializer_class = RegistrationSerializer

    def _competition(self) -> Competition:
        competition = generics.get_object_or_404(Competition, slug=self.kwargs["slug"])
        self.check_object_permissions(self.request, competition)
        return competition

    def get_object(self) -> Registration:
        """The competition's registration (404 when it takes no sign-up)."""
        return generics.get_object_or_404(Registration, competition=self._competition())

    def get(self, request, slug: str):
        return Response(RegistrationSerializer(self.get_object()).data)

    def put(self, request, slug: str):
        competition = self._competition()
        data = RegistrationSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        with sign_up_errors():
            registration = registration_open(competition=competition, **data.validated_data)
        return Response(RegistrationSerializer(registration).data)


class SignUpSerializer(serializers.ModelSerializer):
    competition = serializers.SlugRelatedField(slug_field="slug", queryset=Competition.objects.all())
    player_name = serializers.CharField(source="player.full_name", read_only=True)

    class Meta:
        model = SignUp
        fields = ["id", "competition", "player", "player_name", "status", "reason", "entrant", "created_at",
                  "decided_at"]
        read_only_fields = ["player", "status", "reason", "entrant", "created_at", "decided_at"]


class RefuseSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=1000, help_text="Why; the player is told it.")


@extend_schema_view(
    list=extend_schema(summary="Sign-ups (filter with ?competition=SLUG and ?status=)"),
    retrieve=extend_schema(summary="A sign-up"),
    create=extend_schema(summary="Sign the requester's player up for a competition (a place, or the waiting list)",
                         responses={201: SignUpSerializer, 400: OpenApiResponse(description="The field is named."),
                                    409: CONFLICT}),
)
class SignUpViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    schema_conflicts = True  # a refused sign-up, a lock held: 409 (config.api_schema)
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    serializer_class = SignUpSerializer
    filterset_fields = ["status"]

    def get_queryset(self):
        rows = SignUp.objects.select_related("competition", "player").order_by("competition", "created_at", "pk")
        slug = self.request.query_params.get("competition")
        return rows.filter(competition__slug=slug) if slug else rows

    def perform_create(self, serializer):
        player = getattr(self.request.user, "player", None)
        if player is None:
            raise ValidationError({"player": ["your account is not a registered player's"]})
        with sign_up_errors():
            serializer.instance = sign_up(competition=serializer.validated_data["competition"], player=player)

    def _decide(self, request, decide):
        entry = self.get_object()
        if not can_manage_competition(request.user, entry.competition):
            raise PermissionDenied(OrganiserOrReadOnly.message)
        with sign_up_errors():
            entry = decide(entry)
        return Response(SignUpSerializer(entry).data)

    @extend_schema(summary="Confirm a sign-up holding a place (organisers): the player is entered", request=None,
                   responses={200: SignUpSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        return self._decide(request, lambda entry: sign_up_confirm(sign_up=entry, by=request.user))

    @extend_schema(summary="Refuse a sign-up with a reason (organisers)", request=RefuseSerializer,
                   responses={200: SignUpSerializer, 400: OpenApiResponse(description="The field is named."),
                              409: CONFLICT})
    @action(detail=True, methods=["post"])
    def refuse(self, request, pk=None):
        data = RefuseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return self._decide(request, lambda entry: sign_up_refuse(sign_up=entry, by=request.user,
                                                                   reason=data.validated_data["reason"]))

    @extend_schema(summary="Withdraw a sign-up before registration closes (the player, or an organiser)",
                   request=None, responses={200: SignUpSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        entry = self.get_object()
        if entry.player.user_id != request.user.pk and not can_manage_competition(request.user, entry.competition):
            raise PermissionDenied("Not your sign-up.")
        with sign_up_errors():
            entry = sign_up_withdraw(sign_up=entry, by=request.user)
        return Response(SignUpSerializer(entry).data)
