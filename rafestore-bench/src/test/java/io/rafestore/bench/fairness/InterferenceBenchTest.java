package io.rafestore.bench.fairness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs InterferenceBench tiny (virtual time: what it measures does not depend on the machine) and
 * checks its report: every run's table rows, the five target lines of issue 19 and the plot
 * (whether the targets pass is the full run's business, not a unit test's).
 */
class InterferenceBenchTest {

  @Test
  void aTinyRunWritesItsReportWithTheTargetLinesAndThePlot(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        InterferenceBench.run(
            new String[] {
              "--seconds", "30",
              "--warmup", "5",
              "--keys", "10",
              "--backlog", "6",
              "--large-bytes", "65536",
              "--chunk-bytes", "16384",
              "--large-values", "2",
              "--out", dir.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = Files.readString(dir.resolve("interference.md"), StandardCharsets.UTF_8);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8) + report).isBetween(0, 1);
    for (String kind : new String[] {"small-read", "large-read", "small-write", "large-write"}) {
      assertThat(report)
          .contains("| " + kind + " alone | off | " + kind + " |")
          .contains("| " + kind + " alone | on | " + kind + " |")
          .contains("| all four together | on | " + kind + " |");
    }
    assertThat(report)
        .contains("| small-read beside large-write | on | small-read |")
        .contains("| two backlogged, weights 2:1 | on | heavy |")
        .contains("beside two backlogged | on | reserved |");
    assertThat(report.lines().filter(l -> l.startsWith("PASS ") || l.startsWith("MISS ")))
        .hasSize(5)
        .anyMatch(l -> l.contains("slowdown vs alone"))
        .anyMatch(l -> l.contains("small-read p99 beside a large-write tenant"))
        .anyMatch(l -> l.contains("Jain's index"))
        .anyMatch(l -> l.contains("weights 2:1"))
        .anyMatch(l -> l.contains("reservation of"));
    // No failed operations in any run (the column before the slowdown).
    assertThat(report.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| run")))
        .allMatch(l -> l.split("\\|")[8].trim().equals("0") || l.startsWith("| ---"));
    String svg = Files.readString(dir.resolve("fairness-slowdown.svg"), StandardCharsets.UTF_8);
    assertThat(svg).startsWith("<svg").contains("fairness off").contains("fairness on");
    assertThat(svg.split("<rect ", -1).length - 1).isEqualTo(8 + 2); // 4 kinds x 2, the legend
  }

  @Test
  void jainsIndexIsOneWhenEqualAndOneOverNWhenOneHasAll() {
    assertThat(InterferenceBench.jain(new double[] {0.5, 0.5, 0.5, 0.5}))
        .isCloseTo(1, within(1e-12));
    assertThat(InterferenceBench.jain(new double[] {1, 0, 0, 0})).isCloseTo(0.25, within(1e-12));
  }
}
