"""API of the inbox: the signed-in user's notifications and their choices (the site's default
authentication: the session, or an API token)."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.metadata import SimpleMetadata
from rest_framework.response import Response

from leagues.notifications.models import Kind, Notification
from leagues.notifications.services import choices_of, mark_read, preferences_set


class NotificationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Notification
        fields = ["id", "kind", "subject", "body", "url", "created_at", "read_at", "email_status"]


class PreferenceSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Kind.choices)
    label = serializers.CharField(read_only=True)
    inbox = serializers.BooleanField()
    email = serializers.BooleanField()


class PreferencesMetadata(SimpleMetadata):
    """``OPTIONS`` of the preferences: the fields of one row of the list a PUT sends (DRF's
    default would look for a notification to change, and this list is not one)."""

    def determine_actions(self, request, view):
        return {"PUT": self.get_serializer_info(PreferenceSerializer())}


@extend_schema(summary="The signed-in user's inbox, newest first")
class NotificationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = NotificationSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema's generation, without a user
            return Notification.objects.none()
        return Notification.objects.filter(user=self.request.user, in_inbox=True).order_by("-created_at", "-pk")

    @extend_schema(summary="Mark a notification read", request=None, responses=NotificationSerializer)
    @action(detail=True, methods=["post"])
    def read(self, request, pk=None):
        notification = self.get_object()
        mark_read(user=request.user, ids=[notification.pk])
        notification.refresh_from_db()
        return Response(NotificationSerializer(notification).data)

    @extend_schema(summary="What the signed-in user receives, kind by kind (GET), or change it (PUT, a list)",
                   request=PreferenceSerializer(many=True), responses=PreferenceSerializer(many=True))
    @action(detail=False, methods=["get", "put"], pagination_class=None, metadata_class=PreferencesMetadata)
    def preferences(self, request):
        if request.method == "PUT":
            data = PreferenceSerializer(data=request.data, many=True)
            if not data.is_valid():
                raise ValidationError({"preferences": data.errors})
            preferences_set(user=request.user, choices={
                row["kind"]: (row["inbox"], row["email"]) for row in data.validated_data})
        chosen = choices_of(request.user)
        return Response(PreferenceSerializer([
            {"kind": kind.value, "label": kind.label, "inbox": chosen[kind.value][0], "email": chosen[kind.value][1]}
            for kind in Kind], many=True).data)
