"""WSGI entry point (gunicorn config.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

from django.conf import settings  # noqa: E402 (after Django is set up)

from releases.web.app_threads import AppThreads  # noqa: E402

if settings.WEB_APP_THREADS:
    # A fixed number of threads run requests and hold database connections: a worker's memory
    # does not grow with the server's threads (releases/web/app_threads.py).
    application = AppThreads(
        application, settings.WEB_APP_THREADS, settings.WEB_STALLED_CLIENT_SECONDS
    )

# A warmed-up worker freezes what it keeps out of the garbage collector's sight.
from releases import memory  # noqa: E402 (after Django is set up)

memory.settle_after_warming_up()
