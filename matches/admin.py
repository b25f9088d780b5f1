"""A basic admin for matches and their results (recording goes through the services)."""
from django.contrib import admin

from matches.models import Match, Result


class ResultInline(admin.StackedInline):
    model = Result
    extra = 0
    can_delete = False
    readonly_fields = ["home_goals", "away_goals", "winner_side", "winner", "adjudicated_at", "recorded_at"]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["__str__", "status", "rule_set", "created_at"]
    list_filter = ["status", "rule_set"]
    readonly_fields = ["rule_set", "rule_params", "status", "status_changed_at", "status_changed_by", "created_at"]
    raw_id_fields = ["fixture"]
    inlines = [ResultInline]


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ["match", "__str__", "outcome", "outcome_side", "winner", "adjudicated_at"]
    list_filter = ["outcome"]
    raw_id_fields = ["match", "winner", "recorded_by"]
    readonly_fields = ["home_goals", "away_goals", "winner_side", "winner", "adjudicated_at"]
