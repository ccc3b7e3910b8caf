package io.rafestore.bench.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        .contains("Little's law for the closed loop: 16 writers");
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
        .doesNotContain("DepSky-A");
    assertThat(report.lines().filter(l -> l.startsWith("PASS ") || l.startsWith("MISS ")).toList())
        .singleElement()
        .asString()
        .contains("at half load (open loop, Poisson")
        .contains("unloaded (one writer)")
        .contains("Little's law 16 /");
  }
}
