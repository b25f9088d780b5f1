# Botonera: `make run` serves the demo site, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
# make bench (tests/bench/): the online-play benches run on a scratch PostgreSQL database, created when missing
LOAD_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/botonera_load
LOAD_ARGS         ?= --matches 200 --actions 25
# the scale bench: its own scratch database; the server's cache in REDIS_URL when set
SCALE_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/botonera_scalebench
SCALE_ARGS         ?=
# the bounded import (peak memory, refusals): its own scratch database, created when missing
IMPORT_BENCH_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/botonera_importbench
IMPORT_BENCH_ARGS         ?=
# the recomputation of one group against a full one: its own scratch database (the import kept)
RECOMPUTE_BENCH_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/botonera_recomputebench
RECOMPUTE_BENCH_ARGS         ?=
# the A/B check against the previous commit: two scratch databases <name>_a and _b
AB_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/botonera_abbench
AB_ARGS         ?=
# DEBUG is off unless set (config/settings.py): the local targets below are development, so on
DEBUG ?= 1

.PHONY: install run test lint bench faults worker beat clean messages manage

# the simulation's C part is built in place by the install: when it is missing (a `git clean`,
# a removed file), the install runs again
ifeq ($(wildcard simulation/_engine*.so),)
.PHONY: $(STAMP)
endif

$(STAMP): pyproject.toml setup.py simulation/_engine.c
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: export DEBUG := $(DEBUG)
# the e-mails' links point at the site being served (unless SITE_URL says otherwise)
run: export SITE_URL ?= http://$(HOST):$(PORT)
# runserver is daphne's (HTTP and the watchers' WebSockets); beside it, the matches' clock
# (deadlines, the computer's moves in watched bot matches), stopped with the server
run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo --if-empty
	$(PY) manage.py run_clock & clock=$$!; trap 'kill $$clock 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver $(HOST):$(PORT)

# any manage.py command under the development set-up: make manage ARGS="standings liga-botonera --json"
manage: export DEBUG := $(DEBUG)
manage: $(STAMP)
	$(PY) manage.py $(ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

test: $(STAMP) lint
	$(PY) -m pytest $(PYTEST_ARGS)

bench: export DEBUG := $(DEBUG)
bench: $(STAMP)
	$(PY) -m simulation.bench $(BENCH_ARGS)
	$(PY) -m tests.bench.abbench --database-url $(AB_DATABASE_URL) $(AB_ARGS)
	$(PY) -m tests.bench.loadtest --prepare-only --database-url $(LOAD_DATABASE_URL)
	DATABASE_URL=$(LOAD_DATABASE_URL) REDIS_URL= $(PY) -m tests.bench.online --latency 200 --whole-match
	$(PY) -m tests.bench.loadtest --database-url $(LOAD_DATABASE_URL) $(LOAD_ARGS)
	$(PY) -m tests.bench.scalebench --database-url $(SCALE_DATABASE_URL) $(SCALE_ARGS)
	$(PY) -m tests.bench.importbench --database-url $(IMPORT_BENCH_DATABASE_URL) $(IMPORT_BENCH_ARGS)
	$(PY) -m tests.bench.recomputebench --database-url $(RECOMPUTE_BENCH_DATABASE_URL) $(RECOMPUTE_BENCH_ARGS)

# faults and concurrency against its own redis-server, gunicorn, worker and beat 
faults: $(STAMP)
	$(PY) -m tests.bench.faults $(FAULTS_ARGS)

worker: export DEBUG := $(DEBUG)
worker: $(STAMP)
	$(VENV)/bin/celery -A config worker --loglevel=info

beat: export DEBUG := $(DEBUG)
beat: $(STAMP)
	$(VENV)/bin/celery -A config beat --loglevel=info

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .hypothesis build simulation/_engine*.so

# The translation catalogues (locale/<language>/LC_MESSAGES): `make messages` brings every marked
# string into them (makemessages) and compiles them (the .mo files are committed, so a plain
# install serves every language). Needs GNU gettext (Debian: apt-get install gettext).
I18N_IGNORE := -i locale -i '.venv/*' -i 'staticfiles/*' -i 'tests/*' -i 'build/*' -i '*.egg-info/*'
messages: export DEBUG := $(DEBUG)
messages: $(STAMP)
	$(PY) manage.py makemessages -l es -l pt_BR -l it --add-location=file --no-obsolete $(I18N_IGNORE)
	$(PY) manage.py compilemessages -i .venv -i staticfiles
