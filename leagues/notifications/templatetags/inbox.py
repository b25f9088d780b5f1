"""``{% inbox_unread %}``: how many unread notifications the signed-in user has (the nav's badge)."""
from django import template

from leagues.notifications.services import unread_count

register = template.Library()


@register.simple_tag(takes_context=True)
def inbox_unread(context) -> int:
    request = context.get("request")
    return unread_count(getattr(request, "user", None))
