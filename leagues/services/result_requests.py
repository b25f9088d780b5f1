"""A result sent once, whatever the network does (COMPETITIONS.md §12): the first answer given to
a key is stored with the result, in its transaction, and given again to a retry.

A key is its user's: the API's ``Idempotency-Key`` header (1 to 100 printable ASCII characters),
or the hidden key of a result form (a uuid made when the form is shown). ``result_once`` runs
the write once per (user, key): a retry with the same fixture and body gets the first answer
again (``replayed``), and the result and its history entry are stored once; the same key with
another request is refused (``ResultConflict`` "idempotency_key_reused", 409) and changes
nothing. Two copies of a request arriving at once wait for each other on the competition's lock
(the first lock of every write, ``leagues.services.locks``): the second is a replay. A refused
write (400, 403, 409) stores no key: it changed nothing, and its retry is checked again.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from leagues.models import Fixture, ResultRequest
from leagues.rules.official import ResultError
from leagues.services.locks import Busy, lock_competition, retry_conflicts
from leagues.services.results import ResultConflict

MAX_KEY_LENGTH = ResultRequest._meta.get_field("key").max_length
KEY_FIELD = "Idempotency-Key"


@dataclass(frozen=True)
class Answer:
    """An HTTP status and a JSON body; ``replayed``: the first answer to this key, given again."""

    status_code: int
    data: Any
    replayed: bool = False


class _KeyTaken(Exception):
    """Another request stored the same key first (for another competition): roll back."""


def key_of(value: str | None) -> str | None:
    """The key ``value`` (stripped; ``None`` when empty). Raises ``ResultError`` naming
    ``Idempotency-Key`` for one that is too long or not printable ASCII (a 400)."""
    key = (value or "").strip()
    if not key:
        return None
    if len(key) > MAX_KEY_LENGTH or not (key.isascii() and key.isprintable()):
        raise ResultError(KEY_FIELD, _("an Idempotency-Key is 1 to %(length)s printable ASCII characters")
                          % {"length": MAX_KEY_LENGTH})
    return key


def request_hash(*, fixture_id: int, body: Any) -> str:
    """SHA-256 of a result request (its fixture and body, as canonical JSON): what a key is bound to."""
    text = json.dumps({"fixture": fixture_id, "body": body}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _replay(first: ResultRequest, digest: str) -> Answer:
    if first.request_hash != digest:
        raise ResultConflict(
            "idempotency_key_reused",
            _("this key was first used for another result (another fixture or another score); a new result "
              "needs a new key"), field=KEY_FIELD)
    return Answer(first.status_code, first.response, replayed=True)


def stored_answer(*, user, key: str | None, fixture: Fixture, body: Any) -> Answer | None:
    """The answer stored for ``user``'s ``key`` when it was given to this very request, ``None``
    when the key is new; raises ``ResultConflict`` ("idempotency_key_reused") for another request."""
    key = key_of(key)
    if key is None or not getattr(user, "pk", None):
        return None
    first = ResultRequest.objects.filter(user=user, key=key).first()
    return None if first is None else _replay(first, request_hash(fixture_id=fixture.pk, body=body))


@retry_conflicts
def result_once(*, fixture: Fixture, user, key: str | None, body: Any,
                write: Callable[[], tuple[int, Any]]) -> Answer:
    """Runs ``write`` (a result's write, returning its status and JSON answer) once for
    ``user``'s ``key`` and this request (``fixture`` and ``body``): see the module. Without a key
    (or a user) it simply runs. Raises what ``write`` raises (nothing stored), ``ResultError``
    for a malformed key and ``ResultConflict`` ("idempotency_key_reused") for a key first given
    to another request."""
    key = key_of(key)
    if key is None or not getattr(user, "pk", None):
        status, data = write()
        return Answer(status, data)
    digest = request_hash(fixture_id=fixture.pk, body=body)
    first = ResultRequest.objects.filter(user=user, key=key).first()
    if first is not None:
        return _replay(first, digest)
    try:
        with transaction.atomic():
            lock_competition(fixture.competition_id)  # a copy of this request waits here, then replays
            first = ResultRequest.objects.filter(user=user, key=key).first()
            if first is not None:
                return _replay(first, digest)
            status, data = write()
            try:
                with transaction.atomic():
                    ResultRequest.objects.create(fixture=fixture, user=user, key=key, request_hash=digest,
                                                 status_code=status, response=data)
            except IntegrityError as exc:
                raise _KeyTaken from exc
    except _KeyTaken:  # the whole write was rolled back
        first = ResultRequest.objects.filter(user=user, key=key).first()
        if first is None:
            raise Busy(_("another request with this key was being saved; try again")) from None
        return _replay(first, digest)
    return Answer(status, data)
