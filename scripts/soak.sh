#!/usr/bin/env bash
# A randomised soak of the protocol, by hand: rounds of the three tests whose inputs are drawn
# at random (StressHistoryTest: writers, readers, a collector and a cloud that changes its
# misbehaviour every 100 ms; ParserFuzzTest: the parsers of everything a cloud returns;
# WriteBackCrashTest: kill -9 of a write-back client at random points), each round with fresh
# seeds and longer budgets than a build gives them, until the time is up or a round fails.
# In-memory and directory clouds only: no emulator, no network.
#
#   scripts/soak.sh [minutes]        (default 30)
#
# Budgets per round (environment): SOAK_STRESS_SECONDS (per variant, of 18, default 20),
# SOAK_FUZZ_TRIES (cases per property, default 8000), SOAK_CRASH_SECONDS (default 90) and
# SOAK_CRASH_RUNS (kills, default 100). SOAK_STRESS_REPAIR=false leaves out StressHistoryTest's
# repairer (on by default here; off in a build, design.md section 12). Each round's Maven output is kept in target/soak/; a
# failing round's surefire reports are copied beside it and the script prints the seeds that
# replay it, then exits 1. On a machine others build on, run it under their lock (it is one
# Maven test run at a time).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf 'soak.sh: %s\n' "$*"; }
die() { printf 'soak.sh: ERROR: %s\n' "$*" >&2; exit 2; }

MINUTES="${1:-30}"
[[ "$MINUTES" =~ ^[0-9]+$ && "$MINUTES" -gt 0 ]] \
  || die "minutes must be a positive whole number, got '$MINUTES' (usage: scripts/soak.sh [minutes])"
STRESS_SECONDS="${SOAK_STRESS_SECONDS:-20}"
STRESS_REPAIR="${SOAK_STRESS_REPAIR:-true}"
[[ "$STRESS_REPAIR" == true || "$STRESS_REPAIR" == false ]] ||
  die "SOAK_STRESS_REPAIR must be true or false, got '$STRESS_REPAIR'"
FUZZ_TRIES="${SOAK_FUZZ_TRIES:-8000}"
CRASH_SECONDS="${SOAK_CRASH_SECONDS:-90}"
CRASH_RUNS="${SOAK_CRASH_RUNS:-100}"
for v in STRESS_SECONDS FUZZ_TRIES CRASH_SECONDS CRASH_RUNS; do
  [[ "${!v}" =~ ^[0-9]+$ && "${!v}" -gt 0 ]] || die "SOAK_$v must be a positive whole number, got '${!v}'"
done
MAVEN=mvn
command -v mvn >/dev/null 2>&1 || MAVEN="$ROOT/mvnw"

# A positive seed of up to 62 bits from the kernel: different in every round and every run.
new_seed() {
  echo $(( ($(od -An -N4 -tu4 /dev/urandom) << 30) ^ $(od -An -N4 -tu4 /dev/urandom) ))
}

OUT="$ROOT/target/soak"
mkdir -p "$OUT"
REPORTS="$ROOT/rafestore-core/target/surefire-reports"
END=$(( SECONDS + MINUTES * 60 ))
round=0
say "until $(date -u -d "+$MINUTES min" +%H:%M) UTC; output in $OUT"
while (( SECONDS < END )); do
  round=$(( round + 1 ))
  fuzz_seed=$(new_seed)
  stress_seed=$(new_seed)
  crash_seed=$(new_seed)
  log="$OUT/round-$round.log"
  say "round $round at $(date -u +%H:%M:%S) UTC (load $(cut -d' ' -f1-3 /proc/loadavg)):" \
    "fuzz seed $fuzz_seed, stress seed $stress_seed, crash seed $crash_seed"
  set +e
  "$MAVEN" -B -q -pl rafestore-core test -Dquick \
    -Dtest='StressHistoryTest,ParserFuzzTest,WriteBackCrashTest' \
    -Dsurefire.failIfNoSpecifiedTests=false \
    -Drafestore.stress.seconds="$STRESS_SECONDS" -Drafestore.stress.seed="$stress_seed" \
    -Drafestore.stress.repair="$STRESS_REPAIR" \
    -Drafestore.fuzz.seed="$fuzz_seed" -Drafestore.fuzz.tries="$FUZZ_TRIES" \
    -Drafestore.crash.seconds="$CRASH_SECONDS" -Drafestore.crash.runs="$CRASH_RUNS" \
    -Drafestore.crash.seed="$crash_seed" >"$log" 2>&1
  rc=$?
  set -e
  grep -h -E '^StressHistoryTest .*: [0-9]+ writes|^WriteBackCrashTest:' "$log" | sed 's/^/  /' || true
  if (( rc != 0 )); then
    rm -rf "$OUT/round-$round-reports"
    [[ -d "$REPORTS" ]] && cp -r "$REPORTS" "$OUT/round-$round-reports"
    say "round $round FAILED (Maven exit $rc): $log, reports in $OUT/round-$round-reports"
    say "replay: $MAVEN -pl rafestore-core test -Dquick -Dtest=<the failed class>" \
      "-Dsurefire.failIfNoSpecifiedTests=false -Drafestore.stress.seed=$stress_seed -Drafestore.stress.repair=$STRESS_REPAIR" \
      "-Drafestore.fuzz.seed=$fuzz_seed -Drafestore.crash.seed=$crash_seed" \
      "(a fuzz failure names its own -Drafestore.fuzz.case; thread timing still varies)"
    exit 1
  fi
done
say "$round rounds passed in $(( SECONDS / 60 )) min"
