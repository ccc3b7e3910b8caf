#!/usr/bin/env bash
# The demo command: runs RafeStore's example application on an embedded default
# (in-memory clouds: no servers, no accounts). Runnable from any directory; extra
# arguments are passed to the demo.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEMO_DIR="$ROOT/examples/demo"
MAIN_CLASS="io.rafestore.examples.demo.Demo"

if [[ ! -f "$DEMO_DIR/pom.xml" ]]; then
  echo "RafeStore demo: not yet available (the example application is being built); the test command is scripts/test.sh"
  exit 0
fi

command -v mvn >/dev/null 2>&1 || { echo "demo.sh: Maven (mvn) 3.8+ is required; install it (e.g. apt-get install maven) and retry." >&2; exit 1; }
command -v java >/dev/null 2>&1 || { echo "demo.sh: Java 17+ is required; install a JDK 17 (e.g. apt-get install openjdk-17-jdk-headless) and retry." >&2; exit 1; }

# Build only the demo and what it depends on; -Dquick skips the formatter, SpotBugs and
# enforcer gates (CI runs them), -DskipTests skips tests.
MVN=(mvn -B -q -ntp -Dstyle.color=never -Dquick -DskipTests)
LOG="$(mktemp "${TMPDIR:-/tmp}/rafestore-demo-build.XXXXXX")"
trap 'rm -f "$LOG"' EXIT
build() {
  if ! "${MVN[@]}" "$@" >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "demo.sh: building the demo failed (output above)." >&2
    exit 1
  fi
}
echo "RafeStore demo: building (the first run downloads dependencies)..." >&2
build -f "$ROOT/pom.xml" -pl examples/demo -am install
CP_FILE="$DEMO_DIR/target/demo-classpath.txt"
build -f "$DEMO_DIR/pom.xml" dependency:build-classpath \
  -Dmdep.outputFile="$CP_FILE" -Dmdep.includeScope=runtime

java -cp "$DEMO_DIR/target/classes:$(cat "$CP_FILE")" "$MAIN_CLASS" "$@"
