"""API of the federation's year: ratings, the federation ranking (its scale and tiers), the
draw's seeding, and sign-up for competitions. Reads are open to everyone; writes go through
the services; a user error is a 400 naming the field, a refused state a 409
``{"error", "detail"}``."""
from __future__ import annotations

from datetime import date

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, permissions, serializers, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from leagues.models import Player, PlayerRating, RankingScale, RankingTier
from leagues.permissions import is_federation_admin
from leagues.placing import format_points, ordinal_band
from leagues.rankings import current_ratings, federation_ranking, rank_history, rating_history

AUTH = [TokenAuthentication, SessionAuthentication]


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

    class Meta:
        model = PlayerRating
        fields = ["player", "player_name", "period_start", "rating", "deviation", "volatility", "games", "wins",
                  "draws", "losses"]


@extend_schema(summary="Every rated player's current Glicko-2 rating, highest first")
class RatingListView(generics.ListAPIView):
    authentication_classes = AUTH
    serializer_class = RatingSerializer

    def get_queryset(self):
        return current_ratings()


class RatingHistorySerializer(serializers.Serializer):
    player = serializers.IntegerField()
    current = RatingSerializer(allow_null=True)
    history = RatingSerializer(many=True, help_text="The rating at the end of each rating period, earliest first.")


@extend_schema(summary="A player's rating and its history, period by period", responses=RatingHistorySerializer)
class RatingHistoryView(APIView):
    authentication_classes = AUTH

    def get(self, request, player_id: int):
        player = generics.get_object_or_404(Player, pk=player_id)
        history = rating_history(player=player)
        return Response({"player": player.pk, "current": RatingSerializer(history[-1]).data if history else None,
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
    rows = federation_ranking(at=at)
    scale = RankingScale.current()
    return {"at": at or date.today(), "window_months": scale.window_months, "rows": [{
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
    authentication_classes = AUTH

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
    authentication_classes = AUTH

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
    authentication_classes = AUTH
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
    authentication_classes = AUTH
    permission_classes = [FederationAdminOrReadOnly]
    serializer_class = TierSerializer
    queryset = RankingTier.objects.all()

    def perform_destroy(self, instance):
        if instance.competitions.exists():
            raise ValidationError({"id": ["competitions have this tier: give them another first"]})
        instance.delete()
