"""A basic admin for the registry and the competitions (the site issue polishes it)."""
from django.contrib import admin

from leagues.models import (
    Club,
    ClubMembership,
    Competition,
    Entrant,
    Fixture,
    Group,
    Player,
    Round,
    Season,
    Stage,
    Standing,
)


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
    model = Entrant
    extra = 0
    fields = ["name", "player", "club", "seed", "withdrawn_at"]
    autocomplete_fields = ["player", "club"]


class StageInline(admin.TabularInline):
    model = Stage
    extra = 0


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "season", "format", "tiebreak_preset", "rule_set"]
    list_filter = ["season", "format", "rule_set", "tiebreak_preset"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["organisers"]
    inlines = [EntrantInline, StageInline]
    fieldsets = [
        (None, {"fields": ["season", "name", "slug", "format", "organisers"]}),
        ("Format", {"fields": ["double_round_robin", "third_place_match", "group_count", "qualifiers_per_group",
                               "first_date", "days_between_rounds"]}),
        ("Match format", {"fields": ["halves", "half_minutes", "extra_time", "extra_time_minutes", "shootout",
                                     "shootout_kicks", "rule_set", "rule_params"]}),
        ("Points and tie-breaks", {"fields": ["points_win", "points_draw", "points_loss", "points_bye",
                                              "tiebreak_preset", "tiebreak_criteria", "lots_seed", "lots_drawn"]}),
        ("Results", {"fields": ["walkover_goals_for", "walkover_goals_against", "withdrawal_policy"]}),
    ]


@admin.register(Entrant)
class EntrantAdmin(admin.ModelAdmin):
    list_display = ["name", "competition", "seed", "player", "club", "withdrawn_at"]
    list_filter = ["competition"]
    search_fields = ["name"]
    autocomplete_fields = ["player", "club"]


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


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
    list_display = ["__str__", "competition", "round", "group", "date", "status", "label"]
    list_filter = ["status", "competition"]
    search_fields = ["home__name", "away__name"]
    raw_id_fields = ["home", "away", "winner_to", "loser_to", "round", "group"]
    readonly_fields = ["status", "status_changed_at", "status_changed_by"]


@admin.register(Standing)
class StandingAdmin(admin.ModelAdmin):
    list_display = ["competition", "group", "position", "entrant", "played", "points", "goal_difference", "tiebreak"]
    list_filter = ["competition"]

    def has_add_permission(self, request):
        return False  # rows are computed from the results, never entered
