"""The test suite runs on the real settings; it only supplies what a deployment would."""

import os
import tempfile

os.environ.setdefault("DJANGO_SECRET_KEY", "insecure-key-for-the-test-suite-only")
# A cache folder of the suite's own, so that runs never share a revision or throttle counts;
# under pytest-xdist, one inside it for each worker, which inherits the controller's folder.
# Processes the tests start inherit their worker's.
os.environ.setdefault("DJANGO_CACHE_DIR", tempfile.mkdtemp(prefix="catalog-test-cache-"))
worker = os.environ.get("PYTEST_XDIST_WORKER")
if worker and os.path.basename(os.environ["DJANGO_CACHE_DIR"]) != worker:
    os.environ["DJANGO_CACHE_DIR"] = os.path.join(os.environ["DJANGO_CACHE_DIR"], worker)
# Tests speak plain HTTP to their live servers, and must not be throttled.
os.environ.setdefault("DJANGO_HTTPS", "0")
os.environ.setdefault("API_ANON_RATE", "")
# Webhook receivers in tests are on loopback (tests/conftest.py's stand-in): allowed here only.
os.environ.setdefault("WEBHOOK_ALLOW_PRIVATE", "1")

from config.settings import *  # noqa: E402,F403

# No collectstatic before tests: serve the apps' files, unhashed, as development does.
STORAGES["staticfiles"] = {  # noqa: F405
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Django's advice for test suites: a fast password hasher, since no test measures hashing.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Every request reads the catalog's revision, so that counts of a request's queries do not hang
# on how long the one before it took; tests/test_caching.py tests the reuse itself.
REVISION_REUSE_SECONDS = 0
