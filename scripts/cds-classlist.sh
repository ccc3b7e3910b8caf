#!/usr/bin/env bash
# Writes rafestore-cli/src/main/cds/success-path.classlist: the classes that `put`, `get`, `ls` and
# `verify` of a 1 KiB value load when every cloud answers, over the four local emulators (MinIO,
# fake-gcs-server, Azurite, Redis; scripts/emulators.sh). scripts/rafestore adds this list to the
# classes of its own training run (whose requests are refused, so it loads only the SDKs' failure
# paths) when it writes the start-up archive, so the archive also holds the SDKs' success paths
# without the launcher ever contacting a cloud. See docs/cli.md, "Start-up time".
#
#   scripts/emulators.sh start && eval "$(scripts/emulators.sh env)"
#   scripts/cds-classlist.sh
#
# Run it again when a dependency changes (a stale list costs start-up time, never correctness: a
# named class that no longer exists is skipped when the archive is written).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/rafestore-cli/target/rafestore.jar"
OUT="$ROOT/rafestore-cli/src/main/cds/success-path.classlist"
JAVA_BIN="java"
[[ -n "${JAVA_HOME:-}" ]] && JAVA_BIN="$JAVA_HOME/bin/java"

die() { printf 'cds-classlist: %s\n' "$*" >&2; exit 2; }
[[ -f "$JAR" ]] || die "$JAR is missing: run scripts/rafestore --version once to build it."
for v in RAFESTORE_S3_CREDENTIALS RAFESTORE_AZURE_CONNECTION_STRING; do
  [[ -n "${!v:-}" ]] || die "$v is not set: eval \"\$(scripts/emulators.sh env)\" first."
done

DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
BUCKET="rafestore-classlist-$$"
sed -e "s/rafestore-demo/$BUCKET/g" -e 's/^writer.key = .*/writer.key = list.key/' \
  -e 's/^writer.id = .*/writer.id = list/' \
  "$ROOT/examples/config/emulators.properties" >"$DIR/emu.properties"
head -c 1024 /dev/urandom >"$DIR/value.bin"

# The S3 transport scripts/rafestore chooses.
run() { "$JAVA_BIN" -Xlog:disable -Xlog:all=error:stderr -Drafestore.s3.transport=apache "$@"; }
run -jar "$JAR" keygen --id list --out "$DIR/list.key" >/dev/null
run -jar "$JAR" -c "$DIR/emu.properties" init >/dev/null
run -XX:DumpLoadedClassList="$DIR/put.classlist" -jar "$JAR" -c "$DIR/emu.properties" \
  put value "$DIR/value.bin" >/dev/null
run -XX:DumpLoadedClassList="$DIR/get.classlist" -jar "$JAR" -c "$DIR/emu.properties" \
  get value -o "$DIR/out.bin" >/dev/null
cmp -s "$DIR/value.bin" "$DIR/out.bin" || die "the value read differs from the value written."
run -XX:DumpLoadedClassList="$DIR/ls.classlist" -jar "$JAR" -c "$DIR/emu.properties" \
  ls >/dev/null
# A get, put or ls exits once n-f clouds have answered, without waiting for the slowest cloud's
# client to be built (docs/cli.md, "Start-up time"), so one SDK's success path may be missing from
# their lists; verify reads from every cloud, so every SDK's is in its list. It exits with 3 when
# the put's last cloud had not been written when the put exited (also docs/cli.md), which is no
# matter here.
run -XX:DumpLoadedClassList="$DIR/verify.classlist" -jar "$JAR" -c "$DIR/emu.properties" \
  verify value >/dev/null || [[ $? == 3 ]] || die "verify failed."

mkdir -p "$(dirname "$OUT")"
{
  printf '# The classes of a successful put, get, ls and verify over the four emulators, written by\n'
  printf '# scripts/cds-classlist.sh (JDK %s); read by scripts/rafestore. Regenerate, do not edit.\n' \
    "$("$JAVA_BIN" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')"
  # get first: the command the archive is tuned for. Generated classes (JFR event handlers,
  # dynamic proxies) cannot be named in a list; the JDK's own directives are kept.
  cat "$DIR/get.classlist" "$DIR/put.classlist" "$DIR/ls.classlist" "$DIR/verify.classlist" \
    | grep -v -e '^#' -e '^jdk/jfr/internal/handlers/EventHandler' -e '/\$Proxy[0-9]' \
    | awk '!seen[$0]++'
} >"$OUT.tmp"
mv -f "$OUT.tmp" "$OUT"
printf 'cds-classlist: wrote %s (%s lines)\n' "${OUT#"$ROOT"/}" "$(wc -l <"$OUT")" >&2
