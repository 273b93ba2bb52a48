#!/usr/bin/env bash
# Turns TLS on in a cluster start.sh started, with a throw-away certificate, and prints the
# setting the TLS test reads as a shell `export` line:
#
#     eval "$(.ci/postgres/enable-tls.sh "$APPSTATEKIT_POSTGRES_DIR")"
#
# - `openssl` makes a self-signed certificate for 127.0.0.1 and localhost (one day, 2048-bit
#   RSA) in <dir>/tls; the key is the server user's, mode 600, as PostgreSQL requires.
# - `ssl = on` with that certificate (ALTER SYSTEM as the superuser, then a reload: no restart,
#   so every connection open before it keeps working).
# - APPSTATEKIT_POSTGRES_TLS_CA names the certificate, which a client verifies the server against.
# Nothing else changes: plain connections still work (pg_hba's `host` lines match both).
set -euo pipefail
DIR="${1:-${APPSTATEKIT_POSTGRES_DIR:-}}"
[ -n "$DIR" ] && [ -d "$DIR/data" ] && [ -f "$DIR/env" ] || { echo "usage: enable-tls.sh <cluster folder from start.sh>" >&2; exit 2; }
# shellcheck disable=SC1091
source "$DIR/env"
PG_BIN="${APPSTATEKIT_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
OWNER="$(stat -c %U "$DIR/data")"
as_owner() { if [ "$(id -u)" = "0" ]; then runuser -u "$OWNER" -- "$@"; else "$@"; fi; }

mkdir -p "$DIR/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$DIR/tls/server.key" -out "$DIR/tls/server.crt" 2> "$DIR/tls/openssl.log" \
    || { cat "$DIR/tls/openssl.log" >&2; exit 1; }
chmod 600 "$DIR/tls/server.key"
chmod 644 "$DIR/tls/server.crt"
[ "$(id -u)" = "0" ] && chown -R "$OWNER" "$DIR/tls"
chmod 755 "$DIR/tls"
as_owner "$PG_BIN/psql" -q -v ON_ERROR_STOP=1 -h "$DIR/socket" -p "$APPSTATEKIT_POSTGRES_PORT" -U appstatekit -d appstatekit > /dev/null <<SQL
ALTER SYSTEM SET ssl_cert_file = '$DIR/tls/server.crt';
ALTER SYSTEM SET ssl_key_file = '$DIR/tls/server.key';
ALTER SYSTEM SET ssl = on;
SELECT pg_reload_conf();
SQL
# The reload is asynchronous: wait until a new connection sees it.
for _ in $(seq 1 50); do
    if [ "$(as_owner "$PG_BIN/psql" -Atq -h "$DIR/socket" -p "$APPSTATEKIT_POSTGRES_PORT" -U appstatekit -d appstatekit -c 'SHOW ssl')" = "on" ]; then
        echo "postgres/enable-tls: ssl = on with a throw-away certificate ($DIR/tls/server.crt)" >&2
        echo "export APPSTATEKIT_POSTGRES_TLS_CA=$DIR/tls/server.crt"
        exit 0
    fi
    sleep 0.1
done
tail -5 "$DIR/server.log" >&2
echo "error: PostgreSQL did not turn ssl on" >&2
exit 1
