#!/usr/bin/env bash
# A three-node MariaDB Galera cluster (multi-primary, synchronous replication) on loopback ports
# in a folder of its own; SST by rsync. The machine's shared MariaDB on 3306 is never touched.
#
#   bash scripts/cluster-galera.sh up      start (or reuse) the cluster; prints the URL
#   bash scripts/cluster-galera.sh down    stop it and delete its folder
#   bash scripts/cluster-galera.sh status  exit 0 when every node is synced
#
# HEADROOM_CLUSTER_DIR (default /tmp/headroom-clusters) holds the folder; HEADROOM_GALERA_PORT
# (default 27336) is node 1's SQL port, nodes 2 and 3 take the next two; Galera's group, SST and
# IST ports are PORT+1000.., PORT+1010.., PORT+1020... All of them lie below Linux's ephemeral range
# (32768-60999), where any outgoing connection may hold one as its local port and a node could not
# bind it. Safe to run any number of times.
set -euo pipefail

ROOT="${HEADROOM_CLUSTER_DIR:-/tmp/headroom-clusters}/galera"
PORT="${HEADROOM_GALERA_PORT:-27336}"
PROVIDER=/usr/lib/galera/libgalera_smm.so

log() { printf 'cluster-galera: %s\n' "$*" >&2; }
sql_port() { echo "$((PORT + $1 - 1))"; }
group_port() { echo "$((PORT + 1000 + $1))"; }
sst_port() { echo "$((PORT + 1010 + $1))"; }
ist_port() { echo "$((PORT + 1020 + $1))"; }

admin() { # node, sql
  mariadb --protocol=tcp -h 127.0.0.1 -P "$(sql_port "$1")" -uroot -N -B -e "$2" 2>/dev/null
}
synced() { [ "$(admin "$1" "SHOW STATUS LIKE 'wsrep_local_state_comment'" | cut -f2)" = Synced ]; }
all_up() { synced 1 && synced 2 && synced 3 && [ "$(admin 1 "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)" = 3 ]; }

urls() {
  echo "node1    mariadb://root@127.0.0.1:$(sql_port 1)/test?replicas=127.0.0.1:$(sql_port 2),127.0.0.1:$(sql_port 3)"
}

wait_for() { # what, command...
  local what="$1"; shift
  for _ in $(seq 1 240); do "$@" && return 0; sleep 0.5; done
  log "$what did not come up in 120 s (logs in $ROOT)"; return 1
}

down() {
  for n in 3 2 1; do
    if [ -f "$ROOT/node$n.pid" ]; then
      local pid; pid="$(cat "$ROOT/node$n.pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$ROOT"
}

start_node() { # node, extra options...
  local n="$1"; shift
  local members="gcomm://127.0.0.1:$(group_port 1),127.0.0.1:$(group_port 2),127.0.0.1:$(group_port 3)"
  # mariadbd refuses to run as root without --user: it runs as mysql, as the package's service does.
  setsid /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$ROOT/node$n" --port="$(sql_port "$n")" \
    --bind-address=127.0.0.1 --socket="$ROOT/node$n.sock" --pid-file="$ROOT/node$n.pid" \
    --log-error="$ROOT/node$n.err" --skip-name-resolve --innodb-buffer-pool-size=64M \
    --innodb-log-file-size=32M --max-connections=80 --binlog-format=ROW --innodb-autoinc-lock-mode=2 \
    --default-storage-engine=InnoDB --wsrep-on=ON --wsrep-provider="$PROVIDER" \
    --wsrep-cluster-name=headroom --wsrep-cluster-address="$members" \
    --wsrep-node-address="127.0.0.1:$(group_port "$n")" --wsrep-node-name="node$n" \
    --wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:$(group_port "$n");ist.recv_addr=127.0.0.1:$(ist_port "$n");gcache.size=64M" \
    --wsrep-sst-method=rsync --wsrep-sst-receive-address="127.0.0.1:$(sst_port "$n")" \
    "$@" >/dev/null 2>&1 </dev/null &
  wait_for "node$n" synced "$n"
}

up() {
  if all_up; then log 'already running'; urls; return 0; fi
  [ -x /usr/sbin/mariadbd ] || { log 'MariaDB server is missing: apt-get install mariadb-server'; return 1; }
  if [ ! -f "$PROVIDER" ] || ! command -v rsync >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || { log 'Galera is missing: apt-get install galera-4 rsync (as root)'; return 1; }
    log 'installing galera-4 and rsync'
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq galera-4 rsync >/dev/null
  fi
  # A half-started cluster is rebuilt from nothing: it holds no data worth keeping.
  down
  for n in 1 2 3; do
    for port in "$(sql_port "$n")" "$(group_port "$n")" "$(sst_port "$n")" "$(ist_port "$n")"; do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then log "port $port is taken by another program: choose other ports with HEADROOM_GALERA_PORT"; return 1; fi
    done
  done
  mkdir -p "$ROOT"
  chmod 755 "$ROOT"
  [ "$(id -u)" = 0 ] && chown mysql:mysql "$ROOT"
  for n in 1 2 3; do
    mariadb-install-db --no-defaults --user=mysql --datadir="$ROOT/node$n" --auth-root-authentication-method=normal \
      --skip-test-db --skip-name-resolve >/dev/null
  done
  log "node1 on $(sql_port 1) (bootstraps the cluster)"
  start_node 1 --wsrep-new-cluster
  admin 1 'CREATE DATABASE IF NOT EXISTS test'
  for n in 2 3; do
    log "node$n on $(sql_port "$n") (joins by SST)"
    start_node "$n"
  done
  wait_for 'a cluster of three' all_up
  log 'up'
  urls
}

case "${1:-up}" in
  up) up ;;
  down) down; log 'down' ;;
  status) all_up ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
