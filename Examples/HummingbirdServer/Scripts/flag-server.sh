# What the scripts that run FlagServer binaries share. Source it (`. Scripts/flag-server.sh`);
# it defines functions only.

FLAG_SERVER_PACKAGE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Builds FlagServer (debug) and sets SERVER to the binary. SWIFT_BUILD_FLAGS: extra `swift
# build` flags, for example those an earlier build used, so nothing is built again.
build_flag_server() {
    # shellcheck disable=SC2086
    swift build --package-path "$FLAG_SERVER_PACKAGE" --product FlagServer ${SWIFT_BUILD_FLAGS:-} 2>&1 \
        | grep -E "error:|Compiling FlagS|Build complete" || true
    SERVER="$(swift build --package-path "$FLAG_SERVER_PACKAGE" --show-bin-path)/FlagServer"
}

# Prints a loopback port nothing listens on.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_until_serving PORT PID: waits up to 30 s for the server on loopback PORT to answer;
# fails, saying why, as soon as process PID has exited or when the time is up.
wait_until_serving() {
    for _ in $(seq 1 300); do
        curl -sf "http://127.0.0.1:$1/plain" > /dev/null && return 0
        kill -0 "$2" 2> /dev/null || { echo "error: the server for port $1 exited" >&2; return 1; }
        sleep 0.1
    done
    echo "error: the server on port $1 didn't answer within 30 s" >&2
    return 1
}
