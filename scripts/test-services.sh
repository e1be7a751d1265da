#!/usr/bin/env bash
# Services the test suite uses, from Debian's packages (RECIPES.md):
#  - PostgreSQL 15: installed and started if missing; a fresh `yambak_test` database each run.
#    Prints its URL on stdout (nothing when PostgreSQL cannot be had: those tests then skip).
#  - Redis (redis-server): installed if missing; an instance of its own on port 6391 (no disk), flushed
#    each run. Prints its URL on stdout, on a line of its own (nothing when Redis cannot be had).
#  - Chromium (/usr/bin/chromium) for the Playwright browser tests (never `playwright install`).
# Everything else goes to stderr. Never fails the build: missing services make their tests skip
# (or fail under CI=true, see tests/conftest.py `missing_service`).
set -u
log() { echo "test-services: $*" >&2; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
updated=""
apt_install() {
  [ -n "$updated" ] || { $SUDO apt-get update -qq >&2 || true; updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >&2
}

if [ ! -x /usr/bin/chromium ]; then
  log "installing chromium"; apt_install chromium || log "chromium unavailable: browser tests will skip"
fi

redis_service() {
  local port="${YAMBAK_TEST_REDIS_PORT:-6391}"
  if ! command -v redis-server >/dev/null 2>&1; then
    log "installing redis-server"; apt_install redis-server || { log "redis unavailable: its tests will skip"; return 0; }
  fi
  if ! redis-cli -p "$port" ping >/dev/null 2>&1; then
    redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --save "" --appendonly no \
      --pidfile "/tmp/yambak-test-redis-$port.pid" --logfile "/tmp/yambak-test-redis-$port.log" >&2 \
      || { log "cannot start redis"; return 0; }
  fi
  for _ in $(seq 1 30); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$port" flushall >/dev/null 2>&1 || { log "redis does not answer"; return 0; }
  echo "redis://127.0.0.1:$port/0"
}

postgres_service() {
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    log "installing postgresql"; apt_install postgresql || { log "postgresql unavailable: its tests will skip"; return 0; }
  fi
  local version
  version=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
  [ -n "$version" ] || { log "no postgresql version found"; return 0; }
  if ! pg_lsclusters -h 2>/dev/null | grep -q "^$version *main"; then
    $SUDO pg_createcluster "$version" main >&2 || { log "cannot create a cluster"; return 0; }
  fi
  pg_lsclusters -h | grep -q "^$version *main .* online" || $SUDO pg_ctlcluster "$version" main start >&2 || { log "cannot start postgresql"; return 0; }
  as_pg() { $SUDO su postgres -c "$1" >&2; }
  for _ in $(seq 1 30); do as_pg "psql -qtAc 'select 1'" && break; sleep 0.5; done
  as_pg "psql -qtAc \"select 1 from pg_roles where rolname='yambak'\" | grep -q 1 || psql -qc \"CREATE USER yambak PASSWORD 'yambak' SUPERUSER\""
  as_pg "dropdb --if-exists yambak_test && createdb -O yambak yambak_test" || { log "cannot create the test database"; return 0; }
  echo "postgresql+psycopg://yambak:yambak@127.0.0.1:5432/yambak_test"
}

postgres_service
redis_service
exit 0
