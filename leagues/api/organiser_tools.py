"""The organisers' tools of the API that work on a competition as a whole:

- ``POST /api/competitions/{slug}/import-results/`` (multipart ``file``, CSV or XLSX;
  ``dry_run=true``: 200 with the preview, nothing written; ``update=true``: a row for a pairing
  with a result corrects it): 201 with the counts; a refused file 400
  ``{"errors": [{"line", "column", "detail"}]}`` (line 1 the header; null: the whole file);
- ``POST /api/competitions/{slug}/entrants/bulk/`` (``{"players": [ids]}``,
  ``{"licence_numbers": [...]}`` or ``{"entrants": [{"name", "club", "seed"}]}``): 201 with
  the entrants made, or 400 ``{"errors": [{"line", "detail"}]}`` (line 1 the first item) and
  none added;
- ``POST /api/competitions/{slug}/copy/`` (``{"slug", "name", "first_date", "entrants"}``):
  201 with the new competition (``leagues.services.competition_copy``).
"""
from __future__ import annotations

from dataclasses import asdict

from django.db import IntegrityError
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from leagues.api import serializers as api_serializers
from leagues.api.permissions import OrganiserOrReadOnly
from leagues.api.views import CompetitionViewSet, Refused
from leagues.models import Competition, Entrant, is_printable_text, validate_first_date
from leagues.permissions import can_create_competition
from leagues.services.competition_copy import competition_copy
from leagues.services.competitions import SlugTaken
from leagues.services.entrants_bulk import (
    BulkRefused,
    entrant_lines_of_entrants,
    entrant_lines_of_licences,
    entrant_lines_of_players,
    entrants_bulk_add,
)
from leagues.services.import_files import ImportFileError
from leagues.services.locks import Busy
from leagues.services.results_upload import (
    results_preview,
    results_upload_import,
    upload_results_file,
)


def line_errors(errors: dict) -> dict:
    """A serializer's field errors as ``{"errors": [{"line": null, "column": field, "detail"}]}``."""
    return {"errors": [{"line": None, "column": name, "detail": str(message)}
                       for name, messages in errors.items() for message in (messages if isinstance(messages, list)
                                                                            else [messages])]}


class ImportResultsSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="CSV (COMPETITIONS.md §6) or XLSX as the results export writes it.")
    dry_run = serializers.BooleanField(default=False, help_text="Answer the preview; write nothing.")
    update = serializers.BooleanField(default=False, help_text="A row for a pairing with a result corrects it.")


class PreviewRowSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    stage = serializers.CharField(allow_blank=True)
    group = serializers.CharField(allow_blank=True)
    round = serializers.CharField(allow_blank=True)
    home = serializers.CharField()
    away = serializers.CharField(allow_blank=True)
    given = serializers.CharField(help_text="The score as the file gives it.")
    kind = serializers.ChoiceField(choices=["new", "result", "correction"])
    official = serializers.CharField(allow_blank=True, help_text="The official score (§4).")
    outcome = serializers.CharField(allow_blank=True)
    outcome_side = serializers.CharField(allow_blank=True)
    winner = serializers.CharField(allow_blank=True)
    table = serializers.IntegerField(required=False, allow_null=True, help_text="A team file's row: the game's table "
                                     "(absent from a single file's rows).")
    home_player = serializers.CharField(required=False, allow_blank=True, help_text="A team file's row: the home player.")
    away_player = serializers.CharField(required=False, allow_blank=True, help_text="A team file's row: the away player.")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if data.get("table") is None:  # a single file's row has no table nor players
            for name in ("table", "home_player", "away_player"):
                data.pop(name, None)
        return data


class PreviewTableRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    shared = serializers.BooleanField()
    entrant = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    drawn = serializers.IntegerField()
    lost = serializers.IntegerField()
    goals_for = serializers.IntegerField()
    goals_against = serializers.IntegerField()
    goal_difference = serializers.IntegerField()
    points = serializers.IntegerField()


class PreviewTableSerializer(serializers.Serializer):
    group = serializers.CharField(allow_blank=True)
    rows = PreviewTableRowSerializer(many=True)


class ImportPreviewSerializer(serializers.Serializer):
    rows = PreviewRowSerializer(many=True, help_text="The file's rows (the first 1000).")
    total = serializers.IntegerField(help_text="Rows of results in the file.")
    new_entrants = serializers.ListField(child=serializers.CharField())
    corrections = serializers.IntegerField()
    tables = PreviewTableSerializer(many=True, help_text="The standings after the import.")


class ImportDoneSerializer(serializers.Serializer):
    competition = serializers.CharField()
    results = serializers.IntegerField()
    entrants_created = serializers.IntegerField()


class CompetitionToolView(generics.GenericAPIView):
    schema_conflicts = True  # a lock held by another write: 409 (config.api_schema)
    permission_classes = [OrganiserOrReadOnly]
    queryset = Competition.objects.all()  # the path's slug is a competition's (the schema reads it)
    lookup_field = "slug"

    def competition(self) -> Competition:
        competition = generics.get_object_or_404(Competition, slug=self.kwargs["slug"])
        self.check_object_permissions(self.request, competition)
        return competition


class ImportResultsView(CompetitionToolView):
    parser_classes = [MultiPartParser, FormParser]
    serializer_class = ImportResultsSerializer

    @extend_schema(summary="Import a results file (CSV or XLSX) into the competition, all or nothing; "
                           "dry_run=true previews it",
                   request={"multipart/form-data": ImportResultsSerializer},
                   responses={200: ImportPreviewSerializer, 201: ImportDoneSerializer,
                              400: OpenApiResponse(description='The file is refused, nothing written: '
                                                   '{"errors": [{"line", "column", "detail"}]} (its first problem; '
                                                   'line 1 the header, null the whole file).')})
    def post(self, request, slug: str):
        competition = self.competition()
        data = ImportResultsSerializer(data=request.data)
        if not data.is_valid():
            return Response(line_errors(data.errors), status=status.HTTP_400_BAD_REQUEST)
        options = data.validated_data
        try:
            file = upload_results_file(options["file"])
            if options["dry_run"]:
                preview = results_preview(competition=competition, file=file, update=options["update"])
                return Response(ImportPreviewSerializer(asdict(preview)).data)
            summary = results_upload_import(competition=competition, file=file, update=options["update"],
                                            by=request.user)
        except ImportFileError as exc:
            return Response({"errors": [{"line": exc.line, "column": exc.column, "detail": exc.message}]},
                            status=status.HTTP_400_BAD_REQUEST)
        except Busy as exc:
            raise Refused(409, {"error": exc.code, "detail": exc.detail}) from exc
        return Response({"competition": summary.competition.slug, "results": summary.results,
                         "entrants_created": summary.entrants_created}, status=status.HTTP_201_CREATED)


class EntrantItemSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=160)
    club = serializers.CharField(required=False, allow_blank=True, help_text="The club's slug or name.")
    seed = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=512)


class BulkEntrantsSerializer(serializers.Serializer):
    players = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**31 - 1), required=False,
                                    max_length=1024, help_text="Licensed players' ids.")
    licence_numbers = serializers.ListField(child=serializers.CharField(max_length=32), required=False,
                                            max_length=1024, help_text="Players by licence number.")
    entrants = EntrantItemSerializer(many=True, required=False, help_text="Unregistered entrants.")

    def validate(self, attrs):
        given = [name for name in ("players", "licence_numbers", "entrants") if name in attrs]
        if len(given) != 1:
            raise serializers.ValidationError({"players": ["give one of players, licence_numbers or entrants"]})
        return attrs


class BulkEntrantsView(CompetitionToolView):
    serializer_class = BulkEntrantsSerializer

    @extend_schema(summary="Add many entrants at once, all or none: players by id or licence number (their "
                           "licences checked as sign-up checks them), or unregistered entrants",
                   request=BulkEntrantsSerializer,
                   responses={201: api_serializers.EntrantSerializer(many=True),
                              400: OpenApiResponse(description='Nothing added: {"errors": [{"line", "detail"}]}, '
                                                   'every refused item by its line (1 the first; null the whole '
                                                   'request).')})
    def post(self, request, slug: str):
        competition = self.competition()
        data = BulkEntrantsSerializer(data=request.data)
        if not data.is_valid():
            return Response(line_errors(data.errors), status=status.HTTP_400_BAD_REQUEST)
        given = data.validated_data
        try:
            if "players" in given:
                lines = entrant_lines_of_players(given["players"])
            elif "licence_numbers" in given:
                lines = entrant_lines_of_licences(given["licence_numbers"])
            else:
                lines = entrant_lines_of_entrants(given["entrants"])
            made = entrants_bulk_add(competition=competition, lines=lines)
        except BulkRefused as exc:
            return Response({"errors": [{"line": line, "detail": detail} for line, detail in exc.errors]},
                            status=status.HTTP_400_BAD_REQUEST)
        except Busy as exc:
            raise Refused(409, {"error": exc.code, "detail": exc.detail}) from exc
        made = Entrant.objects.filter(pk__in=[e.pk for e in made]).select_related("competition", "player", "club")
        return Response(api_serializers.EntrantSerializer(made.order_by("pk"), many=True).data,
                        status=status.HTTP_201_CREATED)


class CopyCompetitionSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=Competition._meta.get_field("name").max_length)
    slug = serializers.SlugField(max_length=80, required=False, allow_blank=True,
                                 help_text="Empty: one made from the name.")
    first_date = serializers.DateField(required=False, allow_null=True, validators=[validate_first_date])
    entrants = serializers.BooleanField(default=False, help_text="Copy the entrants too (the withdrawn left out).")

    def validate_name(self, value):
        if not is_printable_text(value) or not value.strip():
            raise serializers.ValidationError("give a name of printable characters")
        return value.strip()


class CopyCompetitionView(CompetitionToolView):
    serializer_class = CopyCompetitionSerializer

    @extend_schema(summary="Copy the competition for its next edition: the same settings and organisers, "
                           "optionally its entrants, new dates, no results",
                   request=CopyCompetitionSerializer, responses={201: api_serializers.CompetitionSerializer})
    def post(self, request, slug: str):
        competition = self.competition()
        if not can_create_competition(request.user):
            raise PermissionDenied("Creating a competition needs the organiser permission (leagues.add_competition).")
        data = CopyCompetitionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        try:
            copy = competition_copy(competition=competition, name=given["name"], slug=given.get("slug") or "",
                                    first_date=given.get("first_date"), entrants=given["entrants"], by=request.user)
        except SlugTaken as exc:
            raise ValidationError({"slug": [str(exc)]}) from exc
        except IntegrityError as exc:
            raise ValidationError({"non_field_errors": [f"these settings contradict each other: {exc}"]}) from exc
        copy = CompetitionViewSet().get_queryset().get(pk=copy.pk)
        return Response(api_serializers.CompetitionSerializer(copy, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)
