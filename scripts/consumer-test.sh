#!/usr/bin/env bash
# Builds RafeStore as a user gets it: installs the BOM, the parent, rafestore-core and the four
# drivers into a scratch local repository (never into ~/.m2), then builds scripts/consumer, a
# small project whose dependencies are README.md's quick-start Maven block (BOM import, core,
# drivers), compiles its class against the installed jars and runs it on in-memory clouds.
# About a minute: Maven 3.9 (the project's wrapper, ./mvnw) chains the scratch repository in
# front of ~/.m2 (maven.repo.local.tail), which it only reads, for the third-party artifacts. Runnable from any directory; extra arguments go to the installing
# Maven run. Exits non-zero on any failure.
#
#   RAFESTORE_M2_REPO   the local repository holding the third-party artifacts
#                       (default ~/.m2/repository)
#   RAFESTORE_KEEP=1    keep the scratch directory (printed) for a look
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf 'consumer-test.sh: %s\n' "$*"; }
die() { printf 'consumer-test.sh: ERROR: %s\n' "$*" >&2; exit 1; }

# The wrapper's Maven 3.9 (maven.repo.local.tail is new in 3.9); it is fetched once.
MAVEN="$ROOT/mvnw"
M2_REPO="${RAFESTORE_M2_REPO:-$HOME/.m2/repository}"
[[ -d "$M2_REPO" ]] || die "no local repository at $M2_REPO (build the project once, or set RAFESTORE_M2_REPO)."

# --- 0. The BOM's third-party versions are the build's ------------------------------------
while IFS='|' read -r name value; do
  grep -q "<$name>$value</$name>" "$ROOT/pom.xml" "$ROOT/rafestore-drivers/pom.xml" \
    || die "rafestore-bom/pom.xml has $name = $value, the parent and rafestore-drivers/pom.xml do not."
done < <(sed -n '/<properties>/,/<\/properties>/p' "$ROOT/rafestore-bom/pom.xml" \
  | sed -nE 's|^ *<([A-Za-z0-9._-]+)>([^<]*)</[A-Za-z0-9._-]+>.*|\1\|\2|p')

SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/rafestore-consumer.XXXXXX")"
cleanup() {
  if [[ "${RAFESTORE_KEEP:-0}" == "1" ]]; then say "kept $SCRATCH"; else rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT
REPO="$SCRATCH/repo"
LOG="$SCRATCH/build.log"
# Every Maven run: the scratch repository first, ~/.m2 behind it, read only. What ~/.m2 holds is
# used from there; anything it lacks (say, a plugin only `install` uses) is fetched into the
# scratch repository and thrown away with it.
MVN=("$MAVEN" -B -ntp -Dstyle.color=never -Dmaven.repo.local="$REPO"
  -Dmaven.repo.local.tail="$M2_REPO")

# --- 1. Install into the scratch repository -------------------------------------------------
# The parent and the drivers' aggregator pom are installed too (-am): the modules' poms name
# them as parents.
MODULES=rafestore-bom,rafestore-core,rafestore-drivers/rafestore-driver-s3
MODULES+=,rafestore-drivers/rafestore-driver-azure,rafestore-drivers/rafestore-driver-gcs
MODULES+=,rafestore-drivers/rafestore-driver-redis
say "installing $MODULES into a scratch repository"
if ! "${MVN[@]}" -f "$ROOT/pom.xml" -Dquick -DskipTests -pl "$MODULES" -am install "$@" \
    </dev/null >"$LOG" 2>&1; then
  tail -n 40 "$LOG" >&2
  die "installing into the scratch repository failed (log above)."
fi
for a in rafestore-parent rafestore-bom rafestore-core rafestore-driver-s3; do
  [[ -d "$REPO/io/rafestore/$a" ]] || die "$a was not installed into $REPO."
done

# --- 2. The consumer project, with README.md's dependencies --------------------------------
PROJECT="$SCRATCH/consumer"
mkdir -p "$PROJECT"
cp -R "$ROOT/scripts/consumer/src" "$PROJECT/"
BLOCK="$SCRATCH/dependencies.xml"
awk '/<!-- quickstart-maven:begin -->/ {on = 1; next}
     /<!-- quickstart-maven:end -->/ {on = 0}
     on && !/^```/ {print "  " $0}' "$ROOT/README.md" >"$BLOCK"
grep -q '<artifactId>rafestore-bom</artifactId>' "$BLOCK" \
  || die "README.md has no quickstart-maven block importing rafestore-bom."
grep -q '<artifactId>rafestore-driver-s3</artifactId>' "$BLOCK" \
  || die "README.md's quickstart-maven block does not depend on rafestore-driver-s3."
# The plugin versions the RafeStore build pins (so they are in the local repository).
plugin_version() {
  awk -v a="$1" '$0 ~ "<artifactId>" a "</artifactId>" {getline; if (match($0, /<version>[^<]+/)) {
    print substr($0, RSTART + 9, RLENGTH - 9); exit}}' "$ROOT/pom.xml"
}
awk -v block="$BLOCK" -v res="$(plugin_version maven-resources-plugin)" \
    -v comp="$(plugin_version maven-compiler-plugin)" -v dep="$(plugin_version maven-dependency-plugin)" '
  /^@DEPENDENCIES@$/ {while ((getline line < block) > 0) print line; next}
  {gsub(/@RESOURCES@/, res); gsub(/@COMPILER@/, comp); gsub(/@DEPENDENCY@/, dep); print}
' "$ROOT/scripts/consumer/pom.xml.in" >"$PROJECT/pom.xml"

# --- 3. Build and run it --------------------------------------------------------------------
say "building the consumer project (README.md's dependencies) against the scratch repository"
CP="$SCRATCH/classpath.txt"
if ! "${MVN[@]}" -f "$PROJECT/pom.xml" compile dependency:build-classpath -Dmdep.outputFile="$CP" -Dmdep.includeScope=runtime \
    </dev/null >"$LOG" 2>&1; then
  tail -n 40 "$LOG" >&2
  die "building the consumer project failed (log above)."
fi
# The class path one entry per line, checked with here-strings, not `tr ... | grep -q`: under
# pipefail that fails whenever grep -q, matching the first entry (rafestore-core), exits before tr
# has written the rest (about 15 KB, several writes) and tr dies of SIGPIPE. A CI run failed so
# (2026-11-27 23:42 UTC, "no rafestore-core jar" though it was there; the same clone then passed).
ENTRIES="$(tr ':' '\n' <"$CP")"
# Every RafeStore jar on it must be one just installed (not the source tree's, not ~/.m2's).
for a in rafestore-core rafestore-driver-s3; do
  grep -q "^$REPO/io/rafestore/$a/" <<<"$ENTRIES" \
    || die "the consumer's class path has no $a jar from the scratch repository ($REPO); its RafeStore entries: $(grep -i rafestore <<<"$ENTRIES" || echo none)"
done
# Core's one third-party dependency (BouncyCastle, its default Ed25519 signer) comes with it, at
# the version the BOM names.
BC_VERSION="$(sed -n 's|^ *<bouncycastle.version>\([^<]*\)</bouncycastle.version>.*|\1|p' "$ROOT/rafestore-bom/pom.xml")"
grep -q "/org/bouncycastle/bcprov-jdk18on/$BC_VERSION/" <<<"$ENTRIES" \
  || die "the consumer's class path has no bcprov-jdk18on $BC_VERSION (core's dependency): $(grep -i bouncy <<<"$ENTRIES" || true)"
RAFESTORE_ENTRIES="$(grep '/io/rafestore/' <<<"$ENTRIES" || true)"
if [[ -n "$RAFESTORE_ENTRIES" ]] && grep -qv "^$REPO/" <<<"$RAFESTORE_ENTRIES"; then
  die "the consumer's class path has RafeStore jars from elsewhere: $RAFESTORE_ENTRIES"
fi
JAVA_BIN=java
[[ -n "${JAVA_HOME:-}" ]] && JAVA_BIN="$JAVA_HOME/bin/java"
OUT="$("$JAVA_BIN" -cp "$PROJECT/target/classes:$(cat "$CP")" example.Consumer 2>&1)" \
  || { printf '%s\n' "$OUT" >&2; die "the consumer failed."; }
grep -q '^consumer ok: hello again$' <<<"$OUT" \
  || { printf '%s\n' "$OUT" >&2; die "the consumer did not print 'consumer ok: hello again'."; }
say "OK: $(printf '%s\n' "$OUT" | tail -n 1)"
