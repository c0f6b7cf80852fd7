# Sourced by scripts/schemathesis.sh and scripts/python-client.sh: a real pipeline to test the
# API against, on loopback, and the pinned PyPI tools that test it.
#   intake_under_test NAME   a temp dir ($work), queues of their own on the loopback RabbitMQ
#                            ($prefix: test.NAME.<pid>), and on EXIT every process started
#                            here ended and those queues deleted
#   pinned_venv DIR REQ...   a venv under .build/ holding exactly these pins (made again when they change)
#   free_port                a TCP port nothing listens on now
#   start_stub_store         the lab's `iap-lab stub-store` on a free port ($stub_port, $stub_url), answering
#   start_iap LOG ARGS...    `iap ARGS...` in the background, its output in $work/LOG ($last_pid)
#   await_ready PORT PID LOG the intake on PORT answers /readyz, else its log and exit 1
# Needs a built iap and iap-lab (.build/debug/, else it builds them; IAP_BINARY and IAP_LAB_BINARY
# name others).
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

intake_under_test() {
  work=$(mktemp -d)
  prefix="test.$1.$$"
  started_pids=()
  trap intake_under_test_cleanup EXIT
  iap=${IAP_BINARY:-.build/debug/iap}
  [ -x "$iap" ] || swift build --product iap
  lab=${IAP_LAB_BINARY:-$(dirname "$iap")/iap-lab}
  [ -x "$lab" ] || swift build --product iap-lab
}

intake_under_test_cleanup() {
  for pid in "${started_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rabbitmqctl -q list_queues name 2>/dev/null | grep "^$prefix\." | xargs -r -n 1 rabbitmqctl -q delete_queue \
    >/dev/null 2>&1 || true
  rm -rf "$work"
}

pinned_venv() {
  local venv=$1
  shift
  if [ "$(cat "$venv/pinned" 2>/dev/null)" != "$*" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "$0: python3 -m venv failed; run scripts/setup.sh --tests" >&2; exit 1; }
    "$venv/bin/pip" install -q --disable-pip-version-check "$@"
    echo "$*" > "$venv/pinned"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_iap() {
  local log=$1
  shift
  start_binary "$iap" "$log" "$@"
}

# `BINARY ARGS...` in the background, its output in $work/LOG.
start_binary() {
  local binary=$1 log=$2
  shift 2
  "$binary" "$@" > "$work/$log" 2>&1 &
  last_pid=$!
  started_pids+=("$last_pid")
}

start_stub_store() {
  stub_port=$(free_port)
  stub_url="http://127.0.0.1:$stub_port"
  start_binary "$lab" stub.log stub-store --port "$stub_port"
  for _ in $(seq 1 120); do
    curl -fs "$stub_url/stub/root-ca" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "$0: the stub store did not answer on port $stub_port" >&2
  cat "$work/stub.log" >&2
  exit 1
}

await_ready() {
  local port=$1 pid=$2 log=$3
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "$0: the intake did not become ready on port $port" >&2
  cat "$work/$log" >&2
  exit 1
}
