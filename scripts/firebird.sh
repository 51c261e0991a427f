#!/usr/bin/env bash
# Makes sure a Firebird 3 server runs on 127.0.0.1:3050 with SYSDBA's password known
# (FIREBIRD_SYSDBA_PASSWORD, default masterkey). Installs Debian's firebird3.0-server when it is
# missing, starts the server binary directly when it is stopped (no systemd needed), and leaves
# a running server alone. Safe to run any number of times.
set -euo pipefail

PASSWORD="${FIREBIRD_SYSDBA_PASSWORD:-masterkey}"
CONF=/etc/firebird/3.0/firebird.conf
log() { printf 'firebird: %s\n' "$*" >&2; }

firebird_up() { (exec 3<>/dev/tcp/127.0.0.1/3050) >/dev/null 2>&1; }

if [ ! -x /usr/sbin/fbguard ]; then
  log 'installing firebird3.0-server'
  # The package asks for SYSDBA's password through debconf; answer it up front.
  echo "firebird3.0-server shared/firebird/sysdba_password/first_install password $PASSWORD" | debconf-set-selections
  if [ -z "${HEADROOM_APT_UPDATED:-}" ]; then apt-get update -qq; export HEADROOM_APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq firebird3.0-server firebird3.0-utils >/dev/null
fi

# Remote clients speak either Srp (Firebird 3's default) or the older Legacy_Auth; accept both,
# and let the client decide on wire encryption rather than insisting on it.
set_conf() { # name, value
  if grep -Eq "^[#[:space:]]*$1[[:space:]]*=" "$CONF"; then
    sed -i -E "s|^[#[:space:]]*$1[[:space:]]*=.*|$1 = $2|" "$CONF"
  else
    printf '%s = %s\n' "$1" "$2" >>"$CONF"
  fi
}
want_conf() { grep -Eq "^$1 = $2\$" "$CONF"; }
# DeadlockTimeout: the server looks for a deadlock only after a lock wait this long (default
# 10 s); 1 s keeps the deadlock test short and retries quick.
changed=
for setting in 'AuthServer|Srp, Legacy_Auth' 'UserManager|Srp, Legacy_UserManager' 'WireCrypt|Enabled' 'RemoteBindAddress|127.0.0.1' 'DeadlockTimeout|1'; do
  name=${setting%%|*}; value=${setting#*|}
  if ! want_conf "$name" "$value"; then set_conf "$name" "$value"; changed=1; fi
done

# Test databases are created by the server process (user firebird) in this folder.
mkdir -p /var/lib/firebird/3.0/data
chown firebird:firebird /var/lib/firebird/3.0/data
chmod 2775 /var/lib/firebird/3.0/data

stop_server() {
  start-stop-daemon --stop --quiet --oknodo --pidfile /run/firebird3.0/firebird3.0.pid --retry 10 || true
  pkill -x fbguard || true
  pkill -x firebird || true
  for _ in $(seq 1 20); do firebird_up || return 0; sleep 0.5; done
}
start_server() {
  log 'starting Firebird'
  # What the package's init script does: fbguard restarts the server if it dies (-forever),
  # -daemon detaches. It runs as the firebird user so database files stay its own.
  mkdir -p /run/firebird3.0 && chown firebird:firebird /run/firebird3.0
  start-stop-daemon --start --quiet --oknodo --chuid firebird:firebird \
    --pidfile /run/firebird3.0/firebird3.0.pid --exec /usr/sbin/fbguard -- \
    -pidfile /run/firebird3.0/firebird3.0.pid -daemon -forever
  for _ in $(seq 1 60); do firebird_up && return 0; sleep 1; done
  log 'Firebird did not come up in 60 s'; exit 1
}
# Logs in over TCP; a database that does not exist still tells a wrong password apart.
login_ok() {
  ! echo 'SELECT 1 FROM RDB$DATABASE;' |
    isql-fb -q -user SYSDBA -password "$PASSWORD" '127.0.0.1/3050:/nonexistent/login-check.fdb' 2>&1 |
    grep -qi 'user name and password'
}

if firebird_up && [ -n "$changed" ]; then log 'restarting to apply firebird.conf'; stop_server; fi
firebird_up || start_server

# SYSDBA needs an Srp account with the known password. The server keeps the security database
# open exclusively, so a password it does not know is set through the embedded engine while the
# server is stopped.
embedded_isql() { su -s /bin/sh firebird -c 'isql-fb -q -user SYSDBA security.db'; }
set_password() { echo "CREATE OR ALTER USER SYSDBA PASSWORD '$PASSWORD' USING PLUGIN Srp; COMMIT;" | embedded_isql >/dev/null; }
# The Srp salt goes on the wire as hex without leading zeros. node-firebird finds the server's
# key after it by rounding the salt's length up to 4 bytes, so a salt whose hex is not a multiple
# of 4 long (most often one with a leading zero digit) makes every login fail ("Cannot convert ... to a
# BigInt"). A new salt comes with every password change: change it until the salt suits.
salt_ok() {
  local salt
  salt=$(echo 'SELECT PLG$SALT FROM PLG$SRP WHERE PLG$USER_NAME = '"'SYSDBA'"';' | embedded_isql | tr -d ' \r' | grep -E '^[0-9A-F]+$' | head -n 1)
  salt=$(printf "%s" "$salt" | sed -E "s/^0+//")
  [ -n "$salt" ] && [ $(( ${#salt} % 4 )) -eq 0 ]
}
SALT_CHECKED=/var/lib/firebird/3.0/.headroom-srp-salt-checked
if ! login_ok || [ ! -e "$SALT_CHECKED" ]; then
  log 'setting the SYSDBA password'
  stop_server
  login_ok_offline=
  for _ in $(seq 1 40); do
    set_password
    if salt_ok; then login_ok_offline=1; break; fi
  done
  [ -n "$login_ok_offline" ] || { log 'no Srp salt that node-firebird can read after 40 password changes'; exit 1; }
  touch "$SALT_CHECKED"
  start_server
  login_ok || { log 'SYSDBA still cannot log in'; exit 1; }
fi
log 'Firebird is up on 127.0.0.1:3050'
