"""Template helpers about who organises: ``{% if user|organises %}`` shows "Organise" only to
those who may create or change a competition (``leagues.permissions``)."""
from __future__ import annotations

from django import template

from leagues.permissions import organises_anything

register = template.Library()


@register.filter
def organises(user) -> bool:
    return organises_anything(user)
