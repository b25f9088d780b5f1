"""The admin of the federation's year: the ranking's scale and tiers (federation administrators),
sign-up (organisers of the competition), and the derived ratings and placings (read-only)."""
from __future__ import annotations

from django.contrib import admin

from leagues.models import Placing, PlayerRating, RankingScale, RankingTier, Registration, SignUp
from leagues.permissions import is_federation_admin, managed_q


class FederationAdminOnly(admin.ModelAdmin):
    def has_module_permission(self, request):
        return is_federation_admin(request.user)

    def has_view_permission(self, request, obj=None):
        return is_federation_admin(request.user)

    has_change_permission = has_add_permission = has_delete_permission = has_view_permission


@admin.register(RankingScale)
class RankingScaleAdmin(FederationAdminOnly):
    list_display = ["__str__", "first", "second", "third_fourth", "fifth_eighth", "ninth_sixteenth", "other",
                    "window_months"]

    def has_add_permission(self, request):
        return is_federation_admin(request.user) and not RankingScale.objects.exists()

    def save_model(self, request, obj, form, change):
        obj.pk = 1  # one scale
        super().save_model(request, obj, form, change)


@admin.register(RankingTier)
class RankingTierAdmin(FederationAdminOnly):
    list_display = ["name", "factor"]


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnly):
    list_display = ["player", "period_start", "rating", "deviation", "volatility", "games"]
    list_filter = ["period_start"]
    search_fields = ["player__first_name", "player__last_name"]


@admin.register(Placing)
class PlacingAdmin(ReadOnly):
    list_display = ["competition", "entrant", "place", "place_to", "finished_on"]
    list_filter = ["competition"]


@admin.register(Registration)
class RegistrationAdmin(admin.ModelAdmin):
    list_display = ["competition", "opens_at", "closes_at", "capacity", "licence_required", "waiting_list"]

    def get_queryset(self, request):
        return super().get_queryset(request).filter(managed_q(request.user, "competition__")).distinct()


@admin.register(SignUp)
class SignUpAdmin(ReadOnly):
    """Sign-ups change through the services (the competition's page, the API), never here."""

    list_display = ["competition", "player", "status", "created_at", "decided_by", "reason"]
    list_filter = ["status", "competition"]

    def get_queryset(self, request):
        return super().get_queryset(request).filter(managed_q(request.user, "competition__")).distinct()
