package io.rafestore.bench.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs WriteCostBench small (virtual time: its counts do not depend on the machine) and checks its
 * report: every variant wrote everything (write-back too, on real time, its journal under the
 * report's directory), DepSky-A paid its 3 x n requests per write, and the six target lines are
 * there (whether they pass is the full run's business, not a unit test's).
 */
class WriteCostBenchTest {

  @Test
  void aSmallRunWritesItsReportWithTheTargetLines(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        WriteCostBench.run(
            new String[] {
              "--writes",
              "200",
              "--writers",
              "16",
              "--keys",
              "2",
              "--cost-writes",
              "40",
              "--fsyncs",
              "20",
              "--single-writes",
              "50",
              "--warmup",
              "50",
              "--jit-warmup",
              "0",
              "--latency-writes",
              "300",
              "--out",
              dir.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = Files.readString(dir.resolve("writecost.md"), StandardCharsets.UTF_8);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8) + report).isBetween(0, 1);
    assertThat(report)
        .contains("| DepSky-A | 200 | 0 | 12.00 |")
        .contains("| write-through | 200 | 0 |")
        .contains("| write-through + group commit | 200 | 0 |")
        .contains("| write-back + group commit | 200 | 0 |")
        .contains("fsyncs of a 1 KB append there");
    assertThat(report.lines().filter(l -> l.startsWith("PASS ") || l.startsWith("MISS ")).count())
        .isEqualTo(6);
    assertThat(report)
        .contains("| unloaded: one writer, closed loop | 1 | - |")
        .contains("| half load: open loop, Poisson arrivals")
        .contains("| saturated: closed loop")
        .contains("Little's law for the closed loop: 16 writers")
        .contains("| GCs (ms) in run | JIT ms in run |")
        .contains(
            "JIT warm-up, not measured: 1 loop of the same writers, 50 writes in all (1 closed; 0 open")
        .contains("| 300 |")
        .containsPattern(
            "On the clouds: [0-9.]+ writes/s \\(200 writes / [0-9.]+ s from the first");
    // The burst sentence appears exactly when the half-load rate is above the drain.
    double drain =
        Double.parseDouble(report.replaceFirst("(?s).*On the clouds: ([0-9.]+) writes/s.*", "$1"));
    double offered =
        Double.parseDouble(
            report
                .replaceFirst("(?s).*\\| half load: [^|]*\\| 16 \\| ([0-9,]+) \\|.*", "$1")
                .replace(",", ""));
    assertThat(report.contains("a burst the journal absorbs"))
        .as("drain %s, offered %s", drain, offered)
        .isEqualTo(offered > drain);
    assertThat(report.contains("the half-load rate is a burst above the sustained drain"))
        .isEqualTo(offered > drain);
    assertThat(tableRows(report)).hasSize(3).allMatch(r -> r.split("\\|", -1).length == 16);
  }

  @Test
  void onlyTheWriteBackPartReportsItsThreeLoadsAndOneTargetLine(@TempDir Path dir)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        WriteCostBench.run(
            new String[] {
              "--only",
              "write-back",
              "--writes",
              "200",
              "--writers",
              "16",
              "--keys",
              "2",
              "--fsyncs",
              "20",
              "--single-writes",
              "50",
              "--warmup",
              "0",
              "--jit-warmup",
              "0.3",
              "--latency-writes",
              "200",
              "--out",
              dir.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = Files.readString(dir.resolve("writecost-writeback.md"), StandardCharsets.UTF_8);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8) + report).isBetween(0, 1);
    assertThat(report)
        .contains("| unloaded: one writer, closed loop | 1 | - |")
        .contains("| 50 |")
        .contains("| half load: open loop, Poisson arrivals")
        .contains("| saturated: closed loop")
        .doesNotContain("DepSky-A")
        .doesNotContain("On the clouds:")
        .contains("measured by the full run only")
        .contains("| GCs (ms) in run | JIT ms in run |");
    // The time-based warm-up ran (--warmup 0: only --jit-warmup's loops of --writes writes) for
    // at least its 0.3 s: whole loops of 200 writes until then.
    String warm =
        report.replaceFirst(
            "(?s).*JIT warm-up, not measured: (\\d+) loops? of the same writers, ([0-9,]+) writes in"
                + " all \\((\\d+) closed; (\\d+) open, [^)]*\\), each on a fresh client and journal,"
                + " over ([0-9.]+) s.*",
            "$1 $2 $3 $4 $5");
    String[] w = warm.split(" ");
    assertThat(w).as(report).hasSize(5);
    int runs = Integer.parseInt(w[0]);
    assertThat(runs).isGreaterThanOrEqualTo(1);
    assertThat(Integer.parseInt(w[1].replace(",", ""))).isEqualTo(200 * runs);
    // Closed first, then open and closed by turns.
    assertThat(Integer.parseInt(w[2])).isEqualTo((runs + 1) / 2);
    assertThat(Integer.parseInt(w[3])).isEqualTo(runs / 2);
    assertThat(Double.parseDouble(w[4])).isGreaterThanOrEqualTo(0.3);
    assertThat(tableRows(report)).hasSize(3).allMatch(r -> r.split("\\|", -1).length == 16);
    assertThat(report).contains("| 200 |");
    assertThat(report.lines().filter(l -> l.startsWith("PASS ") || l.startsWith("MISS ")).toList())
        .singleElement()
        .asString()
        .contains("at half load (open loop, Poisson")
        .contains("unloaded (one writer)")
        .contains("Little's law 16 /");
    // The JVM's collector is named, in the section and in the target line (two JVMs' lines told
    // apart): this JVM's, from its GC beans.
    String collector = WriteCostBench.collector();
    assertThat(collector).isNotBlank().isNotEqualTo("none");
    assertThat(report)
        .contains("Collector: " + collector + " (GC beans: ")
        .containsPattern("half the closed loop's throughput\\) on " + collector + ": p99 ");
  }

  @Test
  void theCollectorIsNamedFromItsBeansAndOnlyPausesAreCountedWhereABeanCountsThem() {
    List<String> g1 = List.of("G1 Young Generation", "G1 Old Generation");
    List<String> zgc = List.of("ZGC Cycles", "ZGC Pauses");
    List<String> shenandoah = List.of("Shenandoah Pauses", "Shenandoah Cycles");
    List<String> parallel = List.of("PS MarkSweep", "PS Scavenge");
    assertThat(WriteCostBench.collectorName(g1)).isEqualTo("G1");
    assertThat(WriteCostBench.collectorName(zgc)).isEqualTo("ZGC");
    assertThat(WriteCostBench.collectorName(List.of("ZGC"))).isEqualTo("ZGC");
    assertThat(WriteCostBench.collectorName(shenandoah)).isEqualTo("Shenandoah");
    assertThat(WriteCostBench.collectorName(parallel)).isEqualTo("PS MarkSweep + PS Scavenge");
    assertThat(WriteCostBench.collectorName(List.of("Copy", "MarkSweepCompact")))
        .isEqualTo("Copy + MarkSweepCompact");
    assertThat(WriteCostBench.collectorName(List.of("G1 Young Generation", "PS Scavenge")))
        .isEqualTo("G1 Young Generation + PS Scavenge");
    assertThat(WriteCostBench.collectorName(List.of())).isEqualTo("none");
    // G1: every bean counted (each collection a pause), as before; ZGC: the pauses only.
    assertThat(g1).allMatch(n -> WriteCostBench.countsAsGc(n, g1));
    assertThat(WriteCostBench.countsAsGc("ZGC Pauses", zgc)).isTrue();
    assertThat(WriteCostBench.countsAsGc("ZGC Cycles", zgc)).isFalse();
    assertThat(WriteCostBench.countsAsGc("Shenandoah Cycles", shenandoah)).isFalse();
    assertThat(WriteCostBench.collectorLine("G1", g1))
        .startsWith("Collector: G1 (GC beans: G1 Young Generation, G1 Old Generation).")
        .contains("count the collections of G1 Young Generation and G1 Old Generation (each a")
        .doesNotContain("concurrent");
    assertThat(WriteCostBench.collectorLine("ZGC", zgc))
        .startsWith("Collector: ZGC (GC beans: ZGC Cycles, ZGC Pauses).")
        .contains("count the pauses (ZGC Pauses)")
        .contains("not the concurrent work (ZGC Cycles)");
    // This JVM: named, and the totals count only what countsAsGc keeps.
    List<String> mine =
        java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
            .map(b -> b.getName())
            .toList();
    assertThat(WriteCostBench.collector()).isEqualTo(WriteCostBench.collectorName(mine));
    long counted =
        java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
            .filter(b -> WriteCostBench.countsAsGc(b.getName(), mine))
            .mapToLong(b -> Math.max(0, b.getCollectionCount()))
            .sum();
    assertThat(WriteCostBench.gcTotals()[0]).isGreaterThanOrEqualTo(counted);
  }

  /** The rows of the acknowledgement table (one per load). */
  private static java.util.List<String> tableRows(String report) {
    return report
        .lines()
        .filter(
            l ->
                l.startsWith("| unloaded:")
                    || l.startsWith("| half load:")
                    || l.startsWith("| saturated:"))
        .toList();
  }

  private static String[] runBad(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        WriteCostBench.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new String[] {Integer.toString(code), err.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void badOptionsAreRefusedWithTheOptionNamed() {
    String[][] cases = {
      {"--jit-warmup", "abc"},
      {"--jit-warmup", "-1"},
      {"--jit-warmup", "NaN"},
      {"--jit-warmup", "Infinity"},
      {"--jit-warmup"},
      {"--latency-writes", "x"},
      {"--latency-writes", "0"},
      {"--writes", "1.5"},
      {"--warmup", "-3"}
    };
    for (String[] c : cases) {
      String[] r = runBad(c);
      assertThat(r[0]).as(String.join(" ", c) + ": " + r[1]).isEqualTo("2");
      assertThat(r[1]).as(String.join(" ", c)).startsWith("WriteCostBench: " + c[0]);
    }
    assertThat(runBad("--only", "everything")[1]).contains("--only takes write-back");
    assertThat(runBad("--latency-writes", "0")[1]).contains("--latency-writes must be >= 1, was 0");
  }

  @Test
  void aRowAboveTheJournalsDefaultBoundIsRefusedNamingTheOption() {
    String[] entries = runBad("--only", "write-back", "--latency-writes", "100001");
    assertThat(entries[0]).isEqualTo("2");
    assertThat(entries[1])
        .contains("--latency-writes 100,001 exceeds")
        .contains("WriteBack.DEFAULT_MAX_ENTRIES");
    String[] bytes = runBad("--only", "write-back", "--value-bytes", "10000");
    assertThat(bytes[0]).isEqualTo("2");
    assertThat(bytes[1])
        .contains("--latency-writes 50,000 writes of 10,000 bytes")
        .contains("WriteBack.DEFAULT_MAX_BYTES")
        .doesNotContain("--writes 10,000 writes");
    // At the bound exactly, and the defaults, nothing is said.
    assertThat(WriteCostBench.journalBound(100_000, "--latency-writes", 1000)).isEmpty();
    assertThat(WriteCostBench.journalBound(50_000, "--latency-writes", 1000)).isEmpty();
    assertThat(WriteCostBench.journalBound(100_001, "--writes", 1000)).contains("--writes");
  }

  @Test
  void theReportSaysWhenHalfLoadIsABurstAboveTheDrain() {
    double[] ack = new double[100];
    java.util.Arrays.fill(ack, 1.0);
    WriteCostBench.AckRun closed =
        new WriteCostBench.AckRun("closed", 16, 0, ack, 0, 0, 0.1, 0, 0, 0);
    WriteCostBench.AckRun open =
        new WriteCostBench.AckRun("open", 16, 500, ack, 0, 0, 0.2, 1, 15, 42);
    WriteCostBench.AckRun single =
        new WriteCostBench.AckRun("single", 1, 0, ack, 0, 0, 0.2, 0, 0, -1);
    WriteCostBench.Warmup warm = new WriteCostBench.Warmup(3, 1, 6_000, 20.5, 1234, 7, 80);
    double[] fsync = new double[20];
    java.util.Arrays.fill(fsync, 1.0);
    Path journal = Path.of("journals", "writecost-journal-1");
    // 1,000 writes on the clouds in 100 s: 10 writes/s, below the 500 offered.
    WriteCostBench.Result slow = writeBackCounts(ack, java.time.Duration.ofSeconds(100));
    StringBuilder targets = new StringBuilder();
    String report =
        WriteCostBench.ackReport(
            new WriteCostBench.WriteBackRun(
                slow, warm, closed, open, single, fsync, journal, "ext4", 3L << 20, 1024),
            targets);
    assertThat(report)
        .contains("On the clouds: 10.0 writes/s (1,000 writes / 100.0 s")
        .contains("offers 500 writes/s, 50 x that: a burst the journal absorbs")
        .contains(
            "JIT warm-up, not measured: 3 loops of the same writers, 6,000 writes in all (2 closed;"
                + " 1 open, each at half the throughput of the closed loop before it), each on a"
                + " fresh client and journal, over 20.5 s; JIT compilation in it 1234 ms, 7 GCs"
                + " (80 ms)")
        .contains("Heap held by the closed loop's")
        .contains(": 3.0 MiB, ")
        .contains("| 1 (15) | 42 |")
        .contains("| 0 (0) | n/a |");
    assertThat(targets.toString())
        .contains("the half-load rate is a burst above the sustained drain to the clouds (10.0");
    // 1,000 writes in 1 s: 1,000 writes/s, above the 500 offered: no burst said.
    WriteCostBench.Result fast = writeBackCounts(ack, java.time.Duration.ofSeconds(1));
    StringBuilder targets2 = new StringBuilder();
    String report2 =
        WriteCostBench.ackReport(
            new WriteCostBench.WriteBackRun(
                fast, warm, closed, open, single, fsync, journal, "ext4", 0, 1024),
            targets2);
    assertThat(report2).contains("On the clouds: 1000.0 writes/s").doesNotContain("burst");
    assertThat(report2).as("not measured").doesNotContain("Heap held");
    // A negative difference (a short row, a collector counting the heap in pages) is not a size.
    String report3 =
        WriteCostBench.ackReport(
            new WriteCostBench.WriteBackRun(
                fast, warm, closed, open, single, fsync, journal, "ext4", -(2L << 20), 1024),
            new StringBuilder());
    assertThat(report3)
        .contains("Heap held by the closed loop's")
        .contains(": not resolved (-2.0 MiB: less than this measurement resolves")
        .doesNotContain("bytes a write");
    assertThat(targets2.toString()).doesNotContain("burst");
    assertThat(WriteCostBench.warmupLine(new WriteCostBench.Warmup(0, 0, 0, 0, 0, 0, 0)))
        .startsWith("No warm-up");
  }

  /**
   * The counts run of 1,000 write-back writes whose flush ended {@code elapsed} after the first.
   */
  private static WriteCostBench.Result writeBackCounts(double[] ack, java.time.Duration elapsed) {
    return new WriteCostBench.Result(
        "write-back + group commit", 1000, 0, 100, 0.01, ack, elapsed, java.util.Map.of());
  }
}
