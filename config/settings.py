"""Botonera settings: one module, everything read from the environment.

Environment variables (all optional; the defaults give the embedded set-up):

- ``DATABASE_URL``: any URL dj-database-url reads; default a SQLite file ``db.sqlite3`` at the
  repository root.
- ``REDIS_URL``: Redis for the Celery broker and the cache. Unset: Celery tasks run in-process,
  eagerly, and the cache is local memory. Redis down is never an error of a request: the cache
  fails open and a task that cannot be sent is found later by the sweeper (README).
- ``SECRET_KEY``: required when ``DEBUG`` is off, and then at least 50 characters, 5 of them
  different (a weaker key refuses to start, in one line: ``config.boot``).
- ``DEBUG``: off unless set (``0``/``false``: production, with the settings ``manage.py check
  --deploy`` asks for); ``1``/``true`` for development (``make run`` and the tests set it).
- ``ALLOWED_HOSTS``: comma-separated; default ``localhost,127.0.0.1,[::1]``.
- ``CSRF_TRUSTED_ORIGINS``: comma-separated origins, for a site behind HTTPS.
"""
from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    value = os.environ.get(name, "")
    if value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}")
    return number


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# A production key as Django's deploy check wants it (security.W009): at least 50 characters, at
# least 5 different ones, not a development key. With DEBUG off a weaker one refuses to start.
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_DISTINCT = 5
SECRET_KEY_DEVELOPMENT_PREFIX = "django-insecure-"


def secret_key_weakness(key: str) -> str | None:
    """Why ``key`` is too weak for production (a phrase that never quotes it), or None."""
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"it has {len(key)} characters, at least {SECRET_KEY_MIN_LENGTH} are needed"
    if len(set(key)) < SECRET_KEY_MIN_DISTINCT:
        return f"it has {len(set(key))} different characters, at least {SECRET_KEY_MIN_DISTINCT} are needed"
    if key.startswith(SECRET_KEY_DEVELOPMENT_PREFIX):
        return f"it begins with {SECRET_KEY_DEVELOPMENT_PREFIX!r}, as development keys do"
    return None


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (for development set DEBUG=1, as the make targets do: "
            "make manage ARGS=\"...\")")
    SECRET_KEY = "django-insecure-development-only-botonera-key-do-not-use-in-production"
elif not DEBUG and (weakness := secret_key_weakness(SECRET_KEY)):
    raise ImproperlyConfigured(
        f"SECRET_KEY is too weak for a site with DEBUG off: {weakness}; make one with "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",  # first: its runserver serves HTTP and the watchers' WebSockets (config.asgi)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",  # its ordinals (5th, 5.º) in the placement matches' names
    "channels",
    "rest_framework",
    "knox",
    "axes",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "leagues",
    "matches",
    "leagues.notifications",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.RefuseNulInQuery",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    # an anonymous visitor's cached page, before the session and the user are loaded
    "leagues.middleware.AnonymousCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # the language: the cookie (the switcher, set_language), then Accept-Language, then
    # LANGUAGE_CODE; URLs carry no language prefix (no i18n_patterns: "/" never redirects)
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # a signed-in user's saved language comes first, and is put in the cookie (config.language)
    "config.language.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # last: turns a sign-in refused by a lockout into its 429 (config.lockout)
    "axes.middleware.AxesMiddleware",
    # a write that met another and could not wait is a 409 busy, never a 500
    "leagues.middleware.BusyAsConflict",
    # a view that met the database away is a 503 with Retry-After, never a 500
    "config.database_outage.DatabaseUnavailable",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# A connection kept (DB_CONN_MAX_AGE, DB_POOL) is checked before a request uses it, so that one
# broken by a restart of the database is discarded, not reused: the site is right again at once.
# In production (DEBUG off) a thread keeps its connection DB_CONN_MAX_AGE seconds (300 unless
# set; 0: a new connection per request, which costs the Procfile's web most of its rate); in
# development, none is kept unless set.
DB_CONN_MAX_AGE = env_int("DB_CONN_MAX_AGE", 0 if DEBUG else 300)
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=DB_CONN_MAX_AGE,
        conn_health_checks=True,
    )
}
# While the database cannot be reached a request that needs it is answered 503 with this
# Retry-After (config.database_outage); a PostgreSQL that does not answer at all (a host down)
# is given up after DB_CONNECT_TIMEOUT seconds, not the system's minutes of TCP retries.
DATABASE_RETRY_AFTER_SECONDS = env_int("DATABASE_RETRY_AFTER_SECONDS", 10, minimum=1)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env_int("DB_CONNECT_TIMEOUT", 5, minimum=1))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves several requests at once (runserver's threads, an import in
    # another process): readers never wait for a writer (WAL), a transaction takes the write
    # lock when it begins (IMMEDIATE: no deadlock upgrading a read to a write, which SQLite
    # answers at once with "database is locked"), and a writer waits for another for up to
    # SQLITE_BUSY_TIMEOUT seconds instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "transaction_mode": "IMMEDIATE",
        "timeout": float(os.environ.get("SQLITE_BUSY_TIMEOUT", "20")),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })
# Served by ASGI (config.asgi), each request's synchronous view runs in a thread of its own, so
# a connection kept per thread (DB_CONN_MAX_AGE) would be a new connection per request:
# DB_POOL=<size> gives each process a psycopg pool of that many connections instead (Procfile).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and os.environ.get("DB_POOL"):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1, "max_size": int(os.environ["DB_POOL"]), "timeout": 10}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = os.environ.get("LANGUAGE_CODE", "en")  # the site's default language
# The languages the site speaks (catalogues in locale/<code>/LC_MESSAGES, compiled .mo files
# committed: a plain install serves every one; TRANSLATORS.md in the repository's notes).
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("pt-br", "Português (Brasil)"),
    ("it", "Italiano"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "django_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
# the federation's own time zone: a new competition's, until its organiser chooses another
FEDERATION_TIME_ZONE = os.environ.get("FEDERATION_TIME_ZONE", "").strip() or "UTC"
try:
    import zoneinfo

    zoneinfo.ZoneInfo(FEDERATION_TIME_ZONE)
except (ValueError, zoneinfo.ZoneInfoNotFoundError):
    raise ImproperlyConfigured(
        f"FEDERATION_TIME_ZONE must be an IANA time zone name such as Europe/Lisbon, not {FEDERATION_TIME_ZONE!r}"
    ) from None
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Sign-in: lockouts (django-axes) -----------------------------------------------------------
# A refused attempt is refused before any password is hashed (the lockout backend comes first).
AUTHENTICATION_BACKENDS = [
    "config.lockout.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "config.lockout.LoginAttempts"
# the pair (account, address) is locked after this many failures in a row...
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
# ...and an address on its own after this many, whatever the accounts...
LOGIN_FAILURE_LIMIT_PER_ADDRESS = env_int("LOGIN_FAILURE_LIMIT_PER_ADDRESS", 30, minimum=1)
# ...and an account after this many in LOGIN_ACCOUNT_WINDOW, from any addresses: then it is locked
# for the window's length for every address it has never signed in from, and its owner is told
# (leagues.services.signins); the addresses of past sign-ins are axes' access log's
LOGIN_FAILURE_LIMIT_PER_ACCOUNT = env_int("LOGIN_FAILURE_LIMIT_PER_ACCOUNT", 50, minimum=1)
LOGIN_ACCOUNT_WINDOW = timedelta(hours=1)
AXES_DISABLE_ACCESS_LOG = False  # the account's lock spares the addresses it has signed in from
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_RESET_ON_SUCCESS = True  # the pair's failures only (config.lockout.LoginAttempts)
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # a refused attempt writes nothing
AXES_LOCKOUT_CALLABLE = "config.lockout.lockout_response"
AXES_VERBOSE = False
# The client's address: REMOTE_ADDR, unless the site runs behind TRUSTED_PROXY_COUNT proxies
# that set X-Forwarded-For (a header a client could otherwise forge to dodge every limit).
# The lockouts and DRF's throttles read it the same way (config.lockout.client_address).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
AXES_CLIENT_IP_CALLABLE = "config.lockout.client_address"

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# --- Redis: Celery broker and cache -------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
# seconds to connect to Redis or wait for its answer, when sending a task (a request never
# waits longer for a broker that is down: the sweeper sends the work later)
BROKER_TIMEOUT = float(os.environ.get("BROKER_TIMEOUT", "2"))

CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"  # in-process; tasks run eagerly
# No result backend: what a task did is in the database (an official result, standings
# computed from a version of the results), and nothing reads a task's return value. A result
# backend would also be Redis in the path of every request that sends a task (its reconnection
# alone held a request for 19 s with Redis down).
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The worker takes over stdout (celery.redirected): the console e-mail backend's lines (no
# EMAIL_HOST) and any print are news, not warnings
CELERY_WORKER_REDIRECT_STDOUTS_LEVEL = "INFO"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
# The net under a broker that was down or a worker that died: pending work, from the database.
SWEEP_SECONDS = float(os.environ.get("SWEEP_SECONDS", "15"))
CELERY_BEAT_SCHEDULE: dict = {
    # Online matches: apply the turn, shot-wait, period and check-in deadlines that have passed.
    "matches-tick-deadlines": {"task": "matches.tasks.tick_matches", "schedule": 3.0,
                               "options": {"expires": 3.0}},
    # Computer-against-computer matches that someone watches: their next move when due.
    "matches-computer-moves": {"task": "matches.tasks.play_computer_moves", "schedule": 1.0,
                               "options": {"expires": 1.0}},
    "matches-sweep": {"task": "matches.tasks.sweep", "schedule": SWEEP_SECONDS,
                      "options": {"expires": SWEEP_SECONDS}},
    "leagues-sweep": {"task": "leagues.tasks.sweep", "schedule": SWEEP_SECONDS,
                      "options": {"expires": SWEEP_SECONDS}},
    "notifications-sweep": {"task": "notifications.tasks.sweep", "schedule": SWEEP_SECONDS,
                            "options": {"expires": SWEEP_SECONDS}},
}
# Redis redelivers a message whose worker died (acks_late) after this many seconds: longer than
# the longest task (a recomputation, an adjudication: seconds) with its retries (back-off up to
# 30 s). A dead worker's work does not wait for it: the sweeper finds it in the database.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
    # sending a task never waits long for a broker that is down (the sweeper catches up)
    "max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5,
    "socket_timeout": BROKER_TIMEOUT, "socket_connect_timeout": BROKER_TIMEOUT,
    "health_check_interval": 5,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = BROKER_TIMEOUT
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a worker waits for the broker to come back...
CELERY_WORKER_CONSUMER = "config.celery:Consumer"  # ...trying again every second (config.celery)

if REDIS_URL:
    # The cache fails open: with Redis unreachable a read is a miss and a write is dropped
    # (django-redis IGNORE_EXCEPTIONS), after at most CACHE_TIMEOUT seconds.
    CACHE_TIMEOUT = float(os.environ.get("CACHE_TIMEOUT", "0.5"))
    CACHES = {"default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {
            "IGNORE_EXCEPTIONS": True,
            "SOCKET_CONNECT_TIMEOUT": CACHE_TIMEOUT,
            "SOCKET_TIMEOUT": CACHE_TIMEOUT,
        },
    }}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Online matches ---------------------------------------------------------------------------
# Watchers of a live match over WebSockets (matches.watching): a process's room of a match looks
# at the match by itself every LIVE_CHECK_SECONDS when Redis tells it of changes, every
# LIVE_POLL_SECONDS without Redis (or while its subscription is down).
# LIVE_URL: where boards open the watchers' WebSocket ("wss://live.example.org": the Procfile's
# `live` server on a host of its own); empty: the page's own host (a proxy sends /ws/ there, or
# the page is served by ASGI itself, as runserver does).
LIVE_URL = os.environ.get("LIVE_URL", "").rstrip("/")
LIVE_CHECK_SECONDS = float(os.environ.get("LIVE_CHECK_SECONDS", "5"))
LIVE_POLL_SECONDS = float(os.environ.get("LIVE_POLL_SECONDS", "0.5"))
# open WebSockets one client address may hold on one live process (config.socket_limit): the
# next handshake is refused (429), before any database work; the address as TRUSTED_PROXY_COUNT says
LIVE_MAX_SOCKETS_PER_ADDRESS = env_int("LIVE_MAX_SOCKETS_PER_ADDRESS", 100, minimum=1)
# "module:Class" of a referee to use instead of simulation.rules.make_referee (tests, benchmarks).
MATCHES_REFEREE_OVERRIDE = os.environ.get("MATCHES_REFEREE_OVERRIDE", "")
# The task that makes an adjudicated online match's log official for whoever set it up
# (``matches`` does not import ``leagues``: it sends this task by name).
MATCHES_ON_ADJUDICATED = "leagues.tasks.result_from_match"

# --- E-mail: notifications -------------------------------------------------------------
# The console by default; with EMAIL_HOST set, SMTP (EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD,
# EMAIL_USE_TLS / EMAIL_USE_SSL); EMAIL_BACKEND names any other backend (e.g. an anymail one).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "10"))
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", "")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Botonera <noreply@botonera.example>")
# The site's address, for the links in e-mails.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")

# --- The federation's year: ratings ---------------------------------------------------
# Glicko-2 rating periods, in calendar months, and the system constant tau.
RATING_PERIOD_MONTHS = int(os.environ.get("RATING_PERIOD_MONTHS", "1"))
RATING_TAU = float(os.environ.get("RATING_TAU", "0.5"))
# a rating whose deviation is above this is provisional, shown with "?" (Lichess: 110)
RATING_PROVISIONAL_RD = float(os.environ.get("RATING_PROVISIONAL_RD", "110"))

# --- Results imports (leagues.services.import_files) -------------------------------------
# The largest file an import takes, in bytes (20 MiB) and in rows of results after the header;
# a larger one is refused before it is read whole (the command and the site's upload alike).
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 20 * 1024 * 1024, minimum=1)
IMPORT_MAX_ROWS = env_int("IMPORT_MAX_ROWS", 250_000, minimum=1)

# --- REST framework -------------------------------------------------------------------------
REST_FRAMEWORK = {
    # The token first, for every view: DRF answers a refused authentication with the first class's
    # challenge, so a wrong, expired or revoked token is a 401 with ``WWW-Authenticate: Token``
    # everywhere (the session's class has no challenge: it would make it a 403). With no token,
    # the browser's session (with CSRF) is used.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "leagues.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # JSON and forms; nesting too deep, numbers too large, a NUL in a text: a 400 (config.parsers)
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.SafeJSONParser",
        "config.parsers.SafeFormParser",
        "config.parsers.SafeMultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "config.api_schema.AutoSchema",
    # No throttle by default (the spectators' reads are not limited); the token endpoint and the
    # action API name their scope (config.throttling.ScopedRateThrottle). Rates as DRF reads them.
    "DEFAULT_THROTTLE_CLASSES": [],
    "DEFAULT_THROTTLE_RATES": {
        "auth-token": os.environ.get("THROTTLE_TOKEN_RATE", "20/min"),  # per address
        "match-actions": os.environ.get("THROTTLE_ACTIONS_RATE", "300/min"),  # per user
    },
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
# --- API tokens (django-rest-knox; leagues.services.tokens) ----------------------------------
KNOX_TOKEN_MODEL = "leagues.ApiToken"
# knox's own migrations would create the table of its model even though it is swapped out
MIGRATION_MODULES = {"knox": None}
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 30, minimum=1)
API_TOKENS_PER_USER = env_int("API_TOKENS_PER_USER", 20, minimum=1)  # the oldest goes beyond it
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=API_TOKEN_TTL_DAYS),
    "AUTH_HEADER_PREFIX": "Token",  # Authorization: Token <token>
    "AUTO_REFRESH": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Botonera API",
    "DESCRIPTION": "Clubs, players, competitions, fixtures, results and standings of a button soccer federation.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # every operation's error answers too (400/401/403/404/415/429, their bodies): config.api_schema
    # <id:...> (config.converters): an integer id, 1 to 2**63 - 1
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}},
    "ENUM_NAME_OVERRIDES": {
        "DecisionOutcomeEnum": "leagues.api.serializers.DECISION_OUTCOMES",
        "OutcomeEnum": "leagues.models.Outcome",
        "NotificationKindEnum": "leagues.notifications.models.Kind",
        "MatchStatusEnum": "matches.models.Match.Status",
        "PlaySideEnum": "matches.api.serializers.SIDES",
    },
}

# --- Headers: Content-Security-Policy (django-csp), Referrer-Policy, Permissions-Policy ------
# No inline script anywhere, no inline style element; everything from the site itself. A page
# may loosen it with django-csp's decorators (the API docs, the board: config.headers).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'", *([LIVE_URL] if LIVE_URL else [])],  # the watchers' WebSocket
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        # no site frames a page, unless the view is marked embeddable (config.headers.embeddable)
        "frame-ancestors": ["'none'"],
    },
}
# who may frame a page marked embeddable (space-separated CSP sources; default any site)
EMBED_FRAME_ANCESTORS = os.environ.get("EMBED_FRAME_ANCESTORS", "*").split()
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in ("accelerometer", "autoplay", "camera", "display-capture", "geolocation", "gyroscope",
                    "magnetometer", "microphone", "midi", "payment", "usb", "xr-spatial-tracking")
}

# --- Production hardening (manage.py check --deploy) ---------------------------------------
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        "leagues": {"level": os.environ.get("LOG_LEVEL", "INFO")},
        "matches": {"level": os.environ.get("LOG_LEVEL", "INFO")},
        "config": {"level": os.environ.get("LOG_LEVEL", "INFO")},
        # Django's own (requests, the dev server's lines): once, here, not again through the root
        "django": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO"), "propagate": False},
    },
}
