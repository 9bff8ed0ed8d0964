"""The test suite runs on the real settings; it only supplies what a deployment would."""

import os
import tempfile

os.environ.setdefault("DJANGO_SECRET_KEY", "insecure-key-for-the-test-suite-only")
# A cache folder of the suite's own, so that runs never share a revision or throttle counts.
os.environ.setdefault("DJANGO_CACHE_DIR", tempfile.mkdtemp(prefix="catalog-test-cache-"))
# Tests speak plain HTTP to their live servers, and must not be throttled.
os.environ.setdefault("DJANGO_HTTPS", "0")
os.environ.setdefault("API_ANON_RATE", "")

from config.settings import *  # noqa: E402,F403

# No collectstatic before tests: serve the apps' files, unhashed, as development does.
STORAGES["staticfiles"] = {  # noqa: F405
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
