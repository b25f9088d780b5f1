"""The online-play API: read a match and its log, check in, submit actions, practise.

- ``GET  /api/matches/{id}/``: the match, its state and next deadline (passed deadlines are
  applied first);
- ``GET  /api/matches/{id}/actions/?after=N&limit=M``: the log after row ``N``, each row with
  its events and each flick's frames;
- ``POST /api/matches/{id}/actions/`` ``{"seq": n, "action": {...}}`` (header
  ``Idempotency-Key`` optional: the user's, bound to its first request; the same key with another
  body or match is a 422): 201, or 400/403/409/422 as ``matches.services.online`` says; limited
  per user (``THROTTLE_ACTIONS_RATE``, 429); a refusal of the referee (422) also carries it as a
  sentence (``text``), the rule's page (``rule_url``) and name (``rule_label``);
- ``POST /api/matches/{id}/check-in/``: check in; the match kicks off when both are in;
- ``POST /api/matches/practice/`` ``{"rule_set": "one_touch", "side": "home"}``: a practice
  match against the computer, live at once.
"""
from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_schema import ErrorDetailSerializer, RefusalSerializer
from config.throttling import ScopedRateThrottle
from matches import selectors, sentences
from matches.api import serializers
from matches.models import Match, MatchAction
from matches.rulebooks import rule_label
from matches.services import online
from matches.services.deadlines import tick_if_due

MAX_LOG_ROWS = 500

NO_MATCH = OpenApiResponse(ErrorDetailSerializer, description='No such match: {"error": "not_found", "detail": ...}.')
REFUSED = OpenApiResponse(serializers.PlayRefusalSerializer,
                          description='Refused: {"error": CODE, "detail": SENTENCE}, with the match as it stands.')


def _match_or_404(match_id: int) -> Match | None:
    return Match.objects.filter(pk=match_id).first()


def _not_found() -> Response:
    return Response({"error": "not_found", "detail": _("no such match")}, status=status.HTTP_404_NOT_FOUND)


class MatchDetail(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(summary="A match: its state and next deadline", tags=["matches"],
                   responses={200: serializers.MatchSerializer, 404: NO_MATCH})
    def get(self, request: Request, match_id: int) -> Response:
        match = _match_or_404(match_id)
        if match is None:
            return _not_found()
        match = tick_if_due(match)
        return Response(online.match_public(match, user=request.user))


class MatchActions(APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    # a player's submissions are limited (THROTTLE_ACTIONS_RATE, per user); reading the log is not
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "match-actions"

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(
        summary="A match's action log after row `after`", tags=["matches"],
        responses={200: serializers.ActionLogSerializer, 404: NO_MATCH,
                   400: OpenApiResponse(description='`after` or `limit` is not a whole number ({"error": '
                                                    '"malformed", "detail": ...}), or holds a NUL.')},
        parameters=[OpenApiParameter("after", int, description="Rows after this sequence number."),
                    OpenApiParameter("limit", int, description="At most this many rows (500).")],
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = _match_or_404(match_id)
        if match is None:
            return _not_found()
        match = tick_if_due(match)
        try:
            after = int(request.query_params.get("after", 0))
            limit = min(int(request.query_params.get("limit", MAX_LOG_ROWS)), MAX_LOG_ROWS)
        except ValueError:
            return Response({"error": "malformed", "detail": _("after and limit are whole numbers")},
                            status=status.HTTP_400_BAD_REQUEST)
        rows = MatchAction.objects.filter(match=match, seq__gt=after).order_by("seq")[: max(limit, 0)]
        return Response({
            "match": match.pk, "seq": match.seq, "status": match.status,
            "actions": [
                {"seq": r.seq, "side": r.side or None, "action": r.action, "at": r.created_at.isoformat(),
                 "state_hash": r.state_hash, "events": r.events, "frames": r.frames}
                for r in rows
            ],
        })

    @extend_schema(
        summary="Submit an action {seq, action}", request=serializers.SubmitSerializer, tags=["matches"],
        responses={
            201: serializers.AcceptedSerializer,
            400: OpenApiResponse(description='A malformed action or Idempotency-Key: {"error": "malformed", '
                                             '"detail": ..., "field": ...}, or a body that cannot be read.'),
            403: OpenApiResponse(description='Not a player of this match ("not_a_player"), not this side '
                                             '("not_your_side"), not your turn ("not_your_turn"); or no '
                                             "credentials."),
            404: NO_MATCH, 409: REFUSED, 422: REFUSED,
        },
        parameters=[OpenApiParameter(
            "Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
            description="1 to 100 printable ASCII characters: a retry with the same key and body gets the "
                        "first answer again (`Idempotent-Replayed: true`); another body is a 422.")],
    )
    def post(self, request: Request, match_id: int) -> Response:
        body = request.data if isinstance(request.data, dict) else {}
        answer = online.submit_action(
            match_id=match_id, user=request.user, seq=body.get("seq"), action_json=body.get("action"),
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        data = answer.data
        if answer.status_code == 422 and data.get("error") == "rule_violation":
            names = selectors.side_names(Match.objects.get(pk=match_id))
            data = {**data, "text": sentences.refusal_sentence(data.get("reason"), data.get("message"), names),
                    "rule_url": sentences.rule_url(data.get("rule")),
                    "rule_label": rule_label(data.get("rule"))}
        response = Response(data, status=answer.status_code)
        if answer.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


class MatchCheckIn(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Check in to a match", request=None, tags=["matches"],
                   responses={200: serializers.MatchSerializer, 403: OpenApiResponse(
                       description='Not a player of this match ("not_a_player"), or no credentials.'),
                              404: NO_MATCH, 409: REFUSED,
                              400: OpenApiResponse(RefusalSerializer,
                                                   description="The match cannot be played under its rules.")})
    def post(self, request: Request, match_id: int) -> Response:
        try:
            match = online.check_in(match_id=match_id, user=request.user)
        except online.PlayError as exc:
            return Response(exc.to_json(), status=exc.status_code)
        return Response(online.match_public(match, user=request.user))


class PracticeCreate(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Start a practice match against the computer", request=serializers.PracticeSerializer,
                   responses={201: serializers.MatchSerializer, 400: OpenApiResponse(
                       description='An unknown rule set or side, or a bad parameter: {"error": "malformed", '
                                   '"detail": ..., "field": ...}.')}, tags=["matches"])
    def post(self, request: Request) -> Response:
        body = request.data if isinstance(request.data, dict) else {}
        params = body.get("rule_params") or {}
        if not isinstance(params, dict):
            return Response({"error": "malformed", "detail": _("rule_params must be an object"), "field": "rule_params"},
                            status=status.HTTP_400_BAD_REQUEST)
        try:
            match = online.practice_create(
                user=request.user, rule_set=body.get("rule_set", "one_touch"), side=body.get("side", "home"),
                rule_params=params,
            )
        except online.PlayError as exc:
            return Response(exc.to_json(), status=exc.status_code)
        return Response(online.match_public(match, user=request.user), status=status.HTTP_201_CREATED)
