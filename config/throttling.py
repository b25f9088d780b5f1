"""Rate limits of the API: DRF's scoped throttles that fail open.

A view names its scope (``throttle_scope``); the rates are ``REST_FRAMEWORK
["DEFAULT_THROTTLE_RATES"]`` (settings ``THROTTLE_TOKEN_RATE``, ``THROTTLE_ACTIONS_RATE``).
The counts live in the cache (Redis at scale): when the cache cannot be reached the request
is let through and a warning logged, so a Redis outage never makes a request a 5xx.
"""
from __future__ import annotations

import logging

from redis.exceptions import RedisError
from rest_framework import throttling

logger = logging.getLogger(__name__)

CACHE_ERRORS = (RedisError, OSError)


class ScopedRateThrottle(throttling.ScopedRateThrottle):
    """``rest_framework.throttling.ScopedRateThrottle`` that lets a request through when its
    cache fails (fail open)."""

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except CACHE_ERRORS as exc:
            logger.warning("throttle %s: the cache cannot be reached (%s); request let through",
                           getattr(self, "scope", "?"), exc)
            return True
