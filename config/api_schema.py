"""The API schema (``/api/schema/``) says every status an operation can answer, with its body.

drf-spectacular describes what a view returns when all goes well; ``AutoSchema`` adds the
answers DRF and the project give when it does not, from what the operation is:

- 400 ``FieldErrors`` (``{"field": ["message"]}``, a nested field by its path, or
  ``{"detail": ...}`` for a body that cannot be read): an operation with a body or query
  parameters, and every write (a service's user error names its field);
- 401 ``ErrorDetail``: every operation that reads credentials (a wrong or expired token is
  refused on any of them, reads included), with ``WWW-Authenticate: Token``;
- 403 ``ErrorDetail`` (with its ``error`` code where a service refuses it): every write, and
  every read that needs a user (the permissions; a session without its CSRF token);
- 404 ``ErrorDetail``: an operation with a path parameter (no such object) and a paginated
  list (``?page=`` past the end);
- 409 ``Refusal``: a write of a view whose services refuse what the state does not allow
  (``schema_conflicts = True``: a lock held by another request, a result in the way...);
- 414 (the HTTP server's page): an operation with query parameters, when they are too long;
- 415 ``ErrorDetail``: an operation with a body sent as a type it does not read;
- 429 ``ErrorDetail``: a throttled write (``throttle_scope``; reads are never throttled);
- 503 ``Refusal`` (``"unavailable"``) with ``Retry-After``: every operation, while the database
  cannot be reached (``config.database_outage``).

A view states the rest itself with ``extend_schema(responses=...)`` (409 and 422
``Refusal``); a status it states without a body gets the body above. Throttles and
permissions are read from the view, so a new view is described without another line here.
"""
from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import permissions, serializers

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
TIME_OF_DAY = r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,6})?)?$"


class ErrorDetailSerializer(serializers.Serializer):
    """An error's body: one sentence, and a code when the project refused it (``"not_found"``,
    ``"not_a_player"``, ``"locked_out"``...; DRF's own errors have none)."""

    detail = serializers.CharField(help_text="What is wrong, in a sentence.")
    error = serializers.CharField(required=False, help_text="A code, when there is one.")


class RefusalSerializer(serializers.Serializer):
    """A refusal by the state of things (409, 422; some 400 and 403): a code for programs and a
    sentence for people; some codes add fields (``field``, the match's ``seq``, ``status`` and
    ``state``; a refusal of the referee its ``reason``, ``rule``, ``message``, ``text``,
    ``rule_url`` and ``rule_label``)."""

    error = serializers.CharField(help_text='A code, e.g. "stale", "not_live", "conflict", "busy".')
    detail = serializers.CharField(help_text="The reason, in a sentence.")
    field = serializers.CharField(required=False, help_text="The field at fault, when there is one.")


FIELD_ERRORS = {
    "type": "object",
    "description": 'Each field at fault with its messages: {"field": ["message", ...]}; a nested field '
                   'by its path or as an object, a list\'s rows as a list; {"detail": "..."} when the '
                   "body cannot be read at all.",
    "additionalProperties": {
        "anyOf": [
            {"type": "array", "items": {}},
            {"type": "object"},
            {"type": "string"},
        ],
    },
}

DESCRIPTIONS = {
    "400": "Bad input: each field at fault is named with its messages.",
    "401": "No valid credentials: the token is unknown, expired or made under a former password.",
    "403": "Not allowed: not an organiser of this competition, not a player of this match, or no CSRF "
           "token with a session.",
    "404": "No such object (or no such page of the list).",
    "409": 'The state refuses it: {"error": CODE, "detail": SENTENCE}.',
    "415": "The body is of a media type the operation does not read.",
    "422": 'Refused: {"error": CODE, "detail": SENTENCE}.',
    "429": "Too many requests: `Retry-After` says when to try again.",
    "503": 'The database cannot be reached just now: {"error": "unavailable", "detail": SENTENCE}; '
           "`Retry-After` says when to try again.",
}


def _requires_authentication(view: Any, method: str) -> bool:
    """Whether an anonymous ``method`` is refused by the view's permission classes alone."""
    for permission in getattr(view, "permission_classes", []):
        if isinstance(permission, type) and issubclass(permission, permissions.IsAuthenticated):
            return True
        if method in UNSAFE and isinstance(permission, type) and not issubclass(permission, permissions.AllowAny):
            return True
    return False


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's ``AutoSchema`` adding the error answers listed in the module's docstring."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation["responses"]
        for code, schema in self._implied_errors(operation).items():
            answer = responses.setdefault(code, {"description": DESCRIPTIONS.get(code, "")})
            if not answer.get("description"):
                answer["description"] = DESCRIPTIONS.get(code, "")
            if "content" not in answer:
                answer["content"] = {"application/json": {"schema": schema}}
        for code, answer in responses.items():  # a status stated without its body
            if code >= "400" and "content" not in answer:
                answer["content"] = {"application/json": {"schema": self._error_schema(code)}}
        if any(p.get("in") == "query" for p in operation.get("parameters", [])):
            responses.setdefault("414", {
                "description": "The request line is too long for the HTTP server (gunicorn: over 4094 bytes).",
                "content": {"text/html": {"schema": {"type": "string"}}},
            })
        responses["503"].setdefault("headers", {})["Retry-After"] = {
            "schema": {"type": "integer", "minimum": 1}, "description": "Seconds to wait before trying again."}
        if "401" in responses:
            responses["401"].setdefault("headers", {})["WWW-Authenticate"] = {
                "schema": {"type": "string"}, "description": "Token"}
        return operation

    def get_auth(self):
        """A read the permissions let through without a user is open to anonymous requests
        (``{}`` among the security requirements): the project's ``...OrReadOnly`` classes too,
        which drf-spectacular does not know."""
        auths = super().get_auth()
        if auths and {} not in auths and self.method in permissions.SAFE_METHODS \
                and not _requires_authentication(self.view, self.method):
            auths.append({})
        return auths

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if isinstance(field, serializers.TimeField) and schema.get("format") == "time":
            # JSON Schema's "time" needs an offset; a time of day here is local, "18:00[:00[.000000]]"
            del schema["format"]
            schema["pattern"] = TIME_OF_DAY
        return schema

    # --- the bodies ---------------------------------------------------------------------------

    def _component(self, name: str, schema: dict) -> dict:
        component = ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, schema=schema, object=name)
        self.registry.register_on_missing(component)
        return component.ref

    def _serializer_ref(self, serializer_class) -> dict:
        return self.resolve_serializer(serializer_class(), "response").ref

    def _error_schema(self, code: str) -> dict:
        if code == "400":
            return self._component("FieldErrors", FIELD_ERRORS)
        if code in ("409", "422", "503"):
            return self._serializer_ref(RefusalSerializer)
        return self._serializer_ref(ErrorDetailSerializer)

    def _implied_errors(self, operation: dict) -> dict[str, dict]:
        method = self.method
        parameters = operation.get("parameters", [])
        has_body = "requestBody" in operation
        errors: dict[str, dict] = {}
        if has_body or method in UNSAFE or any(p.get("in") == "query" for p in parameters):
            errors["400"] = self._error_schema("400")
        if getattr(self.view, "authentication_classes", None):
            errors["401"] = self._error_schema("401")
        if _requires_authentication(self.view, method):
            errors["403"] = self._error_schema("403")
        if any(p.get("in") == "path" for p in parameters) or (
            self._is_list_view() and self._get_paginator() is not None and method == "GET"
        ):
            errors["404"] = self._error_schema("404")
        if has_body:
            errors["415"] = self._error_schema("415")
        if method in UNSAFE and getattr(self.view, "schema_conflicts", False):
            errors["409"] = self._error_schema("409")
        if getattr(self.view, "throttle_classes", None) and method in UNSAFE:  # reads are never throttled
            errors["429"] = self._error_schema("429")
        errors["503"] = self._error_schema("503")  # the database away: any operation
        return errors
