# Two commands: `make run` serves the catalog, `make test` runs the suite.
# Both create .venv and install pinned dependencies first; only Python 3.11 and make needed.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
MANAGE := $(BIN)/python manage.py

.PHONY: run dev serve test test-fast fuzz lint bench parser-report install install-dev fixtures clean

# Fall back to python3 where no python3.11 binary is on PATH (it must still be 3.11).
ifeq ($(shell command -v $(PYTHON) 2>/dev/null),)
PYTHON := python3
endif

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements-dev.txt requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# Migrate and load every fixture. Loading is idempotent: fixtures use natural keys.
fixtures: install
	DJANGO_DEBUG=1 $(MANAGE) migrate --no-input
	DJANGO_DEBUG=1 $(MANAGE) load_catalog

# What users see: production settings on SQLite (debug off, the catalog's own error pages,
# static files from whitenoise, gunicorn), a secret key drawn once into .secret-key (untracked,
# 0600), hosts on loopback. `make dev` is the debug server, for working on the code.
SECRET_FILE := .secret-key
RUN_ENV = DJANGO_DEBUG=0 DJANGO_HTTPS=0 DJANGO_SECRET_KEY="$$(cat $(SECRET_FILE))" \
	DJANGO_ALLOWED_HOSTS=$${DJANGO_ALLOWED_HOSTS:-127.0.0.1,localhost} \
	CATALOG_URL=$${CATALOG_URL:-http://127.0.0.1:$(PORT)} \
	EMAIL_BACKEND=$${EMAIL_BACKEND:-django.core.mail.backends.console.EmailBackend}

$(SECRET_FILE): | $(BIN)/python
	umask 077 && $(BIN)/python -c "import secrets; print(secrets.token_urlsafe(50))" > $@

run: install $(SECRET_FILE)
	$(RUN_ENV) $(MANAGE) migrate --no-input
	$(RUN_ENV) $(MANAGE) collectstatic --no-input -v0
	$(RUN_ENV) $(MANAGE) load_catalog
	@echo ""
	@echo "PyTorch Release Catalog on http://127.0.0.1:$(PORT)/"
	@echo "  API       http://127.0.0.1:$(PORT)/api/"
	@echo "  API docs  http://127.0.0.1:$(PORT)/api/docs/"
	@echo "  Admin     http://127.0.0.1:$(PORT)/admin/"
	@echo "  Subscribe http://127.0.0.1:$(PORT)/subscribe/"
	@echo "Accounts:   DJANGO_DEBUG=1 $(MANAGE) create_editor NAME    (an editor)"
	@echo "            DJANGO_DEBUG=1 $(MANAGE) createsuperuser        (an administrator)"
	@echo "Notifications: the worker runs beside the server; mail goes to this console."
	@echo ""
	$(RUN_ENV) $(MANAGE) deliver_notifications & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT; \
	$(RUN_ENV) $(BIN)/gunicorn config.wsgi --config config/gunicorn.py \
		--bind 127.0.0.1:$(PORT) --access-logfile -

# The debug server, for development: Django's debug pages and autoreload, on SQLite.
dev: fixtures
	DJANGO_DEBUG=1 $(MANAGE) runserver 127.0.0.1:$(PORT)

# Production settings on loopback: gunicorn, static files from whitenoise, JSON-only API.
# It speaks plain HTTP, so DJANGO_HTTPS defaults to 0 here; behind a TLS proxy, set it to 1.
SERVE_ENV := DJANGO_DEBUG=0 DJANGO_HTTPS=$${DJANGO_HTTPS:-0} \
	DJANGO_ALLOWED_HOSTS=$${DJANGO_ALLOWED_HOSTS:-127.0.0.1,localhost}

serve: install
	@if [ -z "$$DJANGO_SECRET_KEY" ]; then \
		echo "DJANGO_SECRET_KEY is not set; production settings refuse to start without it."; \
		echo "For example: export DJANGO_SECRET_KEY=\"\$$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')\""; \
		exit 1; fi
	$(SERVE_ENV) $(MANAGE) migrate --no-input
	$(SERVE_ENV) $(MANAGE) collectstatic --no-input -v0
	$(SERVE_ENV) $(MANAGE) load_catalog --if-empty
	@echo "Serving on http://127.0.0.1:$(PORT)/ (API /api/, docs /api/docs/, admin /admin/)"
	$(SERVE_ENV) $(BIN)/gunicorn config.wsgi --config config/gunicorn.py \
		--bind 127.0.0.1:$(PORT) --access-logfile -

# The whole suite, one pytest-xdist worker a CPU (TEST_WORKERS=0: in this process alone).
TEST_WORKERS ?= auto

test: install-dev
	$(BIN)/pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The loop while working: all but the browser, live-server and benchmark tests (the markers
# in pyproject.toml), and the public-mirror property test with fewer examples.
test-fast: install-dev
	PUBLIC_MIRROR_EXAMPLES=$${PUBLIC_MIRROR_EXAMPLES:-10} $(BIN)/pytest -n $(TEST_WORKERS) \
		-m "not browser and not live_server and not bench" $(PYTEST_ARGS)

# schemathesis against the production stack on loopback, held to /api/schema/ (tests/fuzz.py):
# about four minutes; DATABASE_URL picks the database, as for every command.
fuzz: install-dev
	$(BIN)/python -m tests.fuzz $(FUZZ_ARGS)

# The benchmark (bench/README.md): about 20 minutes a database; writes bench/results.json.
# With DATABASE_URL at a PostgreSQL server (.ci/postgres.sh starts one), PostgreSQL too.
bench: install
	@command -v wrk >/dev/null || { \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq wrk >/dev/null || \
			{ apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }; \
		else echo "wrk is not installed: sudo apt-get install wrk"; exit 1; fi; }
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# How well the post parser reads the sample posts in tests/samples (answer keys beside them),
# and, given POSTS=<a checkout of the blog's _posts>, the real posts of tests/answer_keys; given
# NOTES=<a folder of <version>.md release notes>, how well the release-notes parser reads them.
parser-report: install
	$(BIN)/python -m releases.importing.accuracy tests/samples
	@if [ -n "$(POSTS)" ]; then \
		$(BIN)/python -m releases.importing.accuracy tests/answer_keys --posts "$(POSTS)"; \
	else echo "(make parser-report POSTS=path/to/_posts also scores tests/answer_keys)"; fi
	@if [ -n "$(NOTES)" ]; then \
		$(BIN)/python -m releases.importing.notes_accuracy tests/answer_keys --notes "$(NOTES)"; \
	else echo "(make parser-report NOTES=path/to/notes scores the release-notes keys)"; fi

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	DJANGO_DEBUG=1 $(MANAGE) makemigrations --check --dry-run

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache $(SECRET_FILE)
