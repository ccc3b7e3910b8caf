package io.rafestore.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs ScaleBench briefly and checks its outputs; no throughput is asserted (shared machine). */
class ScaleBenchTest {

  @Test
  void shortRunWritesTableAndCsv(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ScaleBench.run(
            new String[] {
              "--levels",
              "1,4",
              "--seconds",
              "0.3",
              "--warmup",
              "0.1",
              "--jit-warmup",
              "0.2",
              "--rtt-ms",
              "5",
              "--modes",
              "FAST",
              "--ops",
              "write,read",
              "--executors",
              "pool",
              "--out",
              dir.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    // One unmeasured warm-up per op, before the rows, at the highest level; not in the table.
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("JIT warm-up, not measured: write FAST executor pool in flight 4 for 0.2 s")
        .contains("JIT warm-up, not measured: read FAST executor pool in flight 4 for 0.2 s");
    List<String> csv = Files.readAllLines(dir.resolve("scale.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(5); // header + {write, read} x {1, 4}
    for (String line : csv.subList(1, csv.size())) {
      String[] cells = line.split(",");
      assertThat(Long.parseLong(cells[4])).as(line).isPositive(); // completed
      assertThat(Long.parseLong(cells[5])).as(line).isZero(); // failed
      assertThat(Integer.parseInt(cells[10])).as(line).isPositive(); // peak threads
    }
    assertThat(Files.readString(dir.resolve("scale.md"), StandardCharsets.UTF_8))
        .contains("| op | mode | executor | in flight |");
  }

  @Test
  void targetLinesGiveTheRatioAndTheThreadsTheClientAdded() {
    List<ScaleBench.Level> results =
        List.of(
            new ScaleBench.Level(
                "write", io.rafestore.ProtocolMode.FAST, "default", 1, 100, 0, 10, 100, 11, 900),
            new ScaleBench.Level(
                "write",
                io.rafestore.ProtocolMode.FAST,
                "default",
                1000,
                50_000,
                0,
                10,
                200,
                16,
                300),
            new ScaleBench.Level(
                "read", io.rafestore.ProtocolMode.FAST, "default", 1, 100, 0, 10, 100, 11, 900),
            new ScaleBench.Level(
                "read",
                io.rafestore.ProtocolMode.FAST,
                "default",
                1000,
                40_000,
                0,
                10,
                200,
                17,
                300));
    // 6 threads before any client, 2 in the clouds' pool, 2 CPUs: the client may add 8.
    List<String> lines = ScaleBench.targets(results, 6, 2, 2);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .startsWith("PASS  write FAST executor default: 1000 in flight give 500 x")
        .contains("8 added by the client (target <= 4 x 2 CPUs = 8)");
    // 400 x, and 9 threads added: missed twice.
    assertThat(lines.get(1))
        .startsWith("MISS  read FAST")
        .contains("give 400 x")
        .contains("9 added");
  }

  @Test
  void rejectsUnknownOptions() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    assertThat(ScaleBench.run(new String[] {"--executors", "threads"}, e, e)).isEqualTo(2);
    assertThat(ScaleBench.run(new String[] {"--bogus"}, e, e)).isEqualTo(2);
  }
}
