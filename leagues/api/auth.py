"""Token authentication for programs: POST a username and password, get a token.

``POST /api/auth/token/`` with ``username`` and ``password`` (JSON or form) answers
``{"token": "...", "expiry": "..."}``; send the token as ``Authorization: Token <token>``.
Each call makes a new token (django-rest-knox: only a digest is stored, so a token cannot be
shown twice). A token dies at its expiry or when its user's password changes
(``leagues.services.tokens``); a user sees and revokes theirs at ``/accounts/tokens/``.

Guessing is bounded twice before any password is hashed: the address's rate on this endpoint
(``THROTTLE_TOKEN_RATE``, a 429 from DRF) and the lockouts of ``config.lockout`` (the pair's,
the address's and the account's across addresses: a 429 with ``"error": "locked_out"``). The browser uses its session (with CSRF) instead.
"""
from __future__ import annotations

from django.contrib.auth import authenticate, user_logged_in
from django.utils.translation import gettext_lazy as _
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from config.lockout import lockout_response
from config.throttling import ScopedRateThrottle
from leagues.services import tokens


class ApiTokenScheme(KnoxTokenScheme):
    """The schema's name for ``Authorization: Token <token>``."""

    target_class = "leagues.api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, trim_whitespace=False)
    password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})


@extend_schema(
    summary="Obtain an API token (username and password)", tags=["auth"], request=TokenRequestSerializer,
    responses={
        200: inline_serializer("Token", {"token": serializers.CharField(), "expiry": serializers.DateTimeField()}),
        400: OpenApiResponse(description="A field is missing or wrong, or the credentials are wrong."),
        429: OpenApiResponse(description="Too many attempts from this address, or this account is "
                                         "locked for this address or for new addresses (`Retry-After` "
                                         "says for how long)."),
    },
)
class ObtainTokenView(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth-token"

    def post(self, request: Request) -> Response:
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        http_request = request._request  # axes marks the Django request it is given
        user = authenticate(request=http_request, **serializer.validated_data)
        if getattr(http_request, "axes_locked_out", False):
            return lockout_response(http_request)
        if user is None:
            raise exceptions.ValidationError(
                {"non_field_errors": [_("Unable to log in with provided credentials.")]}
            )
        user_logged_in.send(sender=user.__class__, request=http_request, user=user)
        token_row, token = tokens.token_create(user=user, label="POST /api/auth/token/")
        return Response({"token": token, "expiry": token_row.expiry}, status=status.HTTP_200_OK)
