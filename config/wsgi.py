"""WSGI entry point (gunicorn config.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# A warmed-up worker freezes what it keeps out of the garbage collector's sight.
from releases import memory  # noqa: E402 (after Django is set up)

memory.settle_after_warming_up()
