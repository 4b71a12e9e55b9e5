#!/usr/bin/env bash
# Misago 0.39.6 (PyPI) run from its own shipped devproject settings (host/settings.py), on
# PostgreSQL, for the forum source's JSON-API tests. Idempotent and fast when set up: the
# venv and the seeded template database (misago_template) are rebuilt only when this
# folder's scripts change (stamp = hash of the scripts). Servers are started by
# tests/sources/test_forum_misago.py (or `python server.py PORT`), each on its own copy
# of the template database (CREATE DATABASE ... TEMPLATE), dropped when it stops.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
PGHOST=${MISAGO_DB_HOST:-127.0.0.1}
PGUSER=${MISAGO_DB_USER:-postgres}
export PGHOST PGUSER
stamp=$(cat setup.sh seed.py host/*.py | sha256sum | cut -c1-16)
if [ -f site/.stamp ] && [ "$(cat site/.stamp)" = "$stamp" ] && [ -x venv/bin/python ] \
   && venv/bin/python -c "import misago, django" 2>/dev/null \
   && psql -d misago_template -Atc "select 1" >/dev/null 2>&1; then
  echo "misago harness: up to date"; exit 0
fi
[ -x venv/bin/python ] || "$PY" -m venv venv
venv/bin/python -m pip install -q --disable-pip-version-check --no-warn-script-location misago==0.39.6
rm -rf site && mkdir -p site/media site/static
psql -d postgres -qc "DROP DATABASE IF EXISTS misago_template" -c "CREATE DATABASE misago_template"
export PYTHONPATH="$PWD" DJANGO_SETTINGS_MODULE=host.settings MISAGO_DB=misago_template
venv/bin/python -m django migrate -v0 --skip-checks
venv/bin/python seed.py base
echo "$stamp" > site/.stamp
echo "misago harness: ready"
