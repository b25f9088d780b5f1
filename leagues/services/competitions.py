"""Creating a competition: its slug is unique, and a slug made from the name never fails.

Two competitions may share a name; their slugs (the address of their pages) differ. A slug the
organiser gave that is taken is refused (``SlugTaken``, a 400 naming ``slug``); a slug made from
the name that another request took at the same moment is replaced by the next free one, then by
one with a random suffix, and the creation is tried again (the database's unique constraint is
the judge, not a check that races).
"""
from __future__ import annotations

import secrets
from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from leagues.models import Competition

ATTEMPTS = 12


class SlugTaken(ValueError):
    """The slug asked for belongs to another competition (a user can fix it: a 400 on ``slug``)."""

    field = "slug"

    def __init__(self):
        super().__init__(_("a competition with this slug exists already"))


def slug_base(name: str) -> str:
    """The slug made from ``name`` (ASCII letters, digits and hyphens; "competition" when none)."""
    return slugify(name or "")[:70] or "competition"


def free_slug(base: str, *, exclude_pk: int | None = None, random_suffix: bool = False) -> str:
    """``base``, or ``base-2``, ``base-3``... the first no other competition has (with
    ``random_suffix``: ``base-`` and six random hex digits, for a crowd of requests at once)."""
    if random_suffix:
        return f"{base[:70]}-{secrets.token_hex(3)}"
    slug, n = base, 2
    while Competition.objects.filter(slug=slug).exclude(pk=exclude_pk).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def competition_create(*, save: Callable[[str], Competition], slug: str, name: str, auto_slug: bool,
                       organiser=None) -> Competition:
    """Saves a new competition with ``save(slug)`` in a transaction and makes ``organiser``
    (its creator) one of its organisers. When ``slug`` is taken meanwhile: ``SlugTaken`` if the
    organiser gave it, otherwise another free slug made from ``name`` and a new try. A
    violation of another constraint is raised as it is (``IntegrityError``)."""
    base = slug_base(name)
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
            slug = free_slug(base, random_suffix=attempt >= 2)
    raise SlugTaken()
