#!/usr/bin/env bash
# README's first command as a new user with only a JDK runs it: scripts/demo.sh --console on a
# PATH without Maven, so the demo is built through the project's Maven wrapper (./mvnw, which
# fetches Maven from Maven Central once into ~/.m2/wrapper). Checks that every protocol mode ran
# and read its posts back while one cloud lied. Run by scripts/test.sh; RAFESTORE_SKIP_DEMO=1
# skips it there.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf 'jdk-only-demo.sh: %s\n' "$*"; }
die() { printf 'jdk-only-demo.sh: ERROR: %s\n' "$*" >&2; exit 1; }

# A PATH that holds every command of this machine's PATH except Maven's (mvn sits in /usr/bin
# beside the coreutils and java, so dropping directories would drop those too).
SHADOW="$(mktemp -d "${TMPDIR:-/tmp}/rafestore-jdk-only.XXXXXX")"
OUT="$SHADOW.out"
trap 'rm -rf "$SHADOW" "$OUT"' EXIT
IFS=':' read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [[ -d "$d" ]] || continue
  for f in "$d"/*; do
    name="$(basename "$f")"
    case "$name" in mvn | mvnDebug | mvnyjp) continue ;; esac
    [[ -x "$f" && ! -e "$SHADOW/$name" ]] && ln -s "$f" "$SHADOW/$name"
  done
done
PATH="$SHADOW" command -v mvn >/dev/null 2>&1 && die "mvn is still on the shadow PATH"
PATH="$SHADOW" command -v java >/dev/null 2>&1 || die "no java on PATH"

say "running scripts/demo.sh --console with no mvn on PATH (the wrapper builds it)"
PATH="$SHADOW" timeout 900 bash "$ROOT/scripts/demo.sh" --console >"$OUT" 2>&1 \
  || { tail -n 30 "$OUT" >&2; die "the demo failed"; }
modes=$(grep -c '^== mode ' "$OUT" || true)
byzantine=$(grep -c 'p0 turned Byzantine' "$OUT" || true)
[[ "$modes" == 4 && "$byzantine" == 4 ]] \
  || { cat "$OUT" >&2; die "expected 4 modes each read back with p0 Byzantine, saw $modes and $byzantine"; }
say "OK: 4 modes, each read back exactly with p0 corrupting every object"
