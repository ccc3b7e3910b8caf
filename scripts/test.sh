#!/usr/bin/env bash
# The one test command: installs and starts what the tests need, then runs every test
# (`mvn -B verify` on the whole reactor, with the formatter, SpotBugs and enforcer gates)
# and prints a summary. Safe to run again; runnable from any directory. Extra arguments go
# to Maven, e.g. `scripts/test.sh -pl rafestore-core -am`.
#
# Emulators: if scripts/emulators.sh exists, this script runs its `install`, then `start`
# unless `status` already exits 0 (running), exports the `export VAR=...` lines that `env`
# prints, and on exit runs `stop` only if it did the `start` itself.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
EMULATORS="$ROOT/scripts/emulators.sh"

say() { printf 'test.sh: %s\n' "$*"; }
die() { printf 'test.sh: ERROR: %s\n' "$*" >&2; exit 1; }

# --- Prerequisites -----------------------------------------------------------------------
# Maven runs on $JAVA_HOME/bin/java when JAVA_HOME is set, else on the java in PATH.
JAVA_BIN="java"
[[ -n "${JAVA_HOME:-}" ]] && JAVA_BIN="$JAVA_HOME/bin/java"
command -v "$JAVA_BIN" >/dev/null 2>&1 \
  || die "Java 17+ is required but '$JAVA_BIN' was not found. Install a JDK 17 or newer (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME."
JAVA_SPEC="$("$JAVA_BIN" -XshowSettings:properties -version 2>&1 \
  | awk -F'= ' '/java.specification.version/ {print $2; exit}')"
JAVA_MAJOR="${JAVA_SPEC#1.}"
JAVA_MAJOR="${JAVA_MAJOR%%.*}"
[[ "$JAVA_MAJOR" =~ ^[0-9]+$ ]] || die "could not read the Java version from '$JAVA_BIN'."
(( JAVA_MAJOR >= 17 )) \
  || die "Java 17+ is required; '$JAVA_BIN' is Java $JAVA_SPEC. Install a JDK 17 or newer, or point JAVA_HOME at one."
# Maven: the mvn on PATH, else the project's wrapper (mvnw fetches Maven 3.9 from Maven Central
# once, into ~/.m2/wrapper). Same flags either way.
MAVEN=mvn
if ! command -v mvn >/dev/null 2>&1; then
  MAVEN="$ROOT/mvnw"
  say "no mvn on PATH: using the Maven wrapper (./mvnw)"
fi

START_SECONDS=$SECONDS

# --- Browser for the forum's end-to-end test -----------------------------------------------
# examples/forum-rss drives headless Chromium through chromedriver (Debian's chromium and
# chromium-driver). Best effort and quick when present: where they cannot be installed, that
# one test is skipped with a message saying why and everything else runs.
install_browser() {
  if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    return 0
  fi
  local skip="the headless Chromium test will be skipped"
  if ! command -v apt-get >/dev/null 2>&1; then
    say "no apt-get to install chromium and chromium-driver: $skip"
    return 0
  fi
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      say "not root and no password-less sudo to install chromium and chromium-driver: $skip"
      return 0
    fi
  fi
  say "installing chromium and chromium-driver (apt-get) for the browser test"
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -q)
  if ! "${apt[@]}" install chromium chromium-driver >/dev/null 2>&1; then
    "${apt[@]}" update >/dev/null 2>&1 || true
    "${apt[@]}" install chromium chromium-driver >/dev/null 2>&1 \
      || say "warning: could not install chromium and chromium-driver: $skip"
  fi
}
install_browser </dev/null

# --- Emulators ---------------------------------------------------------------------------
STARTED_EMULATORS=0
stop_emulators() {
  if (( STARTED_EMULATORS )); then
    say "stopping the emulators this run started"
    bash "$EMULATORS" stop || say "warning: 'scripts/emulators.sh stop' failed"
  fi
}
trap stop_emulators EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -f "$EMULATORS" ]]; then
  say "installing emulators (scripts/emulators.sh install)"
  bash "$EMULATORS" install </dev/null || die "'scripts/emulators.sh install' failed."
  if bash "$EMULATORS" status </dev/null >/dev/null 2>&1; then
    say "emulators already running; leaving them running afterwards"
  else
    say "starting emulators (scripts/emulators.sh start)"
    STARTED_EMULATORS=1
    bash "$EMULATORS" start </dev/null || die "'scripts/emulators.sh start' failed."
  fi
  ENV_OUT="$(bash "$EMULATORS" env </dev/null)" || die "'scripts/emulators.sh env' failed."
  # Take only well-formed `export NAME=value` lines; anything else is ignored.
  EXPORTS="$(printf '%s\n' "$ENV_OUT" | grep -E '^export [A-Za-z_][A-Za-z0-9_]*=' || true)"
  eval "$EXPORTS"
  say "test endpoints: $(printf '%s\n' "$EXPORTS" | sed -E 's/^export ([A-Za-z0-9_]+)=.*/\1/' | tr '\n' ' ')"
else
  say "scripts/emulators.sh not present: running the tests that need no emulator"
fi

# --- Build and test ----------------------------------------------------------------------
LOG_DIR="$ROOT/target/test-logs"
mkdir -p "$LOG_DIR"
LOG="$LOG_DIR/mvn-verify.log"
MARK="$LOG_DIR/.started"
touch "$MARK"
MVN_CMD=("$MAVEN" -B -ntp -Dstyle.color=never verify "$@")
say "running: ${MVN_CMD[*]} (full log: ${LOG#"$ROOT"/})"
set +e
"${MVN_CMD[@]}" </dev/null 2>&1 | tee "$LOG"
MVN_RC=${PIPESTATUS[0]}
set -e

# --- Consumer project ----------------------------------------------------------------------
# RafeStore as a user gets it (scripts/consumer-test.sh): the BOM, core and drivers installed
# into a scratch repository, and a project with README.md's dependencies built against them and
# run on in-memory clouds. About 30 s, offline; RAFESTORE_SKIP_CONSUMER=1 skips it.
CONSUMER_RC=0
CONSUMER_STATUS="skipped (RAFESTORE_SKIP_CONSUMER=1)"
if [[ "${RAFESTORE_SKIP_CONSUMER:-0}" != "1" ]]; then
  CONSUMER_LOG="$LOG_DIR/consumer-test.log"
  say "consumer project: scripts/consumer-test.sh (log: ${CONSUMER_LOG#"$ROOT"/})"
  set +e
  timeout 600 bash "$ROOT/scripts/consumer-test.sh" </dev/null >"$CONSUMER_LOG" 2>&1
  CONSUMER_RC=$?
  set -e
  if (( CONSUMER_RC == 0 )); then
    CONSUMER_STATUS="OK ($(tail -n 1 "$CONSUMER_LOG" | sed 's/^consumer-test.sh: //'))"
  else
    CONSUMER_STATUS="FAILED (exit $CONSUMER_RC); last lines of ${CONSUMER_LOG#"$ROOT"/}:"
  fi
fi

# --- The demo with only a JDK ---------------------------------------------------------------
# README's demo command as a machine without Maven runs it (scripts/jdk-only-demo.sh): the
# console demo built through ./mvnw. About a minute once the build above ran;
# RAFESTORE_SKIP_DEMO=1 skips it.
DEMO_RC=0
DEMO_STATUS="skipped (RAFESTORE_SKIP_DEMO=1)"
if [[ "${RAFESTORE_SKIP_DEMO:-0}" != "1" ]]; then
  DEMO_LOG="$LOG_DIR/jdk-only-demo.log"
  say "demo with only a JDK: scripts/jdk-only-demo.sh (log: ${DEMO_LOG#"$ROOT"/})"
  set +e
  timeout 900 bash "$ROOT/scripts/jdk-only-demo.sh" </dev/null >"$DEMO_LOG" 2>&1
  DEMO_RC=$?
  set -e
  if (( DEMO_RC == 0 )); then
    DEMO_STATUS="OK ($(tail -n 1 "$DEMO_LOG" | sed 's/^jdk-only-demo.sh: //'))"
  else
    DEMO_STATUS="FAILED (exit $DEMO_RC); last lines of ${DEMO_LOG#"$ROOT"/}:"
  fi
fi

# --- Benchmark smoke ---------------------------------------------------------------------
# The quick benchmark run (PaperBench --quick, every JMH benchmark with 1 fork and 1 short
# iteration, ScaleBench --quick): checks that the harnesses run and write their reports; no
# number is asserted (the machine is shared). About 2 minutes; RAFESTORE_SKIP_BENCH=1 skips it.
BENCH_RC=0
BENCH_STATUS="skipped (RAFESTORE_SKIP_BENCH=1)"
if [[ "${RAFESTORE_SKIP_BENCH:-0}" != "1" ]]; then
  BENCH_LOG="$LOG_DIR/bench-quick.log"
  BENCH_START=$SECONDS
  say "benchmark smoke: scripts/bench.sh --quick (log: ${BENCH_LOG#"$ROOT"/})"
  set +e
  timeout 600 bash "$ROOT/scripts/bench.sh" --quick </dev/null >"$BENCH_LOG" 2>&1
  BENCH_RC=$?
  set -e
  BENCH_SECONDS=$((SECONDS - BENCH_START))
  if (( BENCH_RC == 0 )); then
    BENCH_STATUS="OK in ${BENCH_SECONDS}s (report: target/bench-quick/benchmarks.md)"
  else
    BENCH_STATUS="FAILED (exit $BENCH_RC after ${BENCH_SECONDS}s); last lines of ${BENCH_LOG#"$ROOT"/}:"
  fi
fi

# --- Summary -----------------------------------------------------------------------------
# Counts come from this run's Surefire/Failsafe XML reports (older reports are ignored).
tests=0 failures=0 errors=0 skipped=0 suites=0
while IFS= read -r report; do
  header="$(grep -m1 -o '<testsuite [^>]*>' "$report" || true)"
  [[ -n "$header" ]] || continue
  attr() { printf '%s' "$header" | grep -o " $1=\"[0-9]*\"" | grep -o '[0-9]\+' || echo 0; }
  tests=$((tests + $(attr tests)))
  failures=$((failures + $(attr failures)))
  errors=$((errors + $(attr errors)))
  skipped=$((skipped + $(attr skipped)))
  suites=$((suites + 1))
done < <(find "$ROOT" -path '*/target/*-reports/TEST-*.xml' -newer "$MARK" 2>/dev/null | sort)
passed=$((tests - failures - errors - skipped))
failed=$((failures + errors))
elapsed=$((SECONDS - START_SECONDS))

echo
echo "================ RafeStore test summary ================"
echo "Test classes: $suites   Time: $((elapsed / 60))m $((elapsed % 60))s"
if (( MVN_RC == 0 )); then
  echo "Build: SUCCESS (format check, SpotBugs, enforcer and all tests passed)"
else
  echo "Build: FAILED (mvn exit code $MVN_RC); first errors:"
  # Goal failures, failing tests, SpotBugs findings and unformatted files.
  grep -E '^\[ERROR\] (Failed to execute goal|Tests run:.*FAIL|  [A-Za-z].*:[0-9]+ |(High|Medium|Low): |    src/|Run .mvn spotless:apply)' "$LOG" \
    | head -n 25 | sed 's/^/  /' || true
  echo "Full log: $LOG"
fi
echo "Tests: $passed passed, $failed failed, $skipped skipped"
echo "Consumer project (scripts/consumer-test.sh): $CONSUMER_STATUS"
if (( CONSUMER_RC != 0 )); then
  tail -n 15 "$CONSUMER_LOG" | sed 's/^/  /'
fi
echo "Demo with only a JDK (scripts/jdk-only-demo.sh): $DEMO_STATUS"
if (( DEMO_RC != 0 )); then
  tail -n 15 "$DEMO_LOG" | sed 's/^/  /'
fi
echo "Benchmark smoke (scripts/bench.sh --quick): $BENCH_STATUS"
if (( BENCH_RC != 0 )); then
  tail -n 15 "$BENCH_LOG" | sed 's/^/  /'
fi
if (( MVN_RC != 0 )); then
  exit "$MVN_RC"
fi
if (( CONSUMER_RC != 0 )); then
  exit "$CONSUMER_RC"
fi
if (( DEMO_RC != 0 )); then
  exit "$DEMO_RC"
fi
exit "$BENCH_RC"
