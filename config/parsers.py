"""The project's request parsers: what a client sends wrong is the client's error (400 naming
the field), never the server's (500).

- JSON nested too deeply or with a number too large to read: 400 (``ParseError``).
- A NUL character in any text of the body, JSON or form (PostgreSQL cannot store one, and no
  field means one): 400 naming the field, e.g. ``{"competition": ["Null characters are not
  allowed."]}``; a nested one is named by its path (``action.piece``).
"""
from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError, ValidationError


def nul_field(data: Any, path: str = "") -> str | None:
    """The path of the first text (or key) holding a NUL character in ``data``, or None."""
    if isinstance(data, str):
        return (path or "body") if "\x00" in data else None
    if hasattr(data, "lists"):  # a form's QueryDict: a field may repeat, named without an index
        for key, values in data.lists():
            if "\x00" in key or any(isinstance(v, str) and "\x00" in v for v in values):
                return key
        return None
    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                return name
            found = nul_field(value, name)
            if found:
                return found
    if isinstance(data, list | tuple):
        for i, value in enumerate(data):
            found = nul_field(value, f"{path}[{i}]")
            if found:
                return found
    return None


def refuse_nul(data: Any) -> Any:
    field = nul_field(data)
    if field:
        raise ValidationError({field: [_("Null characters are not allowed.")]})
    return data


class SafeJSONParser(parsers.JSONParser):
    """``JSONParser`` that turns ``RecursionError`` (deep nesting) and ``OverflowError`` /
    ``ValueError`` from number conversion into ``ParseError`` (400), and a NUL character in any
    text into a 400 naming the field."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the body is nested too deeply") from exc
        except (OverflowError, ValueError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        return refuse_nul(data)


class SafeFormParser(parsers.FormParser):
    """``FormParser`` refusing a NUL character in any field (400 naming it)."""

    def parse(self, stream, media_type=None, parser_context=None):
        return refuse_nul(super().parse(stream, media_type, parser_context))


class SafeMultiPartParser(parsers.MultiPartParser):
    """``MultiPartParser`` refusing a NUL character in any text field (400 naming it)."""

    def parse(self, stream, media_type=None, parser_context=None):
        result = super().parse(stream, media_type, parser_context)
        refuse_nul(result.data)
        return result
