"""Top-level URLs: the admin, the API and its docs, the site's pages."""
from django.contrib import admin
from django.http import JsonResponse
from django.urls import include, path, re_path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from config.headers import redoc_styles
from config.language import set_language
from leagues.views.pages import api_tokens


@csrf_exempt  # as the API's views: a POST with a session cookie gets this 404, not a CSRF page
def api_not_found(request, *args, **kwargs) -> JsonResponse:
    """A path under ``/api/`` that names no operation (``/api/fixtures/0.5/``, a slug that is not
    one): the API's 404 body, never the site's HTML page."""
    return JsonResponse({"detail": _("Not found.")}, status=404)


# with DEBUG off, an error outside any view (a middleware's) that is the database away is a 503 too
handler500 = "config.database_outage.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    # the language switcher of every page posts here (config.language); no language prefix
    path("i18n/setlang/", set_language, name="set_language"),
    path("accounts/tokens/", api_tokens, name="api-tokens"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI's start-up script is served apart (?script), so the page needs no inline script
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", redoc_styles(SpectacularRedocView.as_view(url_name="schema")), name="api-redoc"),
    path("api/matches/", include("matches.api.urls")),
    path("api/", include("leagues.notifications.api_urls")),
    path("api/", include("leagues.api.urls")),
    re_path(r"^api/(?:.*/)?$", api_not_found),  # ends with "/": without it, APPEND_SLASH redirects first
    path("", include("matches.urls")),
    path("", include("leagues.notifications.urls")),
    path("", include("leagues.urls")),
]
