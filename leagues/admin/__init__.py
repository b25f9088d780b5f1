"""The admin for the registry and the competitions, set up for organisers' work.

Organisers (staff users with the model permissions, e.g. an "Organisers" group) see and change
only the competitions they organise, with their entrants and fixtures; federation
administrators (``leagues.permissions``) see all. Writes that have rules go through the
services: the actions generate the fixtures, recompute the standings and withdraw entrants;
a fixture's status and the lots are read-only here.
"""
from django.contrib import admin, messages
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from leagues.admin import year  # noqa: F401  (registers the federation year's models)
from leagues.models import (
    FIXED_AFTER_DRAW,
    AccountLock,
    ApiToken,
    Club,
    ClubMembership,
    Competition,
    Entrant,
    Fixture,
    FixtureChange,
    Group,
    Player,
    Result,
    Round,
    Season,
    Stage,
    Standing,
)
from leagues.permissions import can_manage_competition, is_federation_admin, managed_q
from leagues.selectors import related_count
from leagues.services.entrants import EntrantError, entrant_withdraw
from leagues.services.fixtures import ScheduleError, fixtures_generate
from leagues.services.kickoffs import fixture_reschedule, fixture_set_venue
from leagues.services.locks import Busy
from leagues.services.results import ResultConflict
from leagues.services.standings import standings_recompute
from matches.services.play import PlayError


class ClubMembershipInline(admin.TabularInline):
    model = ClubMembership
    extra = 0
    autocomplete_fields = ["club"]


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "short_name", "city", "founded"]
    search_fields = ["name", "short_name", "city"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["full_name", "licence_number", "current_club", "user"]
    search_fields = ["first_name", "last_name", "licence_number", "user__username"]
    inlines = [ClubMembershipInline]
    raw_id_fields = ["user"]


@admin.register(ClubMembership)
class ClubMembershipAdmin(admin.ModelAdmin):
    list_display = ["player", "club", "start_date", "end_date"]
    list_filter = ["club"]
    search_fields = ["player__first_name", "player__last_name", "club__name"]
    autocomplete_fields = ["player", "club"]


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ["name", "start_date", "end_date", "is_current"]
    prepopulated_fields = {"slug": ["name"]}


class EntrantInline(admin.TabularInline):
    """Entrants are entered here before the draw; after it they are read-only (a withdrawal goes
    through the entrants' withdraw action, where the competition's policy applies)."""

    model = Entrant
    extra = 0
    fields = ["name", "player", "club", "seed", "withdrawn_at"]
    readonly_fields = ["withdrawn_at"]
    autocomplete_fields = ["player", "club"]

    def _drawn(self, obj) -> bool:
        return obj is not None and obj.fixtures.exists()

    def get_readonly_fields(self, request, obj=None):
        return self.fields if self._drawn(obj) else self.readonly_fields

    def has_add_permission(self, request, obj=None):
        return not self._drawn(obj) and super().has_add_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not self._drawn(obj) and super().has_delete_permission(request, obj)


class StageInline(admin.TabularInline):
    model = Stage
    extra = 0


class FixtureInline(admin.TabularInline):
    """The fixtures, read-only: results are recorded on the site's organiser pages or the API."""

    model = Fixture
    extra = 0
    can_delete = False
    fields = ["round", "group", "position", "home", "away", "date", "status", "result_link"]
    readonly_fields = fields
    ordering = ["round__stage__order", "round__number", "group__name", "position"]
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=_("Result"))
    def result_link(self, fixture):
        if fixture.home_id and fixture.away_id and fixture.status in Fixture.OPEN | {"played", "walkover"}:
            return format_html('<a href="{}">Record / correct</a>', reverse("site:record-result", args=[fixture.pk]))
        return ""

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("round", "group", "home", "away")


class ManagedByOrganiserMixin:
    """Organisers see and change only what belongs to the competitions they organise."""

    competition_path = "competition__"

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        return qs.filter(managed_q(request.user, self.competition_path)).distinct()

    def _competition(self, obj):
        return obj if isinstance(obj, Competition) else obj.competition

    def has_change_permission(self, request, obj=None):
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or can_manage_competition(request.user, self._competition(obj)))

    def has_delete_permission(self, request, obj=None):
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or can_manage_competition(request.user, self._competition(obj)))


@admin.register(Competition)
class CompetitionAdmin(ManagedByOrganiserMixin, admin.ModelAdmin):
    competition_path = ""
    list_display = ["name", "slug", "season", "format", "entrants", "progress", "rule_set", "public_page"]
    list_filter = ["season", "format", "rule_set", "tiebreak_preset", "withdrawal_policy"]
    search_fields = ["name", "slug", "organisers__username"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["organisers"]
    inlines = [EntrantInline, StageInline, FixtureInline]
    readonly_fields = ["lots_seed", "lots_drawn"]
    actions = ["generate_fixtures", "recompute_standings"]
    fieldsets = [
        (None, {"fields": ["season", "name", "slug", "format", "organisers"]}),
        (_("Format"), {"fields": ["double_round_robin", "third_place_match", "placement_matches", "grand_final_reset", "group_count",
                               "qualifiers_per_group", "best_thirds", "first_date", "days_between_rounds"]}),
        (_("Match format"), {"fields": ["halves", "half_minutes", "extra_time", "extra_time_minutes", "shootout",
                                     "shootout_kicks", "rule_set", "rule_params"]}),
        (_("Points and tie-breaks"), {"fields": ["points_win", "points_draw", "points_loss", "points_bye",
                                              "tiebreak_preset", "tiebreak_criteria", "lots_seed", "lots_drawn"]}),
        (_("Results"), {"fields": ["walkover_goals_for", "walkover_goals_against", "withdrawal_policy"]}),
        (_("Ratings and ranking"), {"fields": ["rated", "ranking_tier"]}),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            entrant_count=related_count(Entrant),
            fixture_count=related_count(Fixture),
            done_count=related_count(Fixture, filter=Q(status__in=Fixture.DONE)),
        )

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if not is_federation_admin(request.user):
            fields.append("organisers")  # only a federation administrator chooses organisers
        if obj is not None and obj.fixtures.exists():
            fields += list(FIXED_AFTER_DRAW)
        return fields

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if not change and not form.instance.organisers.exists():
            form.instance.organisers.add(request.user)  # the creator organises it

    @admin.display(description=_("Entrants"), ordering="entrant_count")
    def entrants(self, competition):
        return competition.entrant_count

    @admin.display(description=_("Played"))
    def progress(self, competition):
        return f"{competition.done_count} / {competition.fixture_count}" if competition.fixture_count else _("not drawn")

    @admin.display(description=_("Page"))
    def public_page(self, competition):
        return format_html('<a href="{}">{}</a>', reverse("site:competition", args=[competition.slug]), _("view"))

    @admin.action(description=_("Generate the fixtures of the selected competitions"))
    def generate_fixtures(self, request, queryset):
        for competition in queryset:
            if not can_manage_competition(request.user, competition):
                self.message_user(request, _("%(competition)s: you do not organise it.") % {"competition": competition}, messages.ERROR)
                continue
            try:
                fixtures = fixtures_generate(competition=competition)
            except (ScheduleError, ResultConflict) as exc:  # a Swiss round that cannot be paired now: a 409
                self.message_user(request, _("%(competition)s: %(reason)s.") % {"competition": competition, "reason": exc}, messages.ERROR)
            else:
                self.message_user(request, ngettext("%(competition)s: %(count)d fixture made.", "%(competition)s: %(count)d fixtures made.",
                                   len(fixtures)) % {"competition": competition, "count": len(fixtures)}, messages.SUCCESS)

    @admin.action(description=_("Recompute the standings of the selected competitions"))
    def recompute_standings(self, request, queryset):
        for competition in queryset:
            if can_manage_competition(request.user, competition):
                standings_recompute(competition_id=competition.pk, force=True)
        self.message_user(request, _("Standings recomputed."), messages.SUCCESS)


@admin.register(Entrant)
class EntrantAdmin(ManagedByOrganiserMixin, admin.ModelAdmin):
    list_display = ["name", "competition", "seed", "player", "club", "withdrawn_at"]
    list_filter = ["competition", "competition__season", ("withdrawn_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "player__first_name", "player__last_name", "club__name", "competition__name"]
    autocomplete_fields = ["player", "club"]
    readonly_fields = ["withdrawn_at"]
    list_select_related = ["competition", "player", "club"]
    actions = ["withdraw"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "competition":
            kwargs["queryset"] = Competition.objects.filter(managed_q(request.user)).distinct()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.action(description=_("Withdraw the selected entrants (the competition's withdrawal policy applies)"))
    def withdraw(self, request, queryset):
        for entrant in queryset:
            try:
                entrant_withdraw(entrant=entrant, by=request.user)
            except EntrantError as exc:
                self.message_user(request, str(exc), messages.ERROR)
            except (ResultConflict, Busy) as exc:
                self.message_user(request, exc.detail, messages.ERROR)
            else:
                self.message_user(request, _("%(entrant)s withdrawn.") % {"entrant": entrant}, messages.SUCCESS)


@admin.register(Stage)
class StageAdmin(admin.ModelAdmin):
    list_display = ["name", "competition", "order", "kind"]
    list_filter = ["kind"]


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ["name", "stage"]
    filter_horizontal = ["entrants"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["__str__", "stage", "number", "date"]
    list_filter = ["stage__competition"]


class FixtureChangeInline(admin.TabularInline):
    """The fixture's history: every accepted change, as the services wrote it."""

    model = FixtureChange
    extra = 0
    can_delete = False
    fields = ["at", "kind", "by", "reason", "before", "after"]
    readonly_fields = fields
    ordering = ["-at", "-pk"]

    def has_add_permission(self, request, obj=None):
        return False


class ResultInline(admin.StackedInline):
    model = Result
    extra = 0
    can_delete = False
    readonly_fields = [f.name for f in Result._meta.fields if f.name != "id"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Fixture)
class FixtureAdmin(ManagedByOrganiserMixin, admin.ModelAdmin):
    """Who plays and the result come from the draw, the bracket and the result pages; here an
    organiser moves the kick-off (through the same service as the pages: one history entry)."""

    list_display = ["__str__", "competition", "round", "group", "kickoff_at", "status", "label"]
    list_filter = ["status", "competition", "round__stage__kind"]
    search_fields = ["home__name", "away__name", "competition__name", "label"]
    date_hierarchy = "date"
    list_select_related = ["competition", "round", "group", "home", "away"]
    fields = ["competition", "round", "group", "position", "label", "home", "away", "kickoff_at", "date", "venue",
              "status", "status_changed_at", "status_changed_by", "match", "winner_to", "loser_to"]
    readonly_fields = ["competition", "round", "group", "position", "home", "away", "date", "status",
                       "status_changed_at", "status_changed_by", "match", "winner_to", "loser_to"]
    inlines = [ResultInline, FixtureChangeInline]

    def has_add_permission(self, request):
        return False  # fixtures come from the draw or an import

    def save_model(self, request, obj, form, change):
        """The label is saved as it is; a new venue or kick-off goes through the services (checked,
        one history entry each)."""
        Fixture.objects.filter(pk=obj.pk).update(label=obj.label)
        try:
            if "venue" in form.changed_data:
                fixture_set_venue(fixture=obj, venue=obj.venue, by=request.user, reason="Changed in the admin.")
            if "kickoff_at" in form.changed_data and obj.kickoff_at is not None:
                fixture_reschedule(fixture=obj, kickoff_at=obj.kickoff_at, by=request.user,
                                   reason="Moved in the admin.")
        except PlayError as exc:
            self.message_user(request, exc.detail, messages.ERROR)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        # kick-offs are read and typed in the competition's time zone
        fixture = Fixture.objects.select_related("competition").filter(pk=object_id).first() if object_id else None
        if fixture is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        with timezone.override(fixture.competition.zone):
            return super().changeform_view(request, object_id, form_url, extra_context)


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    """Official results, read-only: they are recorded, decided or corrected on the fixture's page
    or through the API, where they are checked."""

    list_display = ["fixture", "__str__", "source", "outcome", "adjudicated_at"]
    list_filter = ["source", "outcome"]
    search_fields = ["fixture__home__name", "fixture__away__name"]
    list_select_related = ["fixture__home", "fixture__away"]
    readonly_fields = [f.name for f in Result._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(FixtureChange)
class FixtureChangeAdmin(admin.ModelAdmin):
    list_display = ["fixture", "kind", "at", "by", "reason"]
    list_filter = ["kind"]
    search_fields = ["fixture__home__name", "fixture__away__name", "reason"]
    list_select_related = ["fixture__home", "fixture__away", "by"]
    readonly_fields = ["fixture", "kind", "at", "by", "reason", "before", "after"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Standing)
class StandingAdmin(admin.ModelAdmin):
    list_display = ["competition", "group", "position", "entrant", "played", "points", "goal_difference", "tiebreak"]
    list_filter = ["competition"]
    search_fields = ["entrant__name", "competition__name"]
    list_select_related = ["competition", "group", "entrant"]

    def has_change_permission(self, request, obj=None):
        return False  # rows are computed from the results, never edited

    def has_add_permission(self, request):
        return False  # rows are computed from the results, never entered


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Users' API tokens: seen and revoked (deleted) here; made only by ``POST /api/auth/token/``
    (only a digest is stored: a token cannot be shown again)."""

    list_display = ["token_key", "user", "label", "created", "expiry"]
    list_select_related = ["user"]
    search_fields = ["user__username", "token_key"]
    readonly_fields = ["token_key", "user", "label", "created", "expiry"]
    exclude = ["digest", "password_stamp"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AccountLock)
class AccountLockAdmin(admin.ModelAdmin):
    """Accounts locked for new addresses after too many failed sign-ins from many addresses
    (``leagues.services.signins``): deleting a row lifts the lock (as ``manage.py
    axes_reset_username USERNAME`` does); they are written only by the sign-ins."""

    list_display = ["username", "locked_at", "until", "failures", "addresses"]
    search_fields = ["username"]
    readonly_fields = list_display

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
