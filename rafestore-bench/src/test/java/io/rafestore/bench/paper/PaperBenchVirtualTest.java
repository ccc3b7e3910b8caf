package io.rafestore.bench.paper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.MemoryCloud;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code PaperBench --virtual}: latencies on virtual time at time scale 1, the CPU time measured
 * beside them. The virtual part is the network alone, so it is asserted exactly against the profile
 * and across runs; the CPU part only for being there.
 */
class PaperBenchVirtualTest {

  private static List<Result> run(Path dir) throws Exception {
    PaperBench.Options o =
        PaperBench.Options.parse(
            "--virtual",
            "--out",
            dir.toString(),
            "--configs",
            "2",
            "--protocols",
            "FAST,FAST_INLINE,DEPSKY_A",
            "--sizes",
            "1K,64K",
            "--ops",
            "4");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    return PaperBench.run(o, new PrintStream(log, true, StandardCharsets.UTF_8));
  }

  @Test
  void fastSmallReadTakesOneQuorumRoundTripAndRunsRepeat(@TempDir Path dir) throws Exception {
    List<Result> first = run(dir.resolve("a"));
    List<Result> second = run(dir.resolve("b"));

    // The physics: a FAST 1 KB read hears n - f clouds (one round trip to the (n-f)-th fastest)
    // and fetches 1 KB from the nearest holder meanwhile, so it takes that round trip, give or
    // take the profile's jitter and the few kilobytes' transfer.
    WanProfile profile = WanProfile.load(WanProfile.DEFAULT);
    double quorumRtt = Floors.quorumRttMs(profile, profile.arrangement(2), PaperBench.F);
    Result read = find(first, Protocol.FAST, 1024, "read");
    assertThat(read.failures()).isZero();
    assertThat(read.virtual().measured()).isTrue();
    assertThat(read.virtual().medianMs())
        .isBetween(quorumRtt * (1 - profile.jitter()), quorumRtt * (1 + profile.jitter()) + 10);

    // Deterministic apart from the CPU: every cell's virtual latencies and counts, twice.
    assertThat(first).hasSameSizeAs(second);
    for (int i = 0; i < first.size(); i++) {
      Result a = first.get(i);
      Result b = second.get(i);
      String cell = a.mode() + " " + a.sizeBytes() + " " + a.op();
      assertThat(List.of(b.mode(), b.sizeBytes(), b.op()))
          .as(cell)
          .isEqualTo(List.of(a.mode(), a.sizeBytes(), a.op()));
      assertThat(a.failures()).as(cell).isZero();
      assertThat(virtualColumns(b)).as(cell).isEqualTo(virtualColumns(a));
      assertThat(b.perCloud()).as(cell).isEqualTo(a.perCloud());
      assertThat(b.onlyFPlusOne()).as(cell).isEqualTo(a.onlyFPlusOne());
      // virtual + CPU: the CPU is real and never negative.
      assertThat(a.medianMs()).as(cell).isGreaterThanOrEqualTo(a.virtual().medianMs());
      assertThat(a.virtual().cpuMedianMs()).as(cell).isPositive();
    }

    // The report says what its latencies and targets are, and the CSV carries both parts.
    String md = Files.readString(dir.resolve("a").resolve(Reports.MARKDOWN));
    assertThat(md).contains("virtual time").contains("virtual median ms").contains("CPU median ms");
    assertThat(md).contains("computed from virtual time + CPU");
    assertThat(md).containsPattern("(PASS|MISS)  issue 16: best read, 1-64KB, <= 1.1 x its floor");
    List<String> csv = Files.readAllLines(dir.resolve("a").resolve(Reports.CSV));
    assertThat(csv.get(0)).contains("virtual_median_ms", "cpu_median_ms");
    assertThat(Files.exists(dir.resolve("a").resolve("latency-config2-read.svg"))).isTrue();
  }

  private static List<Double> virtualColumns(Result r) {
    List<Double> v = new ArrayList<>();
    v.add(r.virtual().medianMs());
    v.add(r.virtual().p90Ms());
    v.add(r.virtual().p99Ms());
    v.add(r.floorMs());
    v.add(r.costPer10kUsd());
    return v;
  }

  private static Result find(List<Result> results, Protocol mode, long size, String op) {
    return results.stream()
        .filter(r -> r.mode() == mode && r.sizeBytes() == size && r.op().equals(op))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void badCombinationsAreRefusedNamingBothOptions() {
    assertThatThrownBy(() -> PaperBench.Options.parse("--virtual", "--time-scale", "0.5"))
        .hasMessageContaining("--time-scale")
        .hasMessageContaining("--virtual");
    assertThatThrownBy(() -> PaperBench.Options.parse("--time-scale", "0.5", "--virtual"))
        .hasMessageContaining("--time-scale")
        .hasMessageContaining("--virtual");
    assertThatThrownBy(() -> PaperBench.Options.parse("--virtual", "--parallel-configs"))
        .hasMessageContaining("--parallel-configs")
        .hasMessageContaining("--virtual");
    assertThat(PaperBench.Options.parse("--virtual", "--quick").virtual).isTrue();

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    assertThat(PaperBench.run(new String[] {"--virtual", "--time-scale", "0.1"}, o, e))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--time-scale", "--virtual");
    // External clouds answer in real time: not with virtual time.
    assertThat(PaperBench.run(new String[] {"--virtual"}, o, e, id -> new MemoryCloud(id)))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--clouds-from");
  }
}
