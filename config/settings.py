"""Botonera settings: one module, everything read from the environment.

Environment variables (all optional; the defaults give the embedded set-up):

- ``DATABASE_URL``: any URL dj-database-url reads; default a SQLite file ``db.sqlite3`` at the
  repository root.
- ``REDIS_URL``: Redis for the Celery broker, result backend and the cache. Unset: Celery tasks
  run in-process, eagerly, and the cache is local memory.
- ``SECRET_KEY``: required when ``DEBUG`` is off.
- ``DEBUG``: ``1``/``true`` for development (the default), ``0``/``false`` in production, which
  turns on the settings ``manage.py check --deploy`` asks for.
- ``ALLOWED_HOSTS``: comma-separated; default ``localhost,127.0.0.1,[::1]``.
- ``CSRF_TRUSTED_ORIGINS``: comma-separated origins, for a site behind HTTPS.
"""
from __future__ import annotations

import os
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


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "django-insecure-development-only-botonera-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "leagues",
    "matches",
    "notifications",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
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

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# --- Redis: Celery broker and cache -------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")

CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"  # in-process; tasks run eagerly
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE: dict = {
    # Online matches: apply the turn, shot-wait, period and check-in deadlines that have passed.
    "matches-tick-deadlines": {"task": "matches.tasks.tick_matches", "schedule": 3.0},
    # The net under a broker that was down or a worker that died: pending work, from the database.
    "matches-sweep": {"task": "matches.tasks.sweep", "schedule": 15.0},
    "leagues-sweep": {"task": "leagues.tasks.sweep", "schedule": 15.0},
    "notifications-sweep": {"task": "notifications.tasks.sweep", "schedule": 15.0},
}
# Redis redelivers a message whose worker died (acks_late) after this many seconds: longer than
# the longest task (a recomputation, an adjudication: seconds) with its retries.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
    # sending a task never waits long for a broker that is down (the sweeper catches up)
    "max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5,
    "socket_timeout": 2, "socket_connect_timeout": 2,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a worker waits for the broker to come back
CELERY_REDIS_SOCKET_TIMEOUT = 2
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
CELERY_REDIS_BACKEND_HEALTH_CHECK_INTERVAL = 5
CELERY_RESULT_EXPIRES = 3600

if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Online matches ---------------------------------------------------------------------------
# "module:Class" of a referee to use instead of simulation.rules.make_referee (tests, benchmarks).
MATCHES_REFEREE_OVERRIDE = os.environ.get("MATCHES_REFEREE_OVERRIDE", "")
# The task that makes an adjudicated online match's log official for whoever set it up
# (``matches`` does not import ``leagues``: it sends this task by name).
MATCHES_ON_ADJUDICATED = "leagues.tasks.result_from_match"

# --- E-mail: notifications (issue 19) -------------------------------------------------------------
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

# --- The federation's year: ratings (issue 19) ---------------------------------------------------
# Glicko-2 rating periods, in calendar months, and the system constant tau.
RATING_PERIOD_MONTHS = int(os.environ.get("RATING_PERIOD_MONTHS", "1"))
RATING_TAU = float(os.environ.get("RATING_TAU", "0.5"))

# --- REST framework -------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # JSON, with nesting too deep or numbers too large a 400 (config.parsers); forms as DRF's
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Botonera API",
    "DESCRIPTION": "Clubs, players, competitions, fixtures, results and standings of a button soccer federation.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "DecisionOutcomeEnum": "leagues.api.serializers.DECISION_OUTCOMES",
        "OutcomeEnum": "leagues.models.Outcome",
        "NotificationKindEnum": "notifications.models.Kind",
    },
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
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        "leagues": {"level": os.environ.get("LOG_LEVEL", "INFO")},
        "matches": {"level": os.environ.get("LOG_LEVEL", "INFO")},
    },
}
