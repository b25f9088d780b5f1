"""Routes of the inbox's API (mounted at ``/api/``)."""
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from . import api

router = DefaultRouter()
router.include_root_view = False
router.register("notifications", api.NotificationViewSet, basename="notification")

urlpatterns = [path("", include(router.urls))]
