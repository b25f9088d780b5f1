"""The language a page is in: the user's choice, then ``Accept-Language``, then the site's
``LANGUAGE_CODE``. URLs carry no language prefix.

- The switcher of every page (``templates/_language_switcher.html``) posts ``language`` and
  ``next`` to ``set_language`` (``/i18n/setlang/``): Django's own view, which puts the choice in
  the language cookie and redirects back; a signed-in user's choice is also saved in their
  ``notifications.Profile``.
- ``UserLanguageMiddleware`` (after ``AuthenticationMiddleware``): a signed-in user's saved
  language wins over the cookie and the browser, and is written into the cookie, so it is
  applied from the sign-in on (and stays after signing out). Django's ``LocaleMiddleware``
  (earlier) has read the cookie and ``Accept-Language`` already.
- The choice is kept by ``notifications.services`` (``saved_language``, ``save_language``), which
  also writes each notification in its user's language (``speaking_to``).
"""
from __future__ import annotations

from django import db
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from config.database_outage import is_unavailable
from leagues.notifications.services import save_language, saved_language

SUPPORTED = {code for code, _name in settings.LANGUAGES}


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's ``set_language`` (cookie, redirect to ``next``), and for a signed-in user the
    choice saved in the profile. A code the site does not speak changes nothing."""
    response = django_set_language(request)
    code = request.POST.get("language", "")
    if code in SUPPORTED and request.user.is_authenticated:
        save_language(request.user, code)
    return response


def _users_language(request: HttpRequest) -> str:
    """The signed-in user's saved language, or "". While the database cannot be reached, ""
    (the cookie's language stays, which holds the saved one): the view meets the outage
    itself and is answered 503 in that language (``config.database_outage``)."""
    try:
        return saved_language(getattr(request, "user", None))
    except db.Error as exc:  # a DatabaseError or an InterfaceError
        if not is_unavailable(exc):
            raise
        return ""


class UserLanguageMiddleware:
    """A signed-in user's saved language is the page's, and goes into the cookie."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        code = _users_language(request)
        if code and code != request.LANGUAGE_CODE:
            translation.activate(code)
            request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        # after the view: a sign-in has just set request.user, whose choice is applied from now on
        code = _users_language(request)
        name = settings.LANGUAGE_COOKIE_NAME
        if code and name not in response.cookies and request.COOKIES.get(name) != code:
            response.set_cookie(
                name, code,
                max_age=settings.LANGUAGE_COOKIE_AGE, path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN, secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY, samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response
