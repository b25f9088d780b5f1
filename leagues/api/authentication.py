"""``Authorization: Token <token>``: django-rest-knox's authentication with the project's rules
(``leagues.services.tokens``). Kept apart from the views: DRF imports it from its settings while
``rest_framework.views`` is itself being imported."""
from __future__ import annotations

import re

from django.utils.translation import gettext_lazy as _
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from rest_framework import exceptions

from leagues.services import tokens

# knox's tokens: 64 hexadecimal characters (no prefix)
TOKEN_SHAPE = re.compile(r"[0-9a-f]{64}")


class ApiTokenAuthentication(KnoxTokenAuthentication):
    """knox's ``Authorization: Token <token>``, refusing (401, never 500) a token that is not
    64 hexadecimal characters, and a token made under a former password (deleted on the way)."""

    def authenticate_credentials(self, token: bytes):
        try:
            text = token.decode("ascii")
        except UnicodeDecodeError:
            text = ""
        if not TOKEN_SHAPE.fullmatch(text):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        return super().authenticate_credentials(text.encode("ascii"))

    def validate_user(self, auth_token):
        user, auth_token = super().validate_user(auth_token)
        if not tokens.stamp_is_current(auth_token, user):
            auth_token.delete()
            raise exceptions.AuthenticationFailed(_("Invalid token: the password has changed since it was made."))
        return user, auth_token
