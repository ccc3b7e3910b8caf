#!/usr/bin/env bash
# Local emulators for the RafeStore driver tests: MinIO (S3), Azurite (Azure Blob),
# fake-gcs-server (Google Cloud Storage) and redis-server.
#
#   scripts/emulators.sh install   # idempotent; tools go to $RAFESTORE_TOOLS
#   scripts/emulators.sh start     # start all four on 127.0.0.1, wait until each answers
#   eval "$(scripts/emulators.sh env)"
#   scripts/emulators.sh status | stop
#
# Every server binds to 127.0.0.1 only, on fixed non-default ports (RAFESTORE_PORT_BASE, default
# 19000..19004), keeps its data in a temporary directory and logs to $RAFESTORE_EMULATORS/logs.
set -euo pipefail

TOOLS="${RAFESTORE_TOOLS:-$HOME/.cache/rafestore-tools}"
STATE="${RAFESTORE_EMULATORS:-${TMPDIR:-/tmp}/rafestore-emulators}"
BASE="${RAFESTORE_PORT_BASE:-19000}"

MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
FAKE_GCS_VERSION="v1.56.1"
AZURITE_VERSION="3.35.0"

HOST=127.0.0.1
MINIO_PORT=$((BASE + 0))
MINIO_CONSOLE_PORT=$((BASE + 1))
GCS_PORT=$((BASE + 2))
AZURITE_PORT=$((BASE + 3))
REDIS_PORT=$((BASE + 4))
MINIO_USER=rafestore
MINIO_PASSWORD=rafestore-secret
# Azurite's well-known development account (public, documented by Microsoft; not a secret).
AZURITE_ACCOUNT=devstoreaccount1
AZURITE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
START_TIMEOUT="${RAFESTORE_START_TIMEOUT:-60}"

log() { echo "emulators: $*" >&2; }

install_minio() {
  if [[ -x "$TOOLS/bin/minio" ]]; then return; fi
  log "installing MinIO $MINIO_VERSION (takes a few minutes)"
  mkdir -p "$TOOLS/bin"
  GOBIN="$TOOLS/bin" go install "github.com/minio/minio@$MINIO_VERSION"
}

install_fake_gcs() {
  if [[ -x "$TOOLS/bin/fake-gcs-server" ]]; then return; fi
  log "installing fake-gcs-server $FAKE_GCS_VERSION"
  mkdir -p "$TOOLS/bin"
  GOBIN="$TOOLS/bin" go install "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION"
}

install_azurite() {
  if [[ -x "$TOOLS/azurite/node_modules/.bin/azurite-blob" ]]; then return; fi
  log "installing azurite $AZURITE_VERSION"
  mkdir -p "$TOOLS/azurite"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS/azurite" "azurite@$AZURITE_VERSION"
}

install_redis() {
  if command -v redis-server >/dev/null 2>&1; then return; fi
  log "installing redis-server"
  local sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo=sudo; fi
  if ! $sudo apt-get install -y -q redis-server >/dev/null 2>&1; then
    $sudo apt-get update -q >/dev/null
    $sudo apt-get install -y -q redis-server >/dev/null
  fi
}

cmd_install() {
  install_redis
  install_azurite
  install_fake_gcs
  install_minio
  log "installed into $TOOLS"
}

pid_alive() {
  local f="$STATE/$1.pid"
  [[ -f "$f" ]] && kill -0 "$(cat "$f")" 2>/dev/null
}

# Waits until the command answers, at most START_TIMEOUT seconds.
wait_for() {
  local name="$1"; shift
  local deadline=$((SECONDS + START_TIMEOUT))
  until "$@" >/dev/null 2>&1; do
    if ! pid_alive "$name"; then
      log "$name exited; see $STATE/logs/$name.log"
      tail -n 20 "$STATE/logs/$name.log" >&2 || true
      return 1
    fi
    if ((SECONDS >= deadline)); then
      log "$name did not answer within ${START_TIMEOUT}s; see $STATE/logs/$name.log"
      return 1
    fi
    sleep 0.5
  done
}

http_ok() { curl -fsS --max-time 2 -o /dev/null "$1"; }
# Any HTTP answer at all (Azurite answers 400 to a bare GET).
http_any() { curl -sS --max-time 2 -o /dev/null "$1"; }
redis_ping() { [[ "$(redis-cli -h "$HOST" -p "$REDIS_PORT" ping)" == PONG ]]; }

launch() {
  local name="$1"; shift
  if pid_alive "$name"; then log "$name already running (pid $(cat "$STATE/$name.pid"))"; return; fi
  mkdir -p "$STATE/logs" "$STATE/data/$name"
  nohup "$@" >"$STATE/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
  log "$name started (pid $!)"
}

cmd_start() {
  mkdir -p "$STATE"
  for t in "$TOOLS/bin/minio" "$TOOLS/bin/fake-gcs-server" \
      "$TOOLS/azurite/node_modules/.bin/azurite-blob"; do
    [[ -x "$t" ]] || { log "missing $t: run '$0 install' first"; exit 1; }
  done
  command -v redis-server >/dev/null || { log "missing redis-server: run '$0 install'"; exit 1; }

  MINIO_ROOT_USER="$MINIO_USER" MINIO_ROOT_PASSWORD="$MINIO_PASSWORD" \
    MINIO_BROWSER=off MINIO_UPDATE=off \
    launch minio "$TOOLS/bin/minio" server "$STATE/data/minio" \
      --address "$HOST:$MINIO_PORT" --console-address "$HOST:$MINIO_CONSOLE_PORT" --quiet
  launch gcs "$TOOLS/bin/fake-gcs-server" -scheme http -host "$HOST" -port "$GCS_PORT" \
    -backend memory -public-host "$HOST:$GCS_PORT" -external-url "http://$HOST:$GCS_PORT" \
    -log-level warn
  # --disableTelemetry: Azurite otherwise keeps trying to reach applicationinsights.azure.com (no
  # traffic may leave 127.0.0.1), and its log showed those lookups failing throughout the runs in
  # which Azurite answered verify seconds late (GcRepairEmulatorsTest in CI).
  launch azurite "$TOOLS/azurite/node_modules/.bin/azurite-blob" --blobHost "$HOST" \
    --blobPort "$AZURITE_PORT" --skipApiVersionCheck --loose --inMemoryPersistence --silent --disableTelemetry
  launch redis redis-server --bind "$HOST" --port "$REDIS_PORT" --save '' --appendonly no \
    --dir "$STATE/data/redis" --protected-mode yes

  wait_for minio http_ok "http://$HOST:$MINIO_PORT/minio/health/ready"
  wait_for gcs http_ok "http://$HOST:$GCS_PORT/storage/v1/b"
  wait_for azurite http_any "http://$HOST:$AZURITE_PORT/"
  wait_for redis redis_ping
  log "all emulators answer"
}

cmd_stop() {
  for name in minio gcs azurite redis; do
    if pid_alive "$name"; then
      kill "$(cat "$STATE/$name.pid")" && log "$name stopped"
    fi
    rm -f "$STATE/$name.pid"
  done
}

cmd_status() {
  local rc=0
  for name in minio gcs azurite redis; do
    if pid_alive "$name"; then
      echo "$name running (pid $(cat "$STATE/$name.pid"))"
    else
      echo "$name stopped"; rc=1
    fi
  done
  return $rc
}

cmd_env() {
  cat <<ENV
export RAFESTORE_S3_ENDPOINT=http://$HOST:$MINIO_PORT
export RAFESTORE_S3_ACCESS_KEY=$MINIO_USER
export RAFESTORE_S3_SECRET_KEY=$MINIO_PASSWORD
export RAFESTORE_S3_CREDENTIALS=$MINIO_USER:$MINIO_PASSWORD
export RAFESTORE_GCS_ENDPOINT=http://$HOST:$GCS_PORT
export RAFESTORE_AZURE_CONNECTION_STRING='DefaultEndpointsProtocol=http;AccountName=$AZURITE_ACCOUNT;AccountKey=$AZURITE_KEY;BlobEndpoint=http://$HOST:$AZURITE_PORT/$AZURITE_ACCOUNT;'
export RAFESTORE_REDIS_URI=redis://$HOST:$REDIS_PORT
ENV
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *) echo "usage: $0 install|start|stop|status|env" >&2; exit 2 ;;
esac
