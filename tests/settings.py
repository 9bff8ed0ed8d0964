"""The test suite runs on the real settings; it only supplies the secret they require."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "insecure-key-for-the-test-suite-only")

from config.settings import *  # noqa: E402,F403
