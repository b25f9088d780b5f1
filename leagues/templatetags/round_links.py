"""A competition's rounds as links to their pages (``{% round_links %}``, what
``leagues/_round_nav.html`` lists): built in Python, not by the template engine's lookups,
since a league of 200 entrants has 398 rounds on every one of its pages."""
from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from leagues.templatetags.botonera import shown

register = template.Library()


@register.simple_tag
def round_links(competition, rounds, marked=None, multi_stage=False) -> SafeString:
    """``<a>`` per round of ``rounds`` (``NumberedRound``) to ``/competitions/<slug>/rounds/<n>/``,
    the round whose pk is ``marked`` marked current; with ``multi_stage``, each name after its
    stage's initial."""
    base = reverse("site:competition", args=[competition.slug])
    initials: dict[int, str] = {}
    links = []
    for entry in rounds:
        rnd = entry.round
        name = shown(rnd)
        if multi_stage:
            if rnd.stage_id not in initials:
                initials[rnd.stage_id] = shown(rnd.stage.name)[:1]
            name = f"{initials[rnd.stage_id]} · {name}"
        current = ' class="current" aria-current="page"' if rnd.pk == marked else ""
        links.append(format_html('<a href="{}rounds/{}/"{}>{}</a>', base, entry.number, mark_safe(current), name))
    return mark_safe("".join(links))
