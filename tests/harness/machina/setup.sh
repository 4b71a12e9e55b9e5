#!/usr/bin/env bash
# django-machina 1.3.1 in a minimal Django host project on SQLite, for the forum source's tests.
# Idempotent and fast when already set up: the venv and the seeded template database are
# rebuilt only when this folder's scripts change (stamp = hash of the scripts).
# Servers are started by tests/sources/conftest.py (or `python server.py PORT`), each on a
# copy of the template database; MACHINA_ETAG=1 adds Django's ConditionalGetMiddleware.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
stamp=$(cat setup.sh seed.py host/*.py host/templates/registration/*.html | sha256sum | cut -c1-16)
if [ -f site/.stamp ] && [ "$(cat site/.stamp)" = "$stamp" ] && [ -x venv/bin/python ] \
   && venv/bin/python -c "import machina, django" 2>/dev/null; then
  echo "machina harness: up to date"; exit 0
fi
[ -x venv/bin/python ] || "$PY" -m venv venv
venv/bin/python -m pip install -q --disable-pip-version-check --no-warn-script-location django-machina==1.3.1 "${DJANGO_SPEC:-Django>=4.2,<6}"
rm -rf site && mkdir -p site
export PYTHONPATH="$PWD" DJANGO_SETTINGS_MODULE=host.settings MACHINA_DB="$PWD/site/template.sqlite3"
venv/bin/python -m django migrate -v0
venv/bin/python -m django collectstatic --noinput -v0
venv/bin/python seed.py base
# the benchmark's forum: 200 more topics, seeded through the ORM once (about 20 s)
cp site/template.sqlite3 site/bench.sqlite3
MACHINA_DB="$PWD/site/bench.sqlite3" venv/bin/python seed.py bench 200 > /dev/null
echo "$stamp" > site/.stamp
echo "machina harness: ready"
