#!/usr/bin/env bash
# Makes sure the database servers the tests use are running on this machine: PostgreSQL at
# 127.0.0.1:5432, MariaDB at 127.0.0.1:3306 and Firebird at 127.0.0.1:3050 (scripts/firebird.sh). Starts a server that is installed but stopped,
# installs one that is missing (Debian packages), and sysbench for the side-by-side benchmark's
# smoke test. Safe to run any number of times.
set -euo pipefail

log() { printf 'services: %s\n' "$*" >&2; }

wait_for() { # name, command
  for _ in $(seq 1 60); do
    if eval "$2" >/dev/null 2>&1; then log "$1 is up"; return 0; fi
    sleep 1
  done
  log "$1 did not come up in 60 s"; return 1
}

apt_install() {
  log "installing $*"
  if [ -z "${HEADROOM_APT_UPDATED:-}" ]; then apt-get update -qq; export HEADROOM_APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

postgres_up() { pg_isready -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }
if ! command -v pg_isready >/dev/null 2>&1 || ! command -v pgbench >/dev/null 2>&1; then apt_install postgresql postgresql-contrib; fi
if ! postgres_up; then
  log 'starting PostgreSQL'
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start || true
  wait_for PostgreSQL postgres_up
else
  log 'PostgreSQL is up'
fi

mariadb_up() { mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 -uroot ping >/dev/null 2>&1; }
if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then apt_install mariadb-server mariadb-client; fi
if ! mariadb_up; then
  log 'starting MariaDB'
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  wait_for MariaDB mariadb_up
else
  log 'MariaDB is up'
fi

# sysbench: the peer that bench/sysbench-vs-headroom.mjs measures against (its smoke test runs in CI).
if ! command -v sysbench >/dev/null 2>&1; then apt_install sysbench; fi

bash "$(dirname "$0")/firebird.sh"
