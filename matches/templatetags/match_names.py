"""``{{ match.title|title_shown }}``: a match's stored title in the reader's language (``matches.names``)."""
from django import template

from matches.names import title_shown as _title_shown

register = template.Library()


@register.filter
def title_shown(title: str) -> str:
    return _title_shown(title)
