#!/usr/bin/env bash
# A PostgreSQL 15 primary with two streaming hot-standby replicas and pgpool-II in front of them
# (streaming replication mode, its own load balancing), all on loopback ports in a folder of
# their own. The machine's shared server on 5432 is never touched.
#
#   bash scripts/cluster-postgres.sh up      start (or reuse) the cluster; prints the URLs
#   bash scripts/cluster-postgres.sh down    stop it and delete its folder
#   bash scripts/cluster-postgres.sh status  exit 0 when every part answers
#
# HEADROOM_CLUSTER_DIR (default /tmp/headroom-clusters) holds the folder; HEADROOM_PG_PORT
# (default 27432) is the primary's port, the replicas take the next two, pgpool PORT+7. The defaults
# lie below Linux's ephemeral range (32768-60999): a port in it can be the local end of any outgoing
# connection at that moment, and then the server cannot bind it (seen: "Address already in use" on
# a replica's port while the tests had connections open).
# Safe to run any number of times: `up` on a running cluster only prints its URLs.
set -euo pipefail

ROOT="${HEADROOM_CLUSTER_DIR:-/tmp/headroom-clusters}/postgres"
PORT="${HEADROOM_PG_PORT:-27432}"
PORTS=("$PORT" "$((PORT + 1))" "$((PORT + 2))")
POOL_PORT="$((PORT + 7))"
BIN="${HEADROOM_PG_BIN:-/usr/lib/postgresql/15/bin}"

log() { printf 'cluster-postgres: %s\n' "$*" >&2; }

# PostgreSQL refuses to run as root: as root everything runs as the postgres user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

node_up() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$1" >/dev/null 2>&1; }
pool_up() { as_pg psql -h 127.0.0.1 -p "$POOL_PORT" -U postgres -d postgres -Atqc 'SELECT 1' >/dev/null 2>&1; }
all_up() { node_up "${PORTS[0]}" && node_up "${PORTS[1]}" && node_up "${PORTS[2]}" && pool_up; }

urls() {
  echo "primary  postgres://postgres@127.0.0.1:${PORTS[0]}/test?replicas=127.0.0.1:${PORTS[1]},127.0.0.1:${PORTS[2]}"
  echo "pgpool   postgres://postgres@127.0.0.1:${POOL_PORT}/test"
}

wait_for() { # what, command...
  local what="$1"; shift
  for _ in $(seq 1 120); do "$@" && return 0; sleep 0.5; done
  log "$what did not come up in 60 s (logs in $ROOT)"; return 1
}

down() {
  if [ -f "$ROOT/pgpool.pid" ]; then kill "$(cat "$ROOT/pgpool.pid")" 2>/dev/null || true; fi
  for name in replica2 replica1 primary; do
    if [ -f "$ROOT/$name/postmaster.pid" ]; then as_pg "$BIN/pg_ctl" -D "$ROOT/$name" -m immediate -w stop >/dev/null 2>&1 || true; fi
  done
  rm -rf "$ROOT"
}

install_pgpool() {
  command -v pgpool >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || { log 'pgpool-II is missing: apt-get install pgpool2 (as root)'; return 1; }
  log 'installing pgpool2'
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgpool2 >/dev/null
}

node_conf() { # folder, port
  cat >>"$1/postgresql.conf" <<EOF

port = $2
listen_addresses = '127.0.0.1'
unix_socket_directories = '$ROOT'
shared_buffers = 64MB
max_connections = 60
wal_level = replica
max_wal_senders = 10
hot_standby = on
hot_standby_feedback = on
fsync = on
EOF
}

start_node() { # name, port
  as_pg "$BIN/pg_ctl" -D "$ROOT/$1" -l "$ROOT/$1.log" -w -t 60 start >/dev/null
  wait_for "$1" node_up "$2"
}

up() {
  if all_up; then log 'already running'; urls; return 0; fi
  [ -x "$BIN/initdb" ] || { log "PostgreSQL 15 server binaries are missing in $BIN: apt-get install postgresql-15"; return 1; }
  install_pgpool
  # A half-started cluster (a crash, a killed run) is rebuilt from nothing: it holds no data worth keeping.
  down
  for port in "${PORTS[@]}" "$POOL_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then log "port $port is taken by another program: choose other ports with HEADROOM_PG_PORT"; return 1; fi
  done
  mkdir -p "$ROOT"
  chmod 755 "$ROOT"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$ROOT"
  log "primary on ${PORTS[0]}"
  as_pg "$BIN/initdb" -D "$ROOT/primary" -U postgres --auth-local=trust --auth-host=trust -E UTF8 --no-sync >/dev/null
  echo 'host replication all 127.0.0.1/32 trust' >>"$ROOT/primary/pg_hba.conf"
  node_conf "$ROOT/primary" "${PORTS[0]}"
  start_node primary "${PORTS[0]}"
  as_pg psql -h 127.0.0.1 -p "${PORTS[0]}" -U postgres -d postgres -qc 'CREATE DATABASE test' >/dev/null
  for i in 1 2; do
    log "replica$i on ${PORTS[$i]} (pg_basebackup -R)"
    as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "${PORTS[0]}" -U postgres -D "$ROOT/replica$i" -R -X stream -c fast
    # The copy carries the primary's settings; the last line read wins, so the port is appended.
    echo "port = ${PORTS[$i]}" >>"$ROOT/replica$i/postgresql.conf"
    start_node "replica$i" "${PORTS[$i]}"
  done
  log "pgpool-II on $POOL_PORT"
  cat >"$ROOT/pgpool.conf" <<EOF
backend_clustering_mode = 'streaming_replication'
listen_addresses = '127.0.0.1'
port = $POOL_PORT
unix_socket_directories = '$ROOT'
pcp_listen_addresses = ''
pcp_port = $((POOL_PORT + 1))
pcp_socket_dir = '$ROOT'
pid_file_name = '$ROOT/pgpool.pid'
logdir = '$ROOT'
backend_hostname0 = '127.0.0.1'
backend_port0 = ${PORTS[0]}
backend_weight0 = 1
backend_flag0 = 'ALWAYS_PRIMARY|DISALLOW_TO_FAILOVER'
backend_hostname1 = '127.0.0.1'
backend_port1 = ${PORTS[1]}
backend_weight1 = 1
backend_flag1 = 'DISALLOW_TO_FAILOVER'
backend_hostname2 = '127.0.0.1'
backend_port2 = ${PORTS[2]}
backend_weight2 = 1
backend_flag2 = 'DISALLOW_TO_FAILOVER'
load_balance_mode = on
statement_level_load_balance = on
disable_load_balance_on_write = 'transaction'
num_init_children = 40
max_pool = 1
connection_cache = on
enable_pool_hba = off
pool_passwd = ''
sr_check_period = 0
health_check_period = 0
failover_on_backend_error = off
use_watchdog = off
log_destination = 'stderr'
EOF
  touch "$ROOT/pcp.conf"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$ROOT/pgpool.conf" "$ROOT/pcp.conf"
  as_pg setsid pgpool -n -f "$ROOT/pgpool.conf" -F "$ROOT/pcp.conf" >"$ROOT/pgpool.log" 2>&1 </dev/null &
  wait_for pgpool pool_up
  log 'up'
  urls
}

case "${1:-up}" in
  up) up ;;
  down) down; log 'down' ;;
  status) all_up ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
