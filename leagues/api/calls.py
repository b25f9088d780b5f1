"""The API's calls to the hall's tables (COMPETITIONS.md §12): ``POST /api/fixtures/{id}/call/``
``{"hall_table": n}`` and ``POST /api/fixtures/{id}/uncall/`` (``{"reason"}`` optional), for the
competition's organisers (403 otherwise). Both answer with the fixture as it now stands; a
table out of range is a 400 on ``hall_table``; a refusal of the day's state a 409 with its
``error`` code (``table_busy``, ``entrant_busy``, ``resting``, ``not_ready``, ``not_called``;
``leagues.services.calls``)."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action

from config.api_schema import RefusalSerializer
from leagues.services.calls import fixture_call, fixture_uncall

from .serializers import FixtureSerializer

CONFLICT = OpenApiResponse(RefusalSerializer, description='The day refuses it: {"error": CODE, "detail": SENTENCE}.')


class CallSerializer(serializers.Serializer):
    hall_table = serializers.IntegerField(help_text="The table, 1..the competition's tables.")


class UncallSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class FixtureCallActions:
    """Mixed into the fixtures' view set (its ``_write``: the object's permission, the body's
    check, the service's refusals, the fixture answered)."""

    @extend_schema(
        summary="Call the fixture to a hall table (organisers)",
        request=CallSerializer,
        responses={200: FixtureSerializer, 400: OpenApiResponse(description="Bad input; the field is named."),
                   403: OpenApiResponse(description="Only its competition's organisers call it."), 409: CONFLICT},
    )
    @action(detail=True, methods=["post"], serializer_class=CallSerializer)
    def call(self, request, pk=None):
        return self._write(request, CallSerializer, lambda fixture, data: fixture_call(
            fixture=fixture, hall_table=data["hall_table"], by=request.user), default_field="hall_table")

    @extend_schema(
        summary="Withdraw the fixture's call: its table is free (organisers)",
        request=UncallSerializer,
        responses={200: FixtureSerializer, 403: OpenApiResponse(description="Only its competition's organisers."),
                   409: CONFLICT},
    )
    @action(detail=True, methods=["post"], serializer_class=UncallSerializer)
    def uncall(self, request, pk=None):
        return self._write(request, UncallSerializer, lambda fixture, data: fixture_uncall(
            fixture=fixture, by=request.user, reason=data["reason"]))
