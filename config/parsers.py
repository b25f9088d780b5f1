"""The project's JSON parser: a body too deeply nested or with a number too large to read is
the client's error (400), not the server's (500)."""
from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class SafeJSONParser(JSONParser):
    """``JSONParser`` that turns ``RecursionError`` (deep nesting) and ``OverflowError`` /
    ``ValueError`` from number conversion into ``ParseError`` (400)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the body is nested too deeply") from exc
        except (OverflowError, ValueError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
