"""Creating a competition: its slug is unique, and a slug made from the name never fails.

Two competitions may share a name; their slugs (the address of their pages) differ. A slug the
organiser gave that is taken is refused (``SlugTaken``, a 400 naming ``slug``); a slug made from
the name (``leagues.slugs``) that another request took at the same moment is replaced by the next
free one, then by one with a random suffix, and the creation is tried again: the database's
unique constraint is the judge, not a check that races.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from leagues.models import Competition
from leagues.slugs import slug_from, unique_slug

ATTEMPTS = 12
SLUG_MAX = Competition._meta.get_field("slug").max_length


class SlugTaken(ValueError):
    """The slug asked for belongs to another competition (a user can fix it: a 400 on ``slug``)."""

    field = "slug"

    def __init__(self):
        super().__init__(_("a competition with this slug exists already"))


def next_slug(name: str, *, random_suffix: bool = False) -> str:
    """The first free slug made from ``name`` (``name``, ``name-2``...); with ``random_suffix``,
    the slug of ``name`` and six random hex digits (for a crowd of requests at once)."""
    if random_suffix:
        return f"{slug_from(name, max_length=SLUG_MAX - 8, fallback='competition')}-{secrets.token_hex(3)}"
    return unique_slug(name, model=Competition, max_length=SLUG_MAX, fallback="competition")


def competition_create(*, save: Callable[[str], Competition], slug: str, name: str, auto_slug: bool,
                       organiser=None) -> Competition:
    """Saves a new competition with ``save(slug)`` in a transaction and makes ``organiser``
    (its creator) one of its organisers. When ``slug`` is taken meanwhile: ``SlugTaken`` if the
    organiser gave it, otherwise another free slug made from ``name`` and a new try. A
    violation of another constraint is raised as it is (``IntegrityError``)."""
    for attempt in range(ATTEMPTS):
        try:
            with transaction.atomic():
                competition = save(slug)
                if organiser is not None:
                    competition.organisers.add(organiser)
            return competition
        except IntegrityError:
            if not Competition.objects.filter(slug=slug).exists():
                raise
            if not auto_slug:
                raise SlugTaken() from None
            slug = next_slug(name, random_suffix=attempt >= 2)
    raise SlugTaken()
