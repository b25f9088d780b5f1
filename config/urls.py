"""Top-level URLs: the admin, the API and its docs, the site's pages."""
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("api/matches/", include("matches.api.urls")),
    path("api/", include("notifications.api_urls")),
    path("api/", include("leagues.api.urls")),
    path("", include("matches.urls")),
    path("", include("notifications.urls")),
    path("", include("leagues.urls")),
]
