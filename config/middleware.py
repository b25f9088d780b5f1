"""``RefuseNulInQuery``: a NUL character in a query parameter is a 400 naming the parameter
(PostgreSQL cannot compare with one, so a filter such as ``?competition=%00`` was a 500). The
bodies are checked by the API's parsers (``config.parsers``) and Django's form fields."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils.translation import gettext as _


class RefuseNulInQuery:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                field = name.replace("\x00", "\\x00")
                message = _("Null characters are not allowed.")
                if request.path.startswith("/api/"):
                    return JsonResponse({field: [message]}, status=400)
                return HttpResponseBadRequest(f"{field}: {message}", content_type="text/plain; charset=utf-8")
        return self.get_response(request)
