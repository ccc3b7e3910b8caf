#!/usr/bin/env bash
# The demo command. Runnable from any directory; needs no server and no account.
#
#   scripts/demo.sh [--port N] [--data DIR]   the forum web application (examples/forum-rss) on
#                                             four local clouds behind an emulated WAN; prints
#                                             its URL (http://127.0.0.1:8080/ by default) and
#                                             runs until Ctrl-C
#   scripts/demo.sh --console                 the console demo (examples/demo): every protocol
#                                             mode on in-memory clouds, then a Byzantine cloud
#
# Other arguments are passed to the application.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

MODULE=examples/forum-rss
MAIN_CLASS="io.rafestore.examples.forum.ForumApp"
WHAT="forum"
if [[ "${1:-}" == "--console" ]]; then
  shift
  MODULE=examples/demo
  MAIN_CLASS="io.rafestore.examples.demo.Demo"
  WHAT="console demo"
fi
MODULE_DIR="$ROOT/$MODULE"

command -v java >/dev/null 2>&1 || { echo "demo.sh: Java 17+ is required; install a JDK 17 (e.g. apt-get install openjdk-17-jdk-headless) and retry." >&2; exit 1; }
# Maven: the mvn on PATH, else the wrapper (mvnw fetches Maven 3.9 from Maven Central once, into
# ~/.m2/wrapper), so a JDK is all this needs.
MAVEN=mvn
command -v mvn >/dev/null 2>&1 || MAVEN="$ROOT/mvnw"

# Build only the example and what it depends on, in one reactor run: packaging writes the
# example's runtime classpath to target/classpath.txt (examples/pom.xml), pointing at the
# reactor's own jars, so nothing is installed into ~/.m2. -Dquick skips the formatter,
# SpotBugs and enforcer gates (CI runs them), -DskipTests skips tests.
MVN=("$MAVEN" -B -q -ntp -Dstyle.color=never -Dquick -DskipTests)
LOG="$(mktemp "${TMPDIR:-/tmp}/rafestore-demo-build.XXXXXX")"
trap 'rm -f "$LOG"' EXIT
echo "RafeStore $WHAT: building (the first run downloads dependencies)..." >&2
if ! "${MVN[@]}" -f "$ROOT/pom.xml" -pl "$MODULE" -am package >"$LOG" 2>&1; then
  cat "$LOG" >&2
  echo "demo.sh: building the $WHAT failed (output above)." >&2
  exit 1
fi
CP_FILE="$MODULE_DIR/target/classpath.txt"
[[ -s "$CP_FILE" ]] || { echo "demo.sh: the build did not write $CP_FILE." >&2; exit 1; }

# exec: Ctrl-C reaches the JVM directly, whose shutdown hook stops the forum cleanly.
rm -f "$LOG"
trap - EXIT
exec java -cp "$MODULE_DIR/target/classes:$(cat "$CP_FILE")" "$MAIN_CLASS" "$@"
