"""The product's settings plus the benchmark's baseline view; never used in production."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]  # noqa: F405  (the query-counting client)
