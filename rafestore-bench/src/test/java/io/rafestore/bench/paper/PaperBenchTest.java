package io.rafestore.bench.paper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.rafestore.bench.support.RetainNewestCloud;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * Runs the quick mode on a tiny subset and checks that its outputs exist and parse. No latency is
 * asserted: the build machine is shared and noisy.
 */
class PaperBenchTest {

  @Test
  void quickRunOnTinySubsetWritesParsableOutputs(@TempDir Path dir) throws Exception {
    PaperBench.Options o =
        PaperBench.Options.parse(
            "--quick", "--out", dir.toString(), "--configs", "1", "--sizes", "1K,4K", "--ops", "3");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<Result> results = PaperBench.run(o, new PrintStream(log, true, StandardCharsets.UTF_8));

    // one config x four modes x two sizes x {write, read}
    assertThat(results).hasSize(16);
    assertThat(results).extracting(Result::mode).hasSameElementsAs(Protocol.DEFAULT);
    for (Result r : results) {
      // A failed operation is counted, not timed; whether any fail is not this test's business.
      assertThat(r.ops() + r.failures()).isEqualTo(3);
      if (r.ops() > 0) {
        assertThat(r.medianMs()).isPositive();
        assertThat(r.p90Ms()).isGreaterThanOrEqualTo(r.medianMs());
        assertThat(r.p99Ms()).isGreaterThanOrEqualTo(r.p90Ms());
      }
      assertThat(r.floorMs()).isPositive();
      assertThat(r.perCloud()).hasSize(4);
      if (r.op().equals("write") && r.ops() > 0) {
        assertThat(r.onlyFPlusOne()).isBetween(0, r.ops());
        assertThat(r.perCloud()).allSatisfy(u -> assertThat(u.requests()).isPositive());
      } else if (r.op().equals("read")) {
        assertThat(r.onlyFPlusOne()).isEqualTo(-1);
      }
    }

    List<String> csv = Files.readAllLines(dir.resolve(Reports.CSV), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(17);
    String[] header = csv.get(0).split(",");
    assertThat(header).contains("median_ms", "only_f_plus_1", "p0_requests", "p3_bytes_down");
    for (String line : csv.subList(1, csv.size())) {
      String[] cells = line.split(",");
      assertThat(cells).hasSameSizeAs(header);
      assertThat(Integer.parseInt(cells[4]) + Integer.parseInt(cells[5])).isEqualTo(3);
      assertThat(Double.parseDouble(cells[6])).isNotNegative(); // median_ms (NaN if all failed)
      assertThat(Double.parseDouble(cells[13])).isNotNegative(); // cost
    }

    String md = Files.readString(dir.resolve(Reports.MARKDOWN), StandardCharsets.UTF_8);
    assertThat(md).containsPattern("(PASS|MISS)  best RafeStore write median <= 0.5 x DepSky-A");
    assertThat(md)
        .contains("| config | mode |")
        .contains("| paper, config 1 | 60/60 | 59/60 |")
        .contains("| measured, config 1 |")
        .contains("to be checked");

    for (String op : List.of("write", "read")) {
      Path svg = dir.resolve("latency-config1-" + op + ".svg");
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      Document doc = f.newDocumentBuilder().parse(svg.toFile());
      assertThat(doc.getDocumentElement().getNodeName()).isEqualTo("svg");
      // one line per mode plus the physical floor
      assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(5);
    }
  }

  @Test
  void retainNewestCloudKeepsOnlyTheNewestDataObjectsOfEachKey() {
    RetainNewestCloud cloud = new RetainNewestCloud("c", 2);
    for (int i = 0; i < 5; i++) {
      cloud.put(io.rafestore.spi.ObjectKey.of("d/k1/w-" + i), new byte[100]).join();
      cloud.put(io.rafestore.spi.ObjectKey.of("d/k2/w-" + i), new byte[10]).join();
    }
    cloud.put(io.rafestore.spi.ObjectKey.of("m/k1/w"), new byte[7]).join();
    cloud.put(io.rafestore.spi.ObjectKey.of("m/k1/w"), new byte[7]).join();
    assertThat(cloud.storedBytes()).isEqualTo(2 * 100 + 2 * 10 + 7);
    assertThat(cloud.list("d/k1/").join())
        .extracting(o -> o.key().value())
        .containsExactly("d/k1/w-3", "d/k1/w-4");
  }

  @Test
  void commandLineEntryReturnsCodesAndNeverExits() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    assertThat(PaperBench.run(new String[] {"--help"}, o, e)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("--time-scale");
    assertThat(PaperBench.run(new String[] {"--sizes", "12Q"}, o, e)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--sizes");
    assertThat(PaperBench.run(new String[] {"--profile", "/no/such/file"}, o, e)).isEqualTo(1);
  }

  @Test
  void builtInProfileHasTable1AndTable2() throws Exception {
    WanProfile p = WanProfile.load(WanProfile.DEFAULT);
    assertThat(p.clouds()).containsOnlyKeys("p0", "p1", "p2", "p3");
    assertThat(p.clouds().get("p2").rttMillis()).isEqualTo(750);
    assertThat(p.arrangement(2).order()).containsExactly("p1", "p2", "p3", "p0");
    assertThat(p.arrangement(3).metadataOnly()).containsExactly("p2");
    // The chosen bandwidths put Configuration 1's f+1-only limit between 64 KB and 256 KB.
    double room = Floors.quorumRttMs(p, p.arrangement(1), 1) + 5 - 315;
    double p1Bps = p.clouds().get("p1").bps();
    assertThat(64 * 1024 * 8 / p1Bps * 1000).isLessThan(room);
    assertThat(256 * 1024 * 8 / p1Bps * 1000).isGreaterThan(room);
  }

  @Test
  void floorsFollowTheProfile() throws Exception {
    WanProfile p = WanProfile.load(WanProfile.DEFAULT);
    WanProfile.Arrangement c1 = p.arrangement(1);
    WanProfile.Arrangement c2 = p.arrangement(2);
    // 1 KB: the quorum's RTT (p2, 750 ms) dominates; 256 KB: p1's RTT plus 2 Mbit/s upload.
    assertThat(Floors.writeMs(p, c1, 1, 1024)).isEqualTo(750.0);
    assertThat(Floors.writeMs(p, c1, 1, 256 * 1024)).isCloseTo(315 + 1048.576, within(1e-6));
    assertThat(Floors.readMs(p, c1, 1, 1024)).isEqualTo(750.0);
    // 1 MB in configuration 2: the nearest holder is p1, 315 ms + 4194 ms at 2 Mbit/s.
    assertThat(Floors.readMs(p, c2, 1, 1024 * 1024)).isCloseTo(315 + 4194.304, within(1e-6));
    // 16 MiB in parts in configuration 2: p1 and p2 (2 Mbit/s each) deliver it together.
    long big = 16L << 20;
    assertThat(Floors.readMs(p, c2, 1, big, false)).isCloseTo(315 + 67108.864, within(1e-6));
    assertThat(Floors.readMs(p, c2, 1, big, true)).isCloseTo(315 + 33554.432, within(1e-6));
    assertThat(PaperBench.parted(Protocol.FAST, big)).isTrue();
    assertThat(PaperBench.parted(Protocol.DEPSKY_A, big)).isFalse();
    assertThat(PaperBench.parted(Protocol.FAST, 4L << 20)).isFalse();
  }

  /** A read cell with the given median and floor and anticipated fetches kept and wasted. */
  private static Result read(
      int config, Protocol mode, long size, double median, double floor, long kept, long wasted) {
    return new Result(
        config,
        mode,
        size,
        "read",
        60,
        0,
        median,
        median,
        median,
        floor,
        -1,
        wasted,
        List.of(),
        0,
        new Result.Speculative(kept + wasted, kept, wasted),
        "");
  }

  @Test
  void issue21TargetsComeFromTheRun() {
    List<Result> good = new java.util.ArrayList<>();
    for (int c = 1; c <= 3; c++) {
      good.add(read(c, Protocol.FAST, 1024, 790, 750, 60, 0));
      good.add(read(c, Protocol.PAPER, 1024, 1086, 750, 60, 0));
      good.add(read(c, Protocol.DEPSKY_A, 1024, 700, 750, 0, 0));
      good.add(read(c, Protocol.FAST, 1 << 20, 5000, 4509, 58, 2));
    }
    List<String> lines = Targets.anticipatedReads(good);
    assertThat(lines).hasSize(7);
    assertThat(lines).allMatch(l -> l.startsWith("PASS"), "all pass");
    assertThat(lines.get(0)).contains("config 1").contains("1KB 1.05 (FAST)");
    assertThat(lines.get(6)).contains("6 wasted, 534 kept of 540 reads");

    List<String> bad =
        Targets.anticipatedReads(
            List.of(
                read(2, Protocol.FAST, 1024, 1086, 750, 30, 30),
                read(2, Protocol.FAST, 1 << 20, 6000, 4509, 30, 0)));
    assertThat(bad.get(2)).startsWith("MISS").contains("config 2").contains("1.45");
    assertThat(bad.get(3)).startsWith("MISS").contains("1.33");
    assertThat(bad.get(0)).startsWith("SKIP");
    assertThat(bad.get(6)).startsWith("MISS").contains("30 wasted");
  }

  /** A cell of {@code op} with the given median, floor and cost of 10,000 operations. */
  private static Result cell(
      int config, Protocol mode, long size, String op, double median, double floor, double cost) {
    return cell(
        config,
        mode,
        size,
        op,
        median,
        floor,
        cost,
        mode.choosesLayout() && op.equals("write") ? "CODED k=2 on p0+p1+p2 (30/30)" : "");
  }

  private static Result cell(
      int config,
      Protocol mode,
      long size,
      String op,
      double median,
      double floor,
      double cost,
      String chosen) {
    return new Result(
        config,
        mode,
        size,
        op,
        30,
        0,
        median,
        median,
        median,
        floor,
        op.equals("write") ? 30 : -1,
        0,
        List.of(),
        cost,
        Result.Speculative.NONE,
        chosen);
  }

  @Test
  void issue16TargetsComeFromTheRun() {
    List<Result> run = new java.util.ArrayList<>();
    for (int c = 1; c <= 2; c++) {
      // 1 KB: FAST writes at 1.1 x the floor, 0.3 x DepSky-A, half its cost; reads at 1.05.
      run.add(cell(c, Protocol.FAST, 1024, "write", 825, 750, 0.10));
      run.add(cell(c, Protocol.DEPSKY_A, 1024, "write", 2750, 750, 0.20));
      run.add(cell(c, Protocol.FAST, 1024, "read", 787.5, 750, 0.05));
      run.add(cell(c, Protocol.DEPSKY_A, 1024, "read", 1500, 750, 0.06));
      // 4 MB: FAST_CODED writes at 0.45 x DepSky-A, reads at 1.15 x the floor.
      run.add(cell(c, Protocol.FAST_CODED, 4L << 20, "write", 4500, 3000, 1));
      run.add(cell(c, Protocol.DEPSKY_A, 4L << 20, "write", 10000, 3000, 1));
      run.add(cell(c, Protocol.FAST, 4L << 20, "read", 5750, 5000, 1));
    }
    List<String> lines = Targets.physicalFloor(run);
    assertThat(lines).hasSize(16);
    assertThat(lines.get(0)).startsWith("PASS").contains("config 1").contains("1KB 1.10 (FAST)");
    assertThat(lines.get(1)).startsWith("PASS").contains("1KB 0.30 (FAST)");
    assertThat(lines.get(2)).startsWith("PASS").contains("1KB 1.05 (FAST)");
    assertThat(lines.get(3)).startsWith("PASS").contains("4MB 0.45 (FAST_CODED)");
    assertThat(lines.get(4)).startsWith("SKIP"); // no mode chooses its layout in this run
    List<Result> withChooser = new java.util.ArrayList<>(run);
    withChooser.add(cell(1, Protocol.FAST_AUTO, 4L << 20, "write", 4700, 3000, 1));
    assertThat(Targets.physicalFloor(withChooser).get(4))
        .startsWith("PASS")
        .contains("4MB 1.04 (FAST_CODED)");
    withChooser.add(
        cell(1, Protocol.FAST_AUTO, 1024, "write", 825, 750, 0.1, "WHOLE on p0+p1 (30/30)"));
    String section = Reports.layoutSection(withChooser);
    assertThat(section).contains("| 1 | 4MB | CODED k=2 on p0+p1+p2 (30/30) |");
    assertThat(section).contains("config 1: whole copies (or inline) up to 1KB, coded from 4MB");
    String svg = Svg.layoutPlot(withChooser);
    assertThat(svg).startsWith("<?xml").contains("class=\"config-1\"").contains("CODED k=2");
    assertThat(lines.get(5)).startsWith("PASS").contains("4MB 1.15 (FAST)");
    assertThat(lines.get(6)).startsWith("PASS").contains("writes").contains("ratio 0.50");
    assertThat(lines.get(7)).startsWith("PASS").contains("reads").contains("ratio 0.83");
    assertThat(lines.get(8)).contains("config 2");

    // The same run, slower and dearer in configuration 2: every ratio there misses.
    run.replaceAll(
        r ->
            r.config() == 2 && r.mode() != Protocol.DEPSKY_A
                ? cell(
                    2,
                    r.mode(),
                    r.sizeBytes(),
                    r.op(),
                    r.medianMs() * 1.5,
                    r.floorMs(),
                    r.costPer10kUsd() * 2.5)
                : r);
    List<String> worse = Targets.physicalFloor(run);
    assertThat(worse.subList(0, 8)).allMatch(l -> !l.startsWith("MISS"));
    assertThat(worse.get(8)).startsWith("MISS").contains("1KB 1.65 (FAST)");
    assertThat(worse.get(9)).startsWith("MISS").contains("0.45");
    assertThat(worse.get(10)).startsWith("MISS");
    assertThat(worse.get(11)).startsWith("MISS").contains("0.68");
    assertThat(worse.get(13)).startsWith("MISS");
    assertThat(worse.get(14)).startsWith("MISS").contains("ratio 1.25");
    assertThat(worse.get(15)).startsWith("MISS").contains("ratio 2.08");
  }

  @Test
  void badProfileErrorsNameTheKey(@TempDir Path dir) throws Exception {
    Path bad = dir.resolve("bad.properties");
    Files.writeString(
        bad,
        "uplink.bps = 100\ndownlink.bps = 100\ncloud.p0.rtt.ms = fast\ncloud.p0.bps = 1\n",
        StandardCharsets.UTF_8);
    assertThatThrownBy(() -> WanProfile.load(bad.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cloud.p0.rtt.ms")
        .hasMessageContaining("fast");
    Path unknown = dir.resolve("unknown.properties");
    Files.writeString(
        unknown,
        "uplink.bps = 100\ndownlink.bps = 100\ncloud.p0.rtt.ms = 5\ncloud.p0.bps = 1\n"
            + "config.1.data = p0,p9\n",
        StandardCharsets.UTF_8);
    assertThatThrownBy(() -> WanProfile.load(unknown.toString()))
        .hasMessageContaining("config.1.data")
        .hasMessageContaining("p9");
    assertThatThrownBy(() -> WanProfile.load(dir.resolve("missing").toString()))
        .hasMessageContaining("no file or classpath resource");
  }

  @Test
  void optionsRejectNonsense() {
    assertThatThrownBy(() -> PaperBench.Options.parse("--sizes", "12Q"))
        .hasMessageContaining("--sizes");
    assertThatThrownBy(() -> PaperBench.Options.parse("--modes", "RAFT"))
        .hasMessageContaining("--modes");
    assertThatThrownBy(() -> PaperBench.Options.parse("--time-scale", "2"))
        .hasMessageContaining("--time-scale");
    assertThatThrownBy(() -> PaperBench.Options.parse("--bogus")).hasMessageContaining("--bogus");
    assertThat(PaperBench.Options.size("16M")).isEqualTo(16L * 1024 * 1024);
    assertThat(PaperBench.Options.parse("--quick").sizes).hasSize(4);
  }
}
