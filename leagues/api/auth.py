"""Token authentication for programs: POST a username and password, get the user's token.

Send it as ``Authorization: Token <key>``. The browser uses its session (with CSRF) instead.
"""
from drf_spectacular.utils import extend_schema
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.settings import api_settings


@extend_schema(summary="Obtain the API token of a user (username and password)", tags=["auth"])
class ObtainTokenView(ObtainAuthToken):
    # the project's parsers (ObtainAuthToken names DRF's own JSON parser)
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES
