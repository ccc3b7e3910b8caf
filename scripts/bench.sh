#!/usr/bin/env bash
# The benchmark command. Builds rafestore-bench, runs the paper reproduction (PaperBench, on
# time-scaled real time and on virtual time + measured CPU), the JMH suites (client CPU per
# operation; hashing, signing, encryption, erasure coding), the scale suite (ScaleBench), the read
# tier (TraceBench), write cost (WriteCostBench; its write-back rows again on ZGC), readM with many
# writers (WriterBench) and tenants interfering (InterferenceBench), and writes one report with the
# machine it ran on.
#
#   scripts/bench.sh            full run: regenerates docs/benchmarks.md and docs/img/*.svg
#                               (about 40 minutes on a 2-core machine, run alone: PaperBench
#                               about 20 on time-scaled real time and 2 on virtual time, the JMH
#                               and scale suites the rest)
#   scripts/bench.sh --quick    CI smoke (about 2 minutes): small settings, no number asserted,
#                               report in target/bench-quick/benchmarks.md; docs/ untouched
#
# Options:
#   --quick                the smoke run above
#   --paper-results DIR    use an existing PaperBench output directory instead of running it
#                          (the report says so)
#   --reuse                keep the outputs of an earlier run of this script found in
#                          target/bench-full (or -quick) and run only the missing steps (the
#                          report names the reused ones)
#   --out DIR              where the report and its images go (default docs/, or
#                          target/bench-quick with --quick)
# Runnable from any directory. Needs JDK 17+, Maven 3.8+, awk. Nothing leaves 127.0.0.1: every
# cloud is in memory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf 'bench.sh: %s\n' "$*" >&2; }
die() { printf 'bench.sh: ERROR: %s\n' "$*" >&2; exit 1; }

QUICK=0
REUSE=0
REUSED=()
PAPER_RESULTS=""
OUT=""
ARGS_AS_GIVEN="$*"
while (($#)); do
  case "$1" in
    --quick) QUICK=1 ;;
    --paper-results) shift; PAPER_RESULTS="${1:?--paper-results needs a directory}" ;;
    --out) shift; OUT="${1:?--out needs a directory}" ;;
    --reuse) REUSE=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (try --help)" ;;
  esac
  shift
done
if ((QUICK)); then
  OUT="${OUT:-$ROOT/target/bench-quick}"
else
  OUT="${OUT:-$ROOT/docs}"
fi
WORK="$ROOT/target/bench-$( ((QUICK)) && echo quick || echo full)"
mkdir -p "$OUT/img" "$WORK"
OUT="$(cd "$OUT" && pwd)"

# Maven: the mvn on PATH, else the project's wrapper (fetches Maven 3.9 once).
MAVEN=mvn
command -v mvn >/dev/null 2>&1 || MAVEN="$ROOT/mvnw"
command -v java >/dev/null 2>&1 || die "Java 17+ is required."

START=$SECONDS
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
# CPU time in use and stolen (by the hypervisor, for another guest on these CPUs), in ticks since
# boot, from /proc/stat: the load average does not show a neighbour, and on a shared host stolen
# time made one run's CPU figures about twice the code's own (2026-11-29). "0 0" where unknown.
cpu_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $9; exit}' /proc/stat 2>/dev/null || echo "0 0"; }
read -r BUSY_BEFORE STEAL_BEFORE <<<"$(cpu_ticks)"
DATE_START="$(date -u '+%Y-%m-%d %H:%M UTC')"

# --- Build ---------------------------------------------------------------------------------
JAR="$ROOT/rafestore-bench/target/benchmarks.jar"
# The jar is rebuilt unless it is newer than every source and pom it is made of (test.sh's
# `mvn verify` has just built it; rebuilding costs CI about 20 s).
fresh_jar() {
  [[ -f "$JAR" ]] || return 1
  [[ -z "$(find "$ROOT/pom.xml" "$ROOT"/rafestore-{core,cache,bench} \
    \( -path '*/src/main/*' -o -name pom.xml \) -type f -newer "$JAR" -print -quit 2>/dev/null)" ]]
}
if fresh_jar; then
  say "rafestore-bench/target/benchmarks.jar is newer than its sources: not rebuilt"
else
  say "building rafestore-bench (mvn -pl rafestore-bench -am package -Dquick -DskipTests)"
  "$MAVEN" -B -q -ntp -Dstyle.color=never -pl rafestore-bench -am package -Dquick -DskipTests \
    </dev/null >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; die "build failed"; }
fi
[[ -f "$JAR" ]] || die "no $JAR after the build"
JAVA=(java -Xmx4g -cp "$JAR")

# --- 1. Paper reproduction -----------------------------------------------------------------
# reused FILE: true (and noted) when --reuse was given and FILE exists from an earlier run.
reused() {
  if ((REUSE)) && [[ -s "$1" ]]; then
    REUSED+=("${1#"$ROOT"/} ($(date -u -r "$1" '+%Y-%m-%d %H:%M UTC'))")
    say "reusing ${1#"$ROOT"/}"
    return 0
  fi
  return 1
}

if [[ -n "$PAPER_RESULTS" ]]; then
  [[ -f "$PAPER_RESULTS/results.md" ]] || die "$PAPER_RESULTS has no results.md"
  PAPER_DIR="$(cd "$PAPER_RESULTS" && pwd)"
  PAPER_CMD="(reused: results of an earlier PaperBench run in $PAPER_RESULTS)"
  say "PaperBench: reusing $PAPER_DIR"
else
  PAPER_DIR="$WORK/paper"
  if ((QUICK)); then
    PAPER_ARGS=(--quick --parallel-configs --out "$PAPER_DIR")
  else
    # Time scale 1/30: every RTT x 0.0333 and every bandwidth x 30; the three configurations run
    # at the same time. The default protocols: in Configurations 1 and 2 (issue 16's targets)
    # PAPER, FAST, FAST_INLINE, FAST_CODED, FAST_AUTO, FAST_AUTO_COST, DEPSKY_A, DEPSKY_CA; in Configuration 3
    # the paper's four. 60 writes then 60 reads per cell, 30 from 4 MB (the 4 and 16 MB cells
    # would be four fifths of the run). About 20 minutes, 30 times less than at the paper's own
    # speed; Configuration 2 (every data cloud at 2 Mbit/s) sets the pace.
    PAPER_ARGS=(--time-scale 0.0333 --parallel-configs --large-ops 4M=30 --out "$PAPER_DIR")
  fi
  PAPER_CMD="java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.paper.PaperBench ${PAPER_ARGS[*]/#$ROOT\//}"
  if ! reused "$PAPER_DIR/results.md"; then
    say "PaperBench ${PAPER_ARGS[*]}"
    "${JAVA[@]}" io.rafestore.bench.paper.PaperBench "${PAPER_ARGS[@]}" \
      >"$WORK/paper.log" || { cat "$WORK/paper.log" >&2; die "PaperBench failed"; }
  fi
fi

# --- 1b. Paper reproduction on virtual time ------------------------------------------------
# PaperBench --virtual: the same cells on a virtual scheduler at time scale 1 (the profile's own
# RTTs and bandwidths), each operation's CPU time on the bench thread measured beside its virtual
# latency; latencies and targets are their sum (report-notes.md, "Virtual time"). One thread, no
# waiting: the full run's sizes and op counts (30 from 4 MB, as above) in a few minutes of CPU.
# Quick: the quick sizes and 3 ops, a few seconds.
VIRT_DIR="$WORK/paper-virtual"
if ((QUICK)); then
  VIRT_ARGS=(--virtual --quick --out "$VIRT_DIR")
else
  VIRT_ARGS=(--virtual --large-ops 4M=30 --out "$VIRT_DIR")
fi
VIRT_CMD="java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.paper.PaperBench ${VIRT_ARGS[*]/#$ROOT\//}"
if ! reused "$VIRT_DIR/results.md"; then
  say "PaperBench ${VIRT_ARGS[*]}"
  "${JAVA[@]}" io.rafestore.bench.paper.PaperBench "${VIRT_ARGS[@]}" \
    >"$WORK/paper-virtual.log" || { cat "$WORK/paper-virtual.log" >&2; die "PaperBench --virtual failed"; }
fi

# --- 2. JMH ---------------------------------------------------------------------------------
if ((QUICK)); then
  # Smoke: every benchmark runs once, briefly, with the small sizes. No number is asserted.
  # ClientCpuBenchmark.write's untimed set-up writes at most 64 keys, not 4,096 (with -f 0 the
  # property reaches the benchmark in this JVM): the 4,096 took nearly all of this step, 48 s of
  # CI's time; 9 s now.
  JMH_PROPS=(-Drafestore.bench.maxKeys=64)
  JMH_MAIN=(-f 0 -wi 0 -i 1 -r 100ms -p size=1024)
  JMH_AEAD=(-f 0 -wi 0 -i 1 -r 100ms -p size=1024)
else
  # Twelve warm-up seconds per fork: on two cores C2 compiles for about ten seconds after a fork
  # starts and takes the second core from the benchmark's helpers and GC; measured from the third
  # second, ClientCpuBenchmark.write (FAST, 1 KB) read 95 +/- 29 us, from the twelfth 95 +/- 4.
  JMH_MAIN=(-f 1 -wi 12 -w 1s -i 5 -r 1s)
  # AES-GCM needs a long warm-up before its intrinsics are compiled (see AeadBenchmark).
  JMH_AEAD=(-f 1 -wi 8 -w 2s -i 5 -r 1s)
  JMH_PROPS=()
fi
JMH_SUITES='ClientCpuBenchmark|Ed25519Benchmark|Sha256Benchmark|ReedSolomonBenchmark'
if ! reused "$WORK/jmh-main.csv"; then
  say "JMH $JMH_SUITES ${JMH_MAIN[*]}"
  java "${JMH_PROPS[@]}" -jar "$JAR" "$JMH_SUITES" "${JMH_MAIN[@]}" -rf csv -rff "$WORK/jmh-main.csv" \
    >"$WORK/jmh-main.log" 2>&1 || { tail -50 "$WORK/jmh-main.log" >&2; die "JMH failed"; }
fi
if ! reused "$WORK/jmh-aead.csv"; then
  say "JMH AeadBenchmark ${JMH_AEAD[*]}"
  java -jar "$JAR" AeadBenchmark "${JMH_AEAD[@]}" -rf csv -rff "$WORK/jmh-aead.csv" \
    >"$WORK/jmh-aead.log" 2>&1 || { tail -50 "$WORK/jmh-aead.log" >&2; die "JMH failed"; }
fi

# --- 3. Scale ---------------------------------------------------------------------------------
if ((QUICK)); then
  # Each of the six levels waits out its warm-up and its measured seconds in real time: half a
  # second and a quarter are enough for a smoke (before: 1 and 0.5, 12 s of CI's time).
  SCALE_ARGS=(--quick --seconds 0.5 --warmup 0.25 --jit-warmup 0.25 --executors default --out "$WORK/scale")
else
  SCALE_ARGS=(--levels 1,10,100,1000 --seconds 5 --warmup 2 --modes FAST --ops write,read
    --executors default,pool --out "$WORK/scale")
fi
if ! reused "$WORK/scale/scale.md"; then
  say "ScaleBench ${SCALE_ARGS[*]}"
  "${JAVA[@]}" io.rafestore.bench.scale.ScaleBench "${SCALE_ARGS[@]}" >"$WORK/scale.log" \
    || { cat "$WORK/scale.log" >&2; die "ScaleBench failed"; }
fi

# --- 4. Read tier ----------------------------------------------------------------------------
# TraceBench: the seed's access mix under the four prefetch modes, virtual time (design.md
# section 5, "The read tier"). Quick: a short trace and 20,000 graph accesses, a few seconds.
if ((QUICK)); then
  TRACE_ARGS=(--quick --out "$WORK/trace")
else
  TRACE_ARGS=(--out "$WORK/trace")
fi
if ! reused "$WORK/trace/trace.md"; then
  say "TraceBench ${TRACE_ARGS[*]}"
  # Exit 1 means a target line says MISS; the report shows it. Other failures stop the run.
  "${JAVA[@]}" io.rafestore.bench.cache.TraceBench "${TRACE_ARGS[@]}" >"$WORK/trace.log" 2>&1 \
    || grep -q '^MISS ' "$WORK/trace.log" || { cat "$WORK/trace.log" >&2; die "TraceBench failed"; }
fi

# --- 5. Write cost -----------------------------------------------------------------------------
# WriteCostBench: cloud requests and dollars per small write with and without group commit,
# against DepSky-A, write-back with group commit (real time: its journal fsyncs are real; the
# acknowledgement against one fsync of the journal disk at three loads: one writer, an open loop
# at half the closed loop's throughput, the closed loop; `--only write-back` runs just that part),
# and the cost objective with one data cloud ten times cheaper (issue 18; design.md section 5,
# "Group commit", and section 7, "The cost model"). Virtual time but for write-back, whose journal goes under $WORK/cost.
# Quick: 1,000 writes and 200 for the cost objective, about a minute (write-back's WAN is real).
if ((QUICK)); then
  COST_ARGS=(--quick --out "$WORK/cost")
else
  COST_ARGS=(--out "$WORK/cost")
fi
if ! reused "$WORK/cost/writecost.md"; then
  say "WriteCostBench ${COST_ARGS[*]}"
  # Exit 1 means a target line says MISS; the report shows it. Other failures stop the run.
  "${JAVA[@]}" io.rafestore.bench.cost.WriteCostBench "${COST_ARGS[@]}" >"$WORK/cost.log" 2>&1 \
    || grep -q '^MISS ' "$WORK/cost.log" || { cat "$WORK/cost.log" >&2; die "WriteCostBench failed"; }
fi
# The write-back rows again on ZGC (design.md, "Collector choice for write-back latency"): the
# backlog's bookkeeping stays on the heap until its upload, and G1's stop-the-world young pauses
# copy it, where ZGC relocates concurrently. `--only write-back` writes writecost-writeback.md.
if ((QUICK)); then
  COST_ZGC_ARGS=(--only write-back --quick --out "$WORK/cost-zgc")
else
  COST_ZGC_ARGS=(--only write-back --out "$WORK/cost-zgc")
fi
if ! reused "$WORK/cost-zgc/writecost-writeback.md"; then
  say "WriteCostBench on ZGC ${COST_ZGC_ARGS[*]}"
  # Exit 1 means the target line says MISS; the report shows it. Other failures stop the run.
  java -Xmx4g -XX:+UseZGC -cp "$JAR" io.rafestore.bench.cost.WriteCostBench "${COST_ZGC_ARGS[@]}" \
    >"$WORK/cost-zgc.log" 2>&1 \
    || grep -q '^MISS ' "$WORK/cost-zgc.log" \
    || { cat "$WORK/cost-zgc.log" >&2; die "WriteCostBench on ZGC failed"; }
fi

# --- 6. Many writers -------------------------------------------------------------------------
# WriterBench: a read of a key written by 1 of W writers, W = 1, 10, 100, 1,000: certified writers
# (the reader holds the operator key alone) and explicit trust, readM by listing and by one GET per
# trusted writer; virtual time (design.md section 5, "readM with many writers").
# Quick: 4 keys per cell, a few seconds.
if ((QUICK)); then
  WRITER_ARGS=(--quick --out "$WORK/writers")
else
  WRITER_ARGS=(--out "$WORK/writers")
fi
if ! reused "$WORK/writers/writers.md"; then
  say "WriterBench ${WRITER_ARGS[*]}"
  # Exit 1 means a target line says MISS; the report shows it. Other failures stop the run.
  "${JAVA[@]}" io.rafestore.bench.writers.WriterBench "${WRITER_ARGS[@]}" >"$WORK/writers.log" 2>&1 \
    || grep -q '^MISS ' "$WORK/writers.log" || { cat "$WORK/writers.log" >&2; die "WriterBench failed"; }
fi

# --- 7. Fairness ------------------------------------------------------------------------------
# InterferenceBench: four kinds of tenant (small random reads, large sequential reads, small and
# large writes) on one client, alone and together, fair scheduling off and on; weights 2:1; a
# reservation (issue 19, seed 001). Virtual time; clouds of limited parallelism (8 requests each).
# Quick: 60 s of virtual time per run (50 measured), 1 MiB large values, 50 keys: about 9 s of
# CPU, numbers not meaningful.
if ((QUICK)); then
  FAIR_ARGS=(--quick --out "$WORK/fairness")
else
  FAIR_ARGS=(--out "$WORK/fairness")
fi
if ! reused "$WORK/fairness/interference.md"; then
  say "InterferenceBench ${FAIR_ARGS[*]}"
  # Exit 1 means a target line says MISS; the report shows it. Other failures stop the run.
  "${JAVA[@]}" io.rafestore.bench.fairness.InterferenceBench "${FAIR_ARGS[@]}" >"$WORK/fairness.log" 2>&1 \
    || grep -q '^MISS ' "$WORK/fairness.log" || { cat "$WORK/fairness.log" >&2; die "InterferenceBench failed"; }
fi

# --- Report -------------------------------------------------------------------------------------
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
read -r BUSY_AFTER STEAL_AFTER <<<"$(cpu_ticks)"
# Stolen time as a share of the CPU time the machine's work used or was denied during this
# invocation; above a few per cent its CPU and real-time figures are the host's, not the code's.
STEAL="$(awk -v b="$((BUSY_AFTER - BUSY_BEFORE))" -v s="$((STEAL_AFTER - STEAL_BEFORE))" \
  'BEGIN { if (b + s > 0) printf "%.1f %%", 100 * s / (b + s); else print "unknown" }')"
ELAPSED=$((SECONDS - START))
CPU_MODEL="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)"
CPUS="$(nproc 2>/dev/null || echo '?')"
MEM="$(awk '/^MemTotal/ {printf "%.1f GB", $2 / 1048576}' /proc/meminfo 2>/dev/null || echo unknown)"
JAVA_VERSION="$(java -version 2>&1 | head -3)"
cp "$PAPER_DIR"/latency-config*.svg "$OUT/img/"
cp "$WORK/fairness/fairness-slowdown.svg" "$OUT/img/"
[[ -f "$WORK/trace/trace-latency.svg" ]] && cp "$WORK/trace/trace-latency.svg" "$OUT/img/"
# The layout chosen per value size (issue 16), when a protocol chose one.
rm -f "$OUT/img/layout-chosen.svg"
[[ -f "$PAPER_DIR/layout-chosen.svg" ]] && cp "$PAPER_DIR/layout-chosen.svg" "$OUT/img/"
cp "$PAPER_DIR/results.csv" "$OUT/img/paper-results.csv" 2>/dev/null || true
# The virtual-time run's plots and CSV, under names of their own.
rm -f "$OUT"/img/virtual-*.svg
for f in "$VIRT_DIR"/latency-config*.svg "$VIRT_DIR"/layout-chosen.svg; do
  if [[ -f "$f" ]]; then
    cp "$f" "$OUT/img/virtual-$(basename "$f")"
  fi
done
cp "$VIRT_DIR/results.csv" "$OUT/img/paper-virtual-results.csv" 2>/dev/null || true

# A JMH CSV as a Markdown table: benchmark, the parameters that vary, score, error, unit.
jmh_table() {
  awk -F',' '
    function unq(s) { gsub(/^"|"$/, "", s); return s }
    { sub(/\r$/, "") }
    NR == 1 {
      for (i = 1; i <= NF; i++) { h[i] = unq($i); if (h[i] ~ /^Param: /) p[++np] = i }
      printf "| benchmark |"; for (k = 1; k <= np; k++) { n = h[p[k]]; sub(/^Param: /, "", n); printf " %s |", n }
      printf " score | error (99.9%%) | unit |\n|---|"; for (k = 1; k <= np; k++) printf "---|"; print "---:|---:|---|"
      next
    }
    {
      b = unq($1); sub(/^io\.rafestore\.bench\.jmh\./, "", b)
      printf "| %s |", b; for (k = 1; k <= np; k++) printf " %s |", unq($p[k])
      err = unq($6); if (err == "NaN") err = "n/a (1 iteration)"; else err = sprintf("%.2f", err)
      printf " %.2f | %s | %s |\n", unq($5), err, unq($7)
    }' "$1"
}

# Issue 16's CPU targets from the JMH CSV: best RafeStore mode, 1 KB, microseconds per operation,
# for the default signer (bc: BouncyCastle's Ed25519), with the JDK's signer beside it. A read of a
# changed key must verify one new signature: Ed25519Benchmark.verify (DEFAULT) is its floor.
cpu_targets() {
  awk -F',' '
    function unq(s) { gsub(/^"|"$/, "", s); return s }
    { sub(/\r$/, "") }
    NR == 1 { for (i = 1; i <= NF; i++) { h[unq($i)] = i }; next }
    unq($1) ~ /Ed25519Benchmark\.verify/ && unq($h["Param: impl"]) == "DEFAULT" { floor = unq($5) + 0 }
    unq($1) ~ /ClientCpuBenchmark/ && unq($h["Param: size"]) == "1024" {
      m = unq($h["Param: mode"]); if (m != "PAPER" && m != "FAST") next
      sg = ("Param: signer" in h) ? unq($h["Param: signer"]) : "bc"
      b = unq($1); sub(/.*\./, "", b); s = unq($5) + 0; k = b SUBSEP sg
      if (!(k in best) || s < best[k]) { best[k] = s; who[k] = m }
    }
    END {
      n = split("write:100:1 KB write|readAfterChange:50:read of a changed key|readLatest:50:read of an unchanged key", t, "|")
      for (i = 1; i <= n; i++) {
        split(t[i], kv, ":")
        k = kv[1] SUBSEP "bc"; j = kv[1] SUBSEP "jdk"
        if (!(k in best)) { printf "SKIP  client CPU per %s (not run)\n", kv[3]; continue }
        extra = (j in best) ? sprintf("; the JDK signer: %.1f us (%s)", best[j], who[j]) : ""
        if (kv[1] == "readAfterChange" && floor > 0) extra = extra sprintf("; one Ed25519 verification alone: %.1f us", floor)
        printf "%s  client CPU per %s <= %d us (zero-latency clouds, default signer): %.1f us (%s)%s\n", \
          (best[k] <= kv[2] ? "PASS" : "MISS"), kv[3], kv[2], best[k], who[k], extra
      }
    }' "$1"
}

# The lines between the fences after results.md's "## Targets" heading.
targets_of() { awk '/^## Targets/ {t = 1; next} t && /^```/ {f++; next} t && f == 1' "$1"; }
PAPER_TARGETS="$(targets_of "$PAPER_DIR/results.md")"
# The virtual run's lines, each marked after its verdict so that they read apart from the
# real-time ones and still start with PASS/MISS.
VIRT_TARGETS="$(targets_of "$VIRT_DIR/results.md" \
  | sed -E 's/^(PASS|MISS|SKIP|SHAPE OK|SHAPE DIFFERS)  /\1  (virtual time + CPU) /')"
CPU_TARGETS="$(cpu_targets "$WORK/jmh-main.csv")"
SCALE_TARGETS="$(grep -E '^(PASS|MISS)' "$WORK/scale/scale.md" || true)"
TRACE_TARGETS="$(grep -E '^(PASS|MISS)' "$WORK/trace/trace.md" || true)"
COST_TARGETS="$(grep -E '^(PASS|MISS)' "$WORK/cost/writecost.md" || true)"
COST_ZGC_TARGETS="$(grep -E '^(PASS|MISS)' "$WORK/cost-zgc/writecost-writeback.md" || true)"
WRITER_TARGETS="$(grep -E '^(PASS|MISS)' "$WORK/writers/writers.md" || true)"
FAIR_TARGETS="$(grep -E '^(PASS|MISS)' "$WORK/fairness/interference.md" || true)"
PAPER_HEADER="$(grep -m1 '^PaperBench: profile' "$PAPER_DIR/../paper.log" 2>/dev/null || grep -m1 '^Profile' "$PAPER_DIR/results.md" || true)"
NOTES="$ROOT/rafestore-bench/report-notes.md"

THIS_CMD="scripts/bench.sh${ARGS_AS_GIVEN:+ $ARGS_AS_GIVEN}"
REPORT="$OUT/benchmarks.md"
{
  echo "# RafeStore benchmarks"
  echo
  echo "Generated by \`$THIS_CMD\` on $DATE_START in $((ELAPSED / 60)) min $((ELAPSED % 60)) s."
  echo "Do not edit by hand: change the code or \`rafestore-bench/report-notes.md\` and run the"
  echo "command again. Full mode (this file, \`docs/benchmarks.md\`): \`scripts/bench.sh\`;"
  echo "CI smoke: \`scripts/bench.sh --quick\` (report in \`target/bench-quick/\`)."
  if ((QUICK)); then
    echo
    echo "**Quick (smoke) mode: tiny settings, numbers not meaningful.**"
  fi
  if ((${#REUSED[@]})); then
    echo
    echo "Reused from an earlier run of this script (\`--reuse\`): ${REUSED[*]}."
  fi
  echo
  echo "## Machine"
  echo
  echo "* CPU: $CPU_MODEL, $CPUS logical CPUs (shared with other work: see the load)"
  echo "* Memory: $MEM"
  echo "* Load average (1, 5, 15 min): $LOAD_BEFORE before, $LOAD_AFTER after this invocation"
  echo "* CPU time stolen by the hypervisor during this invocation (\`/proc/stat\`, share of the CPU time used or stolen): $STEAL; above a few per cent another guest had these CPUs, and CPU and real-time figures are slower than the code"
  if ((${#REUSED[@]})) && [[ -f "$WORK/run-info.txt" ]]; then
    echo "* The reused steps ran in: $(cat "$WORK/run-info.txt")"
  fi
  echo "* Java:"
  echo
  echo '```'
  echo "$JAVA_VERSION"
  echo '```'
  echo
  echo "## Targets (issues 7, 16, 17, 18, 19, 21 and 23), each a ratio within one run"
  echo
  echo '```'
  [[ -n "$VIRT_TARGETS" ]] && echo "$VIRT_TARGETS"
  [[ -n "$PAPER_TARGETS" ]] && echo "$PAPER_TARGETS"
  [[ -n "$CPU_TARGETS" ]] && echo "$CPU_TARGETS"
  [[ -n "$SCALE_TARGETS" ]] && echo "$SCALE_TARGETS"
  [[ -n "$TRACE_TARGETS" ]] && echo "$TRACE_TARGETS"
  [[ -n "$COST_TARGETS" ]] && echo "$COST_TARGETS"
  [[ -n "$COST_ZGC_TARGETS" ]] && echo "$COST_ZGC_TARGETS"
  [[ -n "$WRITER_TARGETS" ]] && echo "$WRITER_TARGETS"
  [[ -n "$FAIR_TARGETS" ]] && echo "$FAIR_TARGETS"
  echo '```'
  echo
  if [[ -f "$NOTES" ]]; then
    cat "$NOTES"
    echo
  fi
  echo "## 1a. Paper reproduction on virtual time + CPU (PaperBench --virtual)"
  echo
  echo "Command: \`$VIRT_CMD\`"
  echo
  echo "Virtual time at time scale 1 (the profile's own RTTs and bandwidths), each operation's"
  echo "CPU time on the bench thread measured beside its virtual latency; latency columns, plots"
  echo "and the target lines marked \"(virtual time + CPU)\" above are their sum. The virtual"
  echo "columns are deterministic; the CPU ones are this machine's. See \"Virtual time\" above."
  echo
  for c in 1 2 3; do
    if [[ -f "$OUT/img/virtual-latency-config$c-write.svg" ]]; then
      echo "![Configuration $c, writes, virtual time + CPU](img/virtual-latency-config$c-write.svg)"
      echo "![Configuration $c, reads, virtual time + CPU](img/virtual-latency-config$c-read.svg)"
      echo
    fi
  done
  if [[ -f "$OUT/img/virtual-layout-chosen.svg" ]]; then
    echo "![The layout FAST_AUTO chose at each size on virtual time](img/virtual-layout-chosen.svg)"
    echo
  fi
  # results.md without its title, the floors table (the same as in 1b) and the targets.
  sed '1{/^# /d}' "$VIRT_DIR/results.md" | sed '/^## Targets/,$d' \
    | awk '/^## Write floors/ {skip = 1; next} /^## / {skip = 0} !skip'
  echo
  echo "## 1b. Paper reproduction on time-scaled real time (PaperBench)"
  echo
  echo "Command: \`$PAPER_CMD\`"
  [[ -n "$PAPER_HEADER" ]] && { echo; echo "    $PAPER_HEADER"; }
  echo
  for c in 1 2 3; do
    if [[ -f "$OUT/img/latency-config$c-write.svg" ]]; then
      echo "![Configuration $c, writes](img/latency-config$c-write.svg)"
      echo "![Configuration $c, reads](img/latency-config$c-read.svg)"
      echo
    fi
  done
  if [[ -f "$OUT/img/layout-chosen.svg" ]]; then
    echo "![The layout FAST_AUTO chose at each size, per configuration](img/layout-chosen.svg)"
    echo
  fi
  # results.md without its own title and without the targets (shown above).
  sed '1{/^# /d}' "$PAPER_DIR/results.md" | sed '/^## Targets/,$d'
  echo
  echo "## 2. Client CPU per operation and crypto/coding throughput (JMH)"
  echo
  echo "Commands: \`java ${JMH_PROPS[*]:+${JMH_PROPS[*]} }-jar rafestore-bench/target/benchmarks.jar '$JMH_SUITES' ${JMH_MAIN[*]}\`"
  echo "and \`java -jar rafestore-bench/target/benchmarks.jar AeadBenchmark ${JMH_AEAD[*]}\`."
  echo "ClientCpuBenchmark: f = 1, four in-memory clouds with zero latency, all work on the"
  echo "benchmark thread; us/op is the client's CPU per operation. Throughput suites: ops/s."
  echo
  jmh_table "$WORK/jmh-main.csv"
  echo
  jmh_table "$WORK/jmh-aead.csv"
  echo
  echo "## 3. Scale: one client, many operations in flight (ScaleBench)"
  echo
  echo "Command: \`java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.scale.ScaleBench ${SCALE_ARGS[*]/#$ROOT\//}\`"
  echo
  cat "$WORK/scale/scale.md"
  echo
  echo "## 4. Read tier: cache and prefetching on Tombolo's access mix (TraceBench)"
  echo
  echo "Command: \`java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.cache.TraceBench ${TRACE_ARGS[*]/#$ROOT\//}\`"
  echo "Virtual time: the WAN (Table 1 RTTs, bandwidth, jitter) is modelled, the client's CPU takes"
  echo "no time, so a read answered from the cache costs 0 ms. Reads name versions; a miss pays"
  echo "readM and the fetch. See design.md section 5, \"The read tier\"."
  echo
  cat "$WORK/trace/trace.md"
  echo
  echo "## 5. Write cost: group commit, DepSky-A and the cost objective (WriteCostBench)"
  echo
  echo "Command: \`java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.cost.WriteCostBench ${COST_ARGS[*]/#$ROOT\//}\`"
  echo "Virtual time: the WAN (Table 1 RTTs, bandwidth, jitter) is modelled, the client's CPU takes"
  echo "no time. Requests and dollars are the client's \`stats()\` after it is idle. See design.md"
  echo "section 5, \"Group commit\", and section 7, \"The cost model\"."
  echo
  cat "$WORK/cost/writecost.md"
  echo
  echo "### The write-back rows on ZGC"
  echo
  echo "Command: \`java -Xmx4g -XX:+UseZGC -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.cost.WriteCostBench ${COST_ZGC_ARGS[*]/#$ROOT\//}\`"
  echo "The same write-back rows in a second JVM on ZGC, beside the run above on the JVM's default"
  echo "collector (each section names its collector, and so does its target line): each"
  echo "acknowledged write's bookkeeping stays on the heap until its upload, so G1's stop-the-world"
  echo "young pauses copy the backlog, where ZGC relocates it concurrently. See design.md,"
  echo "\"Collector choice for write-back latency\"."
  echo
  cat "$WORK/cost-zgc/writecost-writeback.md"
  echo
  echo "## 6. Many writers: readM by listing and by one GET per writer (WriterBench)"
  echo
  echo "Command: \`java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.writers.WriterBench ${WRITER_ARGS[*]/#$ROOT\//}\`"
  echo "Virtual time: the WAN (Table 1 RTTs, bandwidth, jitter) is modelled, the client's CPU takes"
  echo "no time. LISTING is the mode certified writers need (a reader cannot enumerate them);"
  echo "PER_WRITER is explicit trust as before. See design.md section 5, \"readM with many writers\"."
  echo
  cat "$WORK/writers/writers.md"
  echo
  echo "## 7. Fairness: tenants interfering (InterferenceBench)"
  echo
  echo "Command: \`java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.fairness.InterferenceBench ${FAIR_ARGS[*]/#$ROOT\//}\`"
  echo "Virtual time: the WAN (Table 1 RTTs, bandwidth, jitter) is modelled, and every cloud serves"
  echo "at most 8 requests at once (FIFO beyond, \`WanEmulator.Link.maxConcurrent\`); the client's"
  echo "CPU takes no time. Columns: ops/s and MB/s are a tenant's operations (and their payload"
  echo "bytes) completed in the measured window per virtual second; p50/p99 their latency; slowdown"
  echo "is the tenant's ops/s alone (same fairness setting) over its ops/s in that run."
  echo
  echo "![Each tenant's slowdown together vs alone, fairness off and on](img/fairness-slowdown.svg)"
  echo
  cat "$WORK/fairness/interference.md"
} >"$REPORT"

if ((${#REUSED[@]} == 0)); then
  echo "\`$THIS_CMD\` started $DATE_START, took $((ELAPSED / 60)) min $((ELAPSED % 60)) s, load average $LOAD_BEFORE before, $LOAD_AFTER after, CPU time stolen $STEAL" \
    >"$WORK/run-info.txt"
fi
say "wrote $REPORT and $OUT/img/ in $((ELAPSED / 60))m$((ELAPSED % 60))s (load $LOAD_BEFORE -> $LOAD_AFTER, CPU time stolen $STEAL)"
if awk -v s="${STEAL%% *}" 'BEGIN { exit !(s + 0 > 5) }'; then
  say "WARNING: $STEAL of the CPU time was stolen by the hypervisor: another guest shared these CPUs, so the CPU and real-time figures of this run are not the code's; run again on a quiet host before committing them"
fi
echo "$VIRT_TARGETS"
echo "$PAPER_TARGETS"
echo "$CPU_TARGETS"
echo "$SCALE_TARGETS"
echo "$TRACE_TARGETS"
echo "$COST_TARGETS"
echo "$COST_ZGC_TARGETS"
echo "$WRITER_TARGETS"
echo "$FAIR_TARGETS"
