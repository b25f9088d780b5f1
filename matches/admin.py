"""A read-mostly admin for matches: online play writes through the services."""
from django.contrib import admin

from matches.models import Match


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["__str__", "kind", "status", "rule_set", "scheduled_at", "created_at"]
    list_filter = ["status", "kind", "rule_set"]
    search_fields = ["title"]
    readonly_fields = [
        "rule_set", "rule_params", "status", "status_changed_at", "status_changed_by", "created_at",
        "log_result", "adjudicated_at", "official", "seq", "state_hash",
    ]
    raw_id_fields = ["home_user", "away_user"]
