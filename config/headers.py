"""Per-view changes to the security headers (the site-wide ones are in ``config.settings``:
``CONTENT_SECURITY_POLICY``, ``X_FRAME_OPTIONS``, ``PERMISSIONS_POLICY``).

- ``embeddable``: the page may be framed by other sites (``EMBED_FRAME_ANCESTORS``); every other
  page answers ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``.
- ``redoc_styles``: Redoc writes its styles into ``<style>`` elements and renders in a worker;
  its page allows inline style (never inline script) and workers from ``blob:``.
- ``inline_style_attributes``: a page whose template still sets ``style="..."`` attributes.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from csp.decorators import csp_update
from django.conf import settings
from django.views.decorators.clickjacking import xframe_options_exempt


def embeddable(view: Callable) -> Callable:
    """Lets other sites frame the page: ``frame-ancestors`` becomes the response's
    ``embed_frame_ancestors`` (a list of CSP sources the view may set: the sites an organiser
    lists) or else ``EMBED_FRAME_ANCESTORS`` (default ``*``), read at each request; no
    ``X-Frame-Options`` is sent."""
    @wraps(view)
    def framed(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        sources = getattr(response, "embed_frame_ancestors", None) or settings.EMBED_FRAME_ANCESTORS
        response._csp_replace = {**getattr(response, "_csp_replace", {}), "frame-ancestors": list(sources)}
        return response

    return xframe_options_exempt(framed)


def redoc_styles(view: Callable) -> Callable:
    return csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"]})(view)


def inline_style_attributes(view: Callable) -> Callable:
    """Allows ``style="..."`` attributes (CSS only: no script, no ``<style>`` element)."""
    return csp_update({"style-src-attr": ["'unsafe-inline'"]})(view)
