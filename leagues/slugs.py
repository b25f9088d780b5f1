"""One rule for every slug (competitions, clubs, seasons; pages, API, admin, import): a slug is
ASCII letters, digits, hyphens and underscores, as Django's ``validate_slug`` and the ``<slug:>``
path converter read it. A name in any script is made into one by ``slugify`` (accents dropped:
"Taça 2012" -> ``taca-2012``); a slug given in another form is refused with the one to use.
The database refuses any other slug too (``Meta.constraints``), so no name can break a page.
"""
from __future__ import annotations

import re

from django.db.models import Model, Q
from django.utils.text import slugify
from django.utils.translation import gettext as _

SLUG = re.compile(r"[-a-zA-Z0-9_]+")
# the same rule, for a CheckConstraint (PostgreSQL and SQLite)
SLUG_REGEX = r"^[-a-zA-Z0-9_]+$"


def slug_q(field: str = "slug") -> Q:
    return Q(**{f"{field}__regex": SLUG_REGEX})


def slug_from(text: str, *, max_length: int, fallback: str) -> str:
    """An ASCII slug of ``text`` (at most ``max_length``), or ``fallback`` when nothing of it is
    left (a name in a script with no ASCII letters)."""
    return slugify(text)[:max_length].strip("-_") or fallback


def unique_slug(text: str, *, model: type[Model], max_length: int, fallback: str, exclude_pk=None) -> str:
    """``slug_from(text)``, with ``-2``, ``-3``... added until no other ``model`` row has it."""
    base = slug_from(text, max_length=max_length - 4, fallback=fallback)
    slug, n = base, 2
    while model.objects.filter(slug=slug).exclude(pk=exclude_pk).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def slug_problem(value: str, *, max_length: int) -> str | None:
    """Why ``value`` is not a slug (a sentence naming the one to use), or None when it is one."""
    if SLUG.fullmatch(value or "") and len(value) <= max_length:
        return None
    if len(value or "") > max_length:
        return _("%(value)r is longer than %(max)d characters") % {"value": value[:20] + "…", "max": max_length}
    suggestion = slug_from(value or "", max_length=max_length, fallback="")
    message = _("%(value)r is not a slug (letters a-z, digits, hyphens and underscores only)") % {"value": value}
    if suggestion:
        message += _("; use %(slug)r") % {"slug": suggestion}
    return message
