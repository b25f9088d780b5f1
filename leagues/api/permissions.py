"""DRF permission classes over ``leagues.permissions`` (the one place the rules live)."""
from __future__ import annotations

from rest_framework import permissions

from leagues.models import Competition
from leagues.permissions import can_create_competition, can_manage_competition


def competition_of(obj) -> Competition:
    return obj if isinstance(obj, Competition) else obj.competition


class OrganiserOrReadOnly(permissions.BasePermission):
    """Reads for everyone; writes for the organisers of the object's competition and the
    federation administrators. Creating a competition needs ``can_create_competition``."""

    message = "Only this competition's organisers or a federation administrator may change it."

    def has_permission(self, request, view) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        if not (request.user and request.user.is_authenticated):
            return False
        if getattr(view, "action", None) == "create" and getattr(view, "creates_competitions", False):
            self.message = "Creating a competition needs the organiser permission (leagues.add_competition)."
            return can_create_competition(request.user)
        return True

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return can_manage_competition(request.user, competition_of(obj))
