package io.rafestore.bench.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.Prefetch;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TraceBench's report: the quick run's tables, target lines and its latency plot. */
class TraceBenchTest {

  @Test
  void aQuickRunWritesTheReportAndThePlotItNames(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        TraceBench.run(
            new String[] {"--quick", "--out", dir.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = Files.readString(dir.resolve("trace.md"), StandardCharsets.UTF_8);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8) + report).isIn(0, 1);
    assertThat(report)
        .contains("| HISTORY |")
        .contains("history+sequential miss ratio")
        .contains("](img/" + TraceBench.PLOT + ")");
    String svg = Files.readString(dir.resolve(TraceBench.PLOT), StandardCharsets.UTF_8);
    assertThat(svg).startsWith("<svg").endsWith("</svg>\n");
    assertThat(count(svg, "<polyline")).isEqualTo(Prefetch.Mode.values().length);
  }

  /**
   * A mode whose reads all hit draws a line straight up at 0 ms to 1.0; one whose reads all took
   * 100 ms stays at 0 until 100 ms: the plot is the share of reads within each latency.
   */
  @Test
  void eachLineIsTheShareOfReadsWithinEachLatency() {
    Map<Prefetch.Mode, TraceBench.Result> results = new EnumMap<>(Prefetch.Mode.class);
    results.put(Prefetch.Mode.OFF, result(Prefetch.Mode.OFF, new double[] {100, 100, 100, 100}));
    results.put(Prefetch.Mode.HISTORY, result(Prefetch.Mode.HISTORY, new double[] {0, 0, 0, 0}));
    String svg = TraceBench.latencyPlot(results);
    Matcher m = Pattern.compile("<polyline [^>]*points=\"([^\"]*)\"").matcher(svg);
    assertThat(m.find()).isTrue();
    String off = m.group(1);
    assertThat(m.find()).isTrue();
    String history = m.group(1);
    // Plot area: x from 60 to 470 (0 to 100 ms), y from 350 (share 0) to 30 (share 1).
    assertThat(off).isEqualTo("60,350.0 470.0,30.0");
    assertThat(history).isEqualTo("60,350.0 60.0,30.0");
    assertThat(svg).contains("off (p90 100 ms)").contains("history (p90 0 ms)");
  }

  private static TraceBench.Result result(Prefetch.Mode mode, double[] ms) {
    return new TraceBench.Result(mode, ms.length, 0, 0, ms, Map.of(), Map.of(), 0, null);
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }
}
