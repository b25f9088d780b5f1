"""Filters of the list endpoints (django-filter). ``editable=true`` keeps what the requester
may change, the same rule the write endpoints apply."""
from __future__ import annotations

import django_filters
from django.db.models import Q

from leagues.models import (
    Club,
    Competition,
    Entrant,
    Fixture,
    Outcome,
    Player,
    Result,
    Round,
    Season,
    Standing,
)
from leagues.permissions import managed_q
from leagues.selectors import related_count


class EditableFilterMixin(django_filters.FilterSet):
    editable = django_filters.BooleanFilter(
        method="filter_editable", label="Only what the requester may change (true) or may not (false)."
    )
    editable_prefix = "competition__"

    def filter_editable(self, queryset, name, value):
        q = managed_q(self.request.user if self.request else None, self.editable_prefix)
        ids = queryset.model.objects.filter(q).values("pk")
        return queryset.filter(pk__in=ids) if value else queryset.exclude(pk__in=ids)


class ClubFilter(django_filters.FilterSet):
    city = django_filters.CharFilter(lookup_expr="iexact")

    class Meta:
        model = Club
        fields = ["city", "founded"]


class PlayerFilter(django_filters.FilterSet):
    club = django_filters.CharFilter(method="filter_club", label="Slug of the player's current club.")
    licence_number = django_filters.CharFilter()

    class Meta:
        model = Player
        fields = ["club", "licence_number"]

    def filter_club(self, queryset, name, value):
        return queryset.filter(memberships__club__slug=value, memberships__end_date__isnull=True).distinct()


class SeasonFilter(django_filters.FilterSet):
    class Meta:
        model = Season
        fields = ["is_current"]


STATUS_CHOICES = [("draft", "Draft"), ("in_progress", "In progress"), ("finished", "Finished")]


class CompetitionFilter(EditableFilterMixin):
    editable_prefix = ""
    season = django_filters.CharFilter(field_name="season__slug")
    # Not ``format``: DRF reads ``?format=`` as the renderer (json, api).
    competition_format = django_filters.ChoiceFilter(field_name="format", choices=Competition.Format.choices)
    status = django_filters.ChoiceFilter(choices=STATUS_CHOICES, method="filter_status")
    organiser = django_filters.CharFilter(field_name="organisers__username", distinct=True)
    club = django_filters.CharFilter(field_name="entrants__club__slug", distinct=True)
    player = django_filters.NumberFilter(field_name="entrants__player", distinct=True)

    class Meta:
        model = Competition
        fields = ["season", "competition_format", "status", "organiser", "club", "player", "editable"]

    def filter_status(self, queryset, name, value):
        queryset = queryset.annotate(
            _fixtures=related_count(Fixture),
            _open=related_count(Fixture, filter=Q(status__in=Fixture.OPEN)),
        )
        if value == "draft":
            return queryset.filter(_fixtures=0)
        if value == "in_progress":
            return queryset.filter(_open__gt=0)
        return queryset.filter(_fixtures__gt=0, _open=0)


class EntrantFilter(EditableFilterMixin):
    competition = django_filters.CharFilter(field_name="competition__slug")
    club = django_filters.CharFilter(field_name="club__slug")
    withdrawn = django_filters.BooleanFilter(field_name="withdrawn_at", lookup_expr="isnull", exclude=True)

    class Meta:
        model = Entrant
        fields = ["competition", "club", "player", "withdrawn", "editable"]


class RoundFilter(django_filters.FilterSet):
    competition = django_filters.CharFilter(field_name="stage__competition__slug")
    stage = django_filters.NumberFilter(field_name="stage__order", label="Stage order (1, 2...).")
    kind = django_filters.ChoiceFilter(field_name="stage__kind", choices=[
        ("league", "League"), ("groups", "Groups"), ("knockout", "Knockout")])

    class Meta:
        model = Round
        fields = ["competition", "stage", "kind", "number"]


class FixtureFilter(EditableFilterMixin):
    competition = django_filters.CharFilter(field_name="competition__slug")
    round = django_filters.NumberFilter(field_name="round__number")
    stage = django_filters.NumberFilter(field_name="round__stage__order")
    group = django_filters.CharFilter(field_name="group__name")
    status = django_filters.MultipleChoiceFilter(choices=Fixture.Status.choices)
    entrant = django_filters.NumberFilter(method="filter_entrant")
    club = django_filters.CharFilter(method="filter_club", label="Club slug (either side).")
    player = django_filters.NumberFilter(method="filter_player", label="Player id (either side).")
    date_from = django_filters.DateFilter(field_name="date", lookup_expr="gte")
    date_to = django_filters.DateFilter(field_name="date", lookup_expr="lte")
    open = django_filters.BooleanFilter(method="filter_open", label="Still waiting for a result.")

    class Meta:
        model = Fixture
        fields = ["competition", "round", "stage", "group", "status", "entrant", "club", "player",
                  "date_from", "date_to", "open", "editable"]

    def filter_entrant(self, queryset, name, value):
        return queryset.filter(Q(home_id=value) | Q(away_id=value))

    def filter_club(self, queryset, name, value):
        return queryset.filter(Q(home__club__slug=value) | Q(away__club__slug=value))

    def filter_player(self, queryset, name, value):
        return queryset.filter(Q(home__player_id=value) | Q(away__player_id=value))

    def filter_open(self, queryset, name, value):
        return queryset.filter(status__in=Fixture.OPEN) if value else queryset.exclude(status__in=Fixture.OPEN)


class ResultFilter(django_filters.FilterSet):
    competition = django_filters.CharFilter(field_name="fixture__competition__slug")
    outcome = django_filters.ChoiceFilter(choices=Outcome.choices)
    official = django_filters.BooleanFilter(field_name="adjudicated_at", lookup_expr="isnull", exclude=True,
                                            help_text="Every stored result is official; kept for clients.")
    source = django_filters.ChoiceFilter(choices=Result.Source.choices)
    entrant = django_filters.NumberFilter(method="filter_entrant")
    club = django_filters.CharFilter(method="filter_club")
    player = django_filters.NumberFilter(method="filter_player")
    date_from = django_filters.DateFilter(field_name="fixture__date", lookup_expr="gte")
    date_to = django_filters.DateFilter(field_name="fixture__date", lookup_expr="lte")

    class Meta:
        model = Result
        fields = ["competition", "outcome", "source", "official", "entrant", "club", "player", "date_from", "date_to"]

    def filter_entrant(self, queryset, name, value):
        return queryset.filter(Q(fixture__home_id=value) | Q(fixture__away_id=value))

    def filter_club(self, queryset, name, value):
        return queryset.filter(Q(fixture__home__club__slug=value) | Q(fixture__away__club__slug=value))

    def filter_player(self, queryset, name, value):
        return queryset.filter(Q(fixture__home__player_id=value) | Q(fixture__away__player_id=value))


class StandingFilter(django_filters.FilterSet):
    competition = django_filters.CharFilter(field_name="competition__slug")
    group = django_filters.CharFilter(field_name="group__name")
    club = django_filters.CharFilter(field_name="entrant__club__slug")

    class Meta:
        model = Standing
        fields = ["competition", "group", "entrant", "club"]
