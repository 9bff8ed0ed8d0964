"""
Settings for the PyTorch Release Catalog.

One module, driven by environment variables (see the README's "Configuration" table):

- ``DJANGO_DEBUG``: ``1`` for local development (``make run`` sets it); off otherwise.
- ``DJANGO_SECRET_KEY``: required whenever debug is off.
- ``DJANGO_ALLOWED_HOSTS``: comma-separated host names.
- ``DJANGO_HTTPS``: served over HTTPS (behind a TLS proxy that sets X-Forwarded-Proto): HSTS,
  secure cookies, redirects to https. On unless debug is on.
- ``DATABASE_URL``: any URL dj-database-url understands; SQLite in the project folder when unset.
- ``REDIS_URL``: a Redis server for the caches (rendered pages, the catalog revision,
  throttling), shared by every process and host. Unset: pages in each process's memory, the
  revision, throttle counts and list counts in a disk cache (SQLite files, diskcache) that the
  processes of one machine share.
- ``DJANGO_CACHE_DIR``: that disk cache's folder; the app creates it privately (0700) and
  refuses one another user owns or can write.
"""

import datetime as dt
import os
import stat
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG")

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it to a long random value, "
            "or set DJANGO_DEBUG=1 for local development."
        )
    # Only ever used with DEBUG on, on a developer's machine.
    SECRET_KEY = "django-insecure-local-development-only"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

# HTTPS, as a deployment behind a TLS-terminating proxy serves it.
HTTPS = env_bool("DJANGO_HTTPS", default=not DEBUG)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "releases",  # first: its templates (admin/base_site.html) override the admin's
    "releases.apps.CatalogAdminConfig",  # django.contrib.admin, with the editors' desk
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "axes",
    # Background work (webhook deliveries, digests): Django's Tasks through its backport, with
    # the database backend, so several workers on several hosts share one queue.
    "django_tasks",
    "django_tasks_db",
]

# Order is behaviour. The catalog's cache answers public requests early (page-cache hits,
# 304s, 429s), before the middleware a public answer has no use for (sessions, CSRF, users,
# messages, the editor's history, sign-in lockouts): a hit costs little more than a request
# with nothing behind it (bench/README.md). Every response it gives still passes out through
# the middleware that sets the security headers, exactly as a freshly rendered one does.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A request Django cannot read is a 400 here, before anything reads it (web.bad_requests).
    "releases.web.bad_requests.UnreadableRequestMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "releases.web.middleware.CatalogCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # The editor behind an admin request, for the history of what they change.
    "simple_history.middleware.HistoryRequestMiddleware",
    # Admin logins: a lockout after repeated failures (AXES_* below).
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
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

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Readers never wait for a writer (write-ahead log); a writer waits its turn for up to
    # 20 s instead of failing, and takes the lock when its transaction begins, so two writers
    # never deadlock upgrading a read lock.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        **DATABASES["default"].get("OPTIONS", {}),
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Editors sign in to the admin; the one-time link of `create_editor --no-input` lasts a day.
LOGIN_URL = "admin:login"
# Where a sign-in lands when its `next` is missing or refused (another site's address): the
# editors' desk, not Django's /accounts/profile/.
LOGIN_REDIRECT_URL = "admin:index"
PASSWORD_RESET_TIMEOUT = 24 * 3600

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = os.environ.get("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed files that browsers may cache forever; `collectstatic` builds them.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
if DEBUG:
    # Development: no collectstatic; whitenoise finds files in the apps as they change.
    STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    WHITENOISE_USE_FINDERS = True
    WHITENOISE_AUTOREFRESH = True

# "default" holds rendered API pages; "shared" holds what every process must agree on: the
# catalog revision, the throttle counts and the lists' counts.
REDIS_URL = os.environ.get("REDIS_URL", "")
# A cache is an accelerator (releases/web/caches.py): a Redis call that takes longer than this
# fails, and a store that failed is left alone for CACHE_RETRY_SECONDS, the answers coming
# from the database meanwhile.
CACHE_TIMEOUT_SECONDS = float(os.environ.get("CACHE_TIMEOUT_SECONDS", "0.25"))
CACHE_RETRY_SECONDS = float(os.environ.get("CACHE_RETRY_SECONDS", "5"))
if REDIS_URL:
    REDIS_CACHE = {"BACKEND": "releases.web.caches.FailSafeRedisCache", "LOCATION": REDIS_URL}
    CACHES = {
        "default": {**REDIS_CACHE, "KEY_PREFIX": "catalog-pages"},
        "shared": {**REDIS_CACHE, "KEY_PREFIX": "catalog-shared"},
    }
else:

    def private_folder(path):
        """
        ``path``, created for this user alone (0700) if missing. The disk cache unpickles
        what it finds there, so a folder someone else owns or can write is refused.
        """
        path = Path(path)
        try:
            path.mkdir(mode=0o700, parents=True)
        except FileExistsError:
            pass
        info = path.lstat()
        if not stat.S_ISDIR(info.st_mode):
            raise ImproperlyConfigured(f"The cache folder {path} is not a folder (a link?).")
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            raise ImproperlyConfigured(
                f"The cache folder {path} belongs to another user or others may write to it; "
                "the app refuses to read a cache anyone else could plant. Remove it, or set "
                "DJANGO_CACHE_DIR to a folder of your own with mode 0700."
            )
        return str(path)

    CACHE_DIR = private_folder(
        os.environ.get(
            "DJANGO_CACHE_DIR",
            Path(tempfile.gettempdir()) / f"pytorch-release-catalog-cache-{os.getuid()}",
        )
    )
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "catalog-pages",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        },
        # Machine-local and process-safe: SQLite files in the folder, whose increments are
        # atomic transactions (the throttle's counters), each a few microseconds.
        "shared": {
            "BACKEND": "releases.web.caches.DiskCache",
            "LOCATION": CACHE_DIR,
            "DATABASE_TIMEOUT": 0,
            "OPTIONS": {"size_limit": 2**28},
        },
    }

# How long a rendered page may stay in the page cache (0: no page cache), and how long
# clients may reuse a response before revalidating it with its ETag.
API_PAGE_CACHE_SECONDS = int(os.environ.get("API_PAGE_CACHE_SECONDS", "600"))
API_MAX_AGE_SECONDS = int(os.environ.get("API_MAX_AGE_SECONDS", "15"))
# What a shared cache (a CDN, a proxy) may do with a public answer, which is the same for every
# client, signed in or not: keep it as long as a browser (s-maxage), then serve it while it
# revalidates, for at most this long (stale-while-revalidate). The admin is never public.
API_SHARED_MAX_AGE_SECONDS = int(
    os.environ.get("API_SHARED_MAX_AGE_SECONDS", str(API_MAX_AGE_SECONDS))
)
API_STALE_WHILE_REVALIDATE_SECONDS = int(os.environ.get("API_STALE_WHILE_REVALIDATE_SECONDS", "30"))
# How long a process reuses its read of the catalog's revision for public requests (0: read
# it on every request). A save shows at once in the process that made it; in every other,
# within this time (releases/revision.py).
REVISION_REUSE_SECONDS = float(os.environ.get("REVISION_REUSE_SECONDS", "0.05"))

# The threads that run the catalog in each WSGI worker, whatever the server's own threads
# (gunicorn's WEB_THREADS hold connections; releases/web/app_threads.py); 0: the server's
# thread runs each request itself. A response whose client reads nothing for
# WEB_STALLED_CLIENT_SECONDS gives its thread back.
WEB_APP_THREADS = int(os.environ.get("WEB_APP_THREADS", "4"))
WEB_STALLED_CLIENT_SECONDS = int(os.environ.get("WEB_STALLED_CLIENT_SECONDS", "60"))

# Requests a client address may make to the API and feeds ("1200/m"; empty: no limit),
# counted in fixed windows in the shared cache, so every process and host counts together.
API_ANON_RATE = os.environ.get("API_ANON_RATE", "1200/m")
# Behind a proxy, the client's address is the one the proxy reports.
CLIENT_IP_META_KEY = os.environ.get("DJANGO_CLIENT_IP_HEADER", "REMOTE_ADDR")

# The catalog's public address: check_links names it in its User-Agent, so that the owner of
# a site it checks knows whose requests they are (check_links refuses to run without it).
CATALOG_URL = os.environ.get("CATALOG_URL", "")

# Notifications (releases/notifications/, docs/notifications.md). The worker
# (`manage.py deliver_notifications`) runs Django's Tasks from the database.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# Growing delays, in seconds, between a webhook's failed attempt and the next; the last one
# repeats. After WEBHOOK_MAX_FAILURES failures in a row the endpoint is paused.
WEBHOOK_RETRY_DELAYS = [
    int(delay) for delay in env_list("WEBHOOK_RETRY_DELAYS", "10,60,300,1800,7200")
]
WEBHOOK_MAX_FAILURES = int(os.environ.get("WEBHOOK_MAX_FAILURES", "5"))
WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("WEBHOOK_TIMEOUT_SECONDS", "10"))
# Loopback and private addresses (and plain http to them) are refused unless this is on: a
# catalog must not be made to POST into the network it runs in. Development and tests only.
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", default=False)
# Deliveries one task sends to one endpoint before it hands over to the next task.
WEBHOOK_BATCH = int(os.environ.get("WEBHOOK_BATCH", "100"))
# Mail: the console in development (make run), SMTP from EMAIL_* in production.
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
EMAIL_TIMEOUT = 30
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", str(BASE_DIR / "sent-mail"))
DEFAULT_FROM_EMAIL = os.environ.get(
    "DEFAULT_FROM_EMAIL", "PyTorch Release Catalog <catalog@localhost>"
)
# One confirmation mail an address in this many seconds, however often it signs up; sign-ups
# from one client are limited to SUBSCRIBE_RATE.
SUBSCRIBE_RESEND_SECONDS = int(os.environ.get("SUBSCRIBE_RESEND_SECONDS", "3600"))
SUBSCRIBE_RATE = os.environ.get("SUBSCRIBE_RATE", "10/h")
SUBSCRIBE_CONFIRM_DAYS = 7  # how long a confirmation link works

# The blog's feed (RSS or Atom) that watch_blog reads for release announcements.
BLOG_FEED_URL = os.environ.get("BLOG_FEED_URL") or "https://pytorch.org/feed/"

# The package indexes sync_index reads (releases/importing/indexes.py): the main index's Simple
# API root; PyTorch's per-variant wheel indexes (variant=URL, comma-separated, to override);
# the packages (empty: torch and every companion library the catalog pairs).
PACKAGE_INDEX_URL = os.environ.get("PACKAGE_INDEX_URL") or "https://pypi.org/simple/"
WHEEL_VARIANT_INDEXES = dict(
    item.split("=", 1)
    for item in env_list(
        "WHEEL_VARIANT_INDEXES",
        ",".join(
            f"{variant}=https://download.pytorch.org/whl/{variant}/"
            for variant in ("cpu", "cu118", "cu126", "cu128", "cu129", "cu130", "rocm6.4", "xpu")
        ),
    )
    if "=" in item
)
INDEX_PACKAGES = env_list("INDEX_PACKAGES")

# Admin logins (django-axes, releases/admin/signin.py): 5 failures for one username from one
# address within 15 minutes pause that username from that address for 15 minutes; no other
# user, and no other address, is refused. A username that has failed 10 times within those
# 15 minutes, from any addresses, may be tried by an address that has failed for it once every
# 30 seconds. `manage.py axes_reset_username NAME` (or axes_reset_ip, or deleting the access
# attempt in the admin) lifts a lockout.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = dt.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# A refused attempt is not a failure: hammering neither prolongs a lock nor the pace.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_HANDLER = "releases.admin.signin.SignInHandler"
AXES_LOCKOUT_CALLABLE = "releases.admin.signin.locked_out"
AXES_LOCKOUT_TEMPLATE = "admin/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "releases.web.middleware.client_address"
AXES_VERBOSE = False
SIGNIN_USERNAME_FAILURES = 10
SIGNIN_USERNAME_PACE = dt.timedelta(seconds=30)

# History: reasons name a command and a file, which need more than 100 characters.
SIMPLE_HISTORY_HISTORY_CHANGE_REASON_USE_TEXT_FIELD = True

FIXTURE_DIRS = [BASE_DIR / "fixtures"]

REST_FRAMEWORK = {
    # The public API is read-only and anonymous: no session, so no CSRF surprises.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    # Nor does it read request bodies.
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],  # anyone may read: nothing to check a request
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_FILTER_BACKENDS": ["releases.api.filters.StrictFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "releases.api.pagination.StrictPageNumberPagination",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "releases.api.params.StrictContentNegotiation",
    "PAGE_SIZE": 50,
    # JSON only in production; the browsable API is a development aid.
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        *(["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    ],
    # Clients are throttled by releases.web.middleware (cached pages included): see API_ANON_RATE.
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "PyTorch Release Catalog API",
    "DESCRIPTION": (
        "Read-only access to PyTorch releases, the features they announced, "
        "and the links that document them. Unknown or malformed query parameters "
        "are answered with 400 and a JSON body naming the parameter."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "Stability": "releases.classification.Stability",
        "FeatureKind": "releases.classification.FeatureKind",
        "LinkKind": "releases.models.LinkKind",
        "LinkStatus": "releases.models.LinkStatus",
        "ReleaseStatus": "releases.classification.ReleaseStatus",
        "PublishedVerdict": "releases.queries.wheels.PUBLISHED_VERDICTS",
        "CheckVerdict": "releases.queries.check.VERDICTS",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "releases.api.schema.postprocess",
    ],
}

# What a request may carry (Django's defaults, stated): beyond them, a 400 naming what was too
# much, and one line in the log (releases.web.bad_requests).
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000  # parameters of a query string; fields of a form
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # bytes of a request body, uploaded files aside

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "without_traceback": {"()": "releases.web.bad_requests.WithoutTraceback"},
        "database_away_told": {"()": "releases.web.unavailable.AlreadyTold"},
    },
    "formatters": {"named": {"format": "%(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        # A suspicious request is the client's doing: one line, with the logger's name
        # (django.security.DisallowedHost, ...), and no traceback.
        "security": {
            "class": "logging.StreamHandler",
            "filters": ["without_traceback"],
            "formatter": "named",
        },
    },
    "loggers": {
        # Django's own console handler (DEBUG only) would print every record a second time,
        # beside the root's: its records go to the root alone.
        "django": {"handlers": [], "level": "INFO"},
        "django.security": {"handlers": ["security"], "propagate": False},
        # A database that is away: one line a request (releases.web.unavailable), no traceback.
        "django.request": {"filters": ["database_away_told"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}
