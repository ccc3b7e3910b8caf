package io.rafestore.bench.paper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.bench.support.RetainNewestCloud;
import io.rafestore.clouds.MemoryCloud;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

    // one config x the eight default protocols of configuration 1 x two sizes x {write, read}
    assertThat(results).hasSize(32);
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
    assertThat(csv).hasSize(33);
    String[] header = csv.get(0).split(",");
    assertThat(header)
        .contains(
            "median_ms",
            "only_needed_data_clouds",
            "phased_floor_ms",
            "floor_layout",
            "seconds",
            "p0_requests",
            "p3_bytes_down");
    for (String line : csv.subList(1, csv.size())) {
      String[] cells = line.split(",");
      assertThat(cells).hasSameSizeAs(header);
      assertThat(Integer.parseInt(cells[4]) + Integer.parseInt(cells[5])).isEqualTo(3);
      assertThat(Double.parseDouble(cells[6])).isNotNegative(); // median_ms (NaN if all failed)
      assertThat(Double.parseDouble(cells[13])).isNotNegative(); // cost
    }

    String md = Files.readString(dir.resolve(Reports.MARKDOWN), StandardCharsets.UTF_8);
    assertThat(md).containsPattern("(PASS|MISS)  best RafeStore write median <= 0.5 x DepSky-A");
    assertThat(md).containsPattern("(PASS|MISS)  issue 16: best write, 1-64KB, <= 1.15 x floor");
    assertThat(md).contains("## Write floors per layout").contains("| 1 | 1KB | 754 |");
    assertThat(md).contains("## Layout chosen per value").contains("The paper's three questions");
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
      assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(9);
    }
    Document layout =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(dir.resolve(Reports.LAYOUT_SVG).toFile());
    assertThat(layout.getDocumentElement().getNodeName()).isEqualTo("svg");
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
  void writeFloorsAreTheLeastTimeOfAnyLayout() throws Exception {
    WanProfile p = WanProfile.load(WanProfile.DEFAULT);
    WanProfile.Arrangement c1 = p.arrangement(1);
    WanProfile.Arrangement c2 = p.arrangement(2);
    // Negligible bytes: one round trip to the (n-f)-th fastest cloud (p2, 750 ms), any layout.
    assertThat(Floors.quorumRttMs(p, c1, 1)).isEqualTo(750.0);
    assertThat(Floors.writeMs(p, c1, 1, 1)).isCloseTo(750.0, within(1e-9));
    // 1 KB in configuration 1: whole copies on p0 and p1 with the log at once, 750 ms; inline
    // carries the kilobyte over p2's 2 Mbit/s link in its one round (+4.1 ms).
    List<Floors.WriteFloor> kb = Floors.writeLayouts(p, c1, 1, 1024);
    assertThat(kb)
        .extracting(Floors.WriteFloor::layout)
        .containsExactly("INLINE", "WHOLE", "CODED k=2");
    assertThat(kb.get(0).ms()).isCloseTo(754.096, within(1e-6));
    assertThat(kb.get(0).clouds()).containsExactly("p0", "p1", "p2");
    assertThat(kb.get(1).ms()).isEqualTo(750.0);
    assertThat(kb.get(1).clouds()).containsExactly("p0", "p1");
    assertThat(Floors.writeMs(p, c1, 1, 1024)).isEqualTo(750.0);
    // 64 KB: the floor stays 750 (whole copies land at 577 ms), but with the log after the data
    // the best is inline's one round, 750 + 262 ms.
    assertThat(Floors.writeMs(p, c1, 1, 64 * 1024)).isEqualTo(750.0);
    assertThat(Floors.phasedWriteMs(p, c1, 1, 64 * 1024)).isCloseTo(1012.144, within(1e-6));
    // 1 MB: half-size fragments on p0, p1, p2; the last lands after p2's 750 ms + 2097 ms.
    assertThat(Floors.writeMs(p, c1, 1, 1 << 20)).isCloseTo(750 + 2097.152, within(1e-6));
    // Configuration 2 keeps p0 for metadata: 64 KB whole on p1 and p2, or inline on p0, p1, p2,
    // both 750 + 262 ms; 16 MiB in fragments on p1, p2, p3, 1200 ms + 8 MiB at 2 Mbit/s.
    assertThat(Floors.writeMs(p, c2, 1, 64 * 1024)).isCloseTo(1012.144, within(1e-6));
    assertThat(Floors.writeMs(p, c2, 1, 16L << 20)).isCloseTo(1200 + 33554.432, within(1e-6));
    // Copies share the client's uplink: four 1 MB copies through 1 Mbit/s take 32 s.
    WanProfile thin =
        new WanProfile("thin", 1_000_000, 1_000_000, 0, p.clouds(), Map.of(1, c1), 0.02);
    assertThat(Floors.uploadMs(thin, List.of("p0", "p1", "p2", "p3"), 1 << 20))
        .isCloseTo(5 + 4 * 8388.608, within(1e-6));
  }

  @Test
  void readFloorsFollowTheLayoutInUse() throws Exception {
    WanProfile p = WanProfile.load(WanProfile.DEFAULT);
    WanProfile.Arrangement c1 = p.arrangement(1);
    WanProfile.Arrangement c2 = p.arrangement(2);
    Floors.ReadLayout wholeP1P2 =
        new Floors.ReadLayout(Floors.ReadKind.WHOLE, 0, List.of("p1", "p2"));
    // A quorum round trip at least; a whole 1 MB copy from the nearer holder (p1) at 2 Mbit/s.
    assertThat(Floors.readMs(p, c1, 1, 1024, wholeP1P2)).isEqualTo(750.0);
    assertThat(Floors.readMs(p, c2, 1, 1 << 20, wholeP1P2)).isCloseTo(315 + 4194.304, within(1e-6));
    // An inline value is in every cloud's log: configuration 2's p0 (metadata only) serves it.
    Floors.ReadLayout inline = new Floors.ReadLayout(Floors.ReadKind.INLINE, 0, c2.order());
    assertThat(Floors.readMs(p, c2, 1, 64 * 1024, inline)).isEqualTo(750.0);
    // 16 MiB in two parts on p1 and p2: one part from each, p2's ends last.
    long big = 16L << 20;
    Floors.ReadLayout parts = new Floors.ReadLayout(Floors.ReadKind.PARTS, 0, List.of("p1", "p2"));
    assertThat(Floors.readMs(p, c2, 1, big, parts)).isCloseTo(750 + 33554.432, within(1e-6));
    assertThat(Floors.readMs(p, c2, 1, big, wholeP1P2)).isCloseTo(315 + 67108.864, within(1e-6));
    // Fragments (k = 2) of 1 MB on p1, p2, p3: the second to arrive is p2's half.
    Floors.ReadLayout coded =
        new Floors.ReadLayout(Floors.ReadKind.CODED, 2, List.of("p1", "p2", "p3"));
    assertThat(Floors.readMs(p, c2, 1, 1 << 20, coded)).isCloseTo(750 + 2097.152, within(1e-6));
    // 16 MiB coded in two parts: four 4 MiB fragments, at most one per part per holder; p1
    // sends two (315 ms + 8 MiB), p2 and p3 one each.
    Floors.ReadLayout codedParts =
        new Floors.ReadLayout(Floors.ReadKind.CODED_PARTS, 2, List.of("p1", "p2", "p3"));
    assertThat(Floors.readMs(p, c2, 1, big, codedParts)).isCloseTo(315 + 33554.432, within(1e-6));
  }

  @Test
  void theHarnessReadsTheLayoutTheWritesProduced() throws Exception {
    WanProfile p = WanProfile.load(WanProfile.DEFAULT);
    WanProfile.Arrangement c1 = p.arrangement(1);
    assertThat(PaperBench.readLayout(Protocol.FAST_INLINE, 1024, null, c1).kind())
        .isEqualTo(Floors.ReadKind.INLINE);
    assertThat(PaperBench.readLayout(Protocol.FAST_INLINE, 1 << 20, null, c1).kind())
        .isEqualTo(Floors.ReadKind.WHOLE);
    assertThat(PaperBench.readLayout(Protocol.FAST, 16L << 20, null, c1))
        .isEqualTo(new Floors.ReadLayout(Floors.ReadKind.PARTS, 0, List.of("p0", "p1")));
    assertThat(PaperBench.readLayout(Protocol.FAST_CODED, 1 << 20, null, c1))
        .isEqualTo(new Floors.ReadLayout(Floors.ReadKind.CODED, 2, List.of("p0", "p1", "p2")));
    assertThat(PaperBench.readLayout(Protocol.DEPSKY_CA, 1024, null, c1).k()).isEqualTo(2);
    assertThat(Protocol.FAST_INLINE.sameAs(64 * 1024)).isEmpty();
    assertThat(Protocol.FAST_INLINE.sameAs(64 * 1024 + 1)).contains(Protocol.FAST);
    assertThat(Protocol.FAST_INLINE.fixedKind(1024)).contains("INLINE");
    assertThat(Protocol.FAST_CODED.fixedKind(1024)).contains("CODED k=2");
    assertThat(Protocol.FAST_AUTO.fixedKind(1024)).isEmpty();
  }

  /** The harness's copy of the inline threshold is the builder's default. */
  @Test
  void inlineThresholdIsTheBuildersDefault() throws Exception {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer("w", SigningKeys.generate())
            .mode(io.rafestore.ProtocolMode.FAST);
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    try (RafeStore store = b.build()) {
      int at = Math.toIntExact(Protocol.INLINE_THRESHOLD);
      assertThat(store.blocking().write("k", new byte[at]).dataCloudsContacted()).isEmpty();
      assertThat(store.blocking().write("k", new byte[at + 1]).dataCloudsContacted()).isNotEmpty();
    }
  }

  /**
   * The writes' bill includes what they leave running (the packer's packs, the puts of logs beyond
   * the quorum), and the reads' egress includes the logs the cloud beyond the quorum sent after
   * readM had its quorum; logs a cloud answers "unchanged" cost no egress.
   */
  @Test
  void countersAreReadWhenTheClientIsIdleAndEgressCountsWhatCloudsSent(@TempDir Path dir)
      throws Exception {
    PaperBench.Options o =
        PaperBench.Options.parse(
            "--out",
            dir.toString(),
            "--configs",
            "1",
            "--protocols",
            "FAST_INLINE",
            "--sizes",
            "64K",
            "--ops",
            "3",
            "--time-scale",
            "0.02");
    List<Result> results =
        PaperBench.run(
            o, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    Result w = results.get(0);
    Result r = results.get(1);
    assertThat(w.op()).isEqualTo("write");
    assertThat(w.ops()).isEqualTo(3);
    assertThat(w.onlyFPlusOne()).isEqualTo(3); // inline: no data cloud contacted
    // readM of the first write (4 gets), three writeMs (12 puts), and on each of the f+1 = 2 data
    // clouds at least two pack uploads of the packer (the writes come in a burst, so values are
    // packed while their own writeM runs; the last value's pack, which no later write carries, is
    // kept unnamed while it is fresh, for a next write, and is an orphan when the cell closes).
    long writeRequests = w.perCloud().stream().mapToLong(Result.CloudUse::requests).sum();
    assertThat(writeRequests).isGreaterThanOrEqualTo(4 + 12 + 2 * 2);
    List<Long> perCloud = w.perCloud().stream().map(Result.CloudUse::requests).sorted().toList();
    assertThat(perCloud.get(2)).isGreaterThanOrEqualTo(perCloud.get(0) + 2);
    // Reads put nothing: the packer finished before them.
    assertThat(r.perCloud()).allSatisfy(u -> assertThat(u.bytesUp()).isZero());
    // Each read's readM asks all four clouds, and each log holds the 64 KiB value. The first read
    // gets every log in full: p3's (1200 ms) was on its way when readM completed at the third
    // reply,
    // and still counts as egress. Later reads ask conditionally and the clouds answer "unchanged"
    // (a get, no bytes), but for p3's until its first answer has arrived.
    assertThat(r.perCloud()).allSatisfy(u -> assertThat(u.requests()).isEqualTo(3));
    long egress = r.perCloud().stream().mapToLong(Result.CloudUse::bytesDown).sum();
    assertThat(egress).isGreaterThanOrEqualTo(4L * 64 * 1024);
    assertThat(egress).isLessThan(2L * 4 * 64 * 1024);
    assertThat(r.floorLayout()).startsWith("INLINE");
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
        "",
        Double.NaN,
        "WHOLE on p0+p1",
        1);
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
        chosen,
        op.equals("write") ? floor * 1.4 : Double.NaN,
        "",
        1);
  }

  /**
   * The cost objective's lines judge FAST_AUTO_COST against DepSky-A with its median beside
   * FAST_AUTO's; the existing cost lines keep judging the latency-objective protocols only.
   */
  @Test
  void costObjectiveLinesJudgeFastAutoCostAndTheOthersIgnoreIt() {
    List<Result> run = new java.util.ArrayList<>();
    run.add(cell(1, Protocol.DEPSKY_A, 1024, "write", 2280, 750, 0.36));
    run.add(cell(1, Protocol.FAST_AUTO, 1024, "write", 790, 750, 0.19));
    run.add(cell(1, Protocol.FAST_AUTO_COST, 1024, "write", 1240, 750, 0.12));
    run.add(cell(1, Protocol.DEPSKY_A, 1024, "read", 800, 750, 0.045));
    run.add(cell(1, Protocol.FAST_AUTO, 1024, "read", 750, 750, 0.032));
    run.add(cell(1, Protocol.FAST_AUTO_COST, 1024, "read", 750, 750, 0.05));
    List<String> lines = Targets.physicalFloor(run);
    List<String> cost =
        lines.stream().filter(l -> l.contains("issue 16 (cost objective)")).toList();
    assertThat(cost).hasSize(4);
    assertThat(cost.get(0))
        .startsWith("PASS")
        .contains("writes <= 0.5 x DepSky-A (config 1)")
        .contains("FAST_AUTO_COST $0.1200 vs $0.3600, ratio 0.333; median 1240 ms")
        .contains("(FAST_AUTO, latency objective: $0.1900, ratio 0.528, median 790 ms)");
    assertThat(cost.get(1)).startsWith("MISS").contains("reads <= 1.0 x DepSky-A (config 1)");
    assertThat(cost.get(2)).startsWith("SKIP").contains("config 2");
    String existing =
        lines.stream()
            .filter(l -> l.contains("issue 16: cost of 10,000 1KB writes"))
            .findFirst()
            .orElseThrow();
    assertThat(existing).startsWith("MISS").contains("FAST_AUTO $0.1900").doesNotContain("COST");
    assertThat(Targets.evaluate(run))
        .filteredOn(l -> l.contains("cost of 10,000 1KB writes <= 0.5 x DepSky-A (config 1):"))
        .allMatch(l -> !l.contains("FAST_AUTO_COST") || l.contains("cost objective"));
  }

  @Test
  void issue16TargetsComeFromTheRun() {
    List<Result> run = new java.util.ArrayList<>();
    for (int c = 1; c <= 2; c++) {
      // 1 KB: FAST_INLINE writes at 1.1 x the floor, 0.3 x DepSky-A, half its cost; FAST reads
      // at 1.05 x and costs 0.4 x; FAST_INLINE's reads cost 0.9 x DepSky-A's.
      run.add(cell(c, Protocol.FAST_INLINE, 1024, "write", 825, 750, 0.10));
      run.add(cell(c, Protocol.FAST, 1024, "write", 1100, 750, 0.15));
      run.add(cell(c, Protocol.DEPSKY_A, 1024, "write", 2750, 750, 0.20));
      run.add(cell(c, Protocol.FAST, 1024, "read", 787.5, 750, 0.04));
      run.add(cell(c, Protocol.FAST_INLINE, 1024, "read", 800, 750, 0.09));
      run.add(cell(c, Protocol.DEPSKY_A, 1024, "read", 1500, 750, 0.10));
      // 4 MB: FAST_CODED writes at 0.45 x DepSky-A (its floor 0.30 x), FAST at 0.8 x; reads at
      // 1.15 x the floor.
      run.add(cell(c, Protocol.FAST_CODED, 4L << 20, "write", 4500, 3000, 1));
      run.add(cell(c, Protocol.FAST, 4L << 20, "write", 8000, 3000, 1));
      run.add(cell(c, Protocol.DEPSKY_A, 4L << 20, "write", 10000, 3000, 1));
      run.add(cell(c, Protocol.FAST, 4L << 20, "read", 5750, 5000, 1));
    }
    List<String> lines = Targets.physicalFloor(run);
    assertThat(lines).hasSize(20);
    assertThat(lines.get(0))
        .startsWith("PASS")
        .contains("config 1")
        .contains("1KB 1.10 (FAST_INLINE)");
    assertThat(lines.get(1)).startsWith("PASS").contains("1KB 0.30 (FAST_INLINE; floor 0.27");
    assertThat(lines.get(2)).startsWith("PASS").contains("1KB 1.05 (FAST)");
    assertThat(lines.get(3))
        .startsWith("PASS")
        .contains("4MB 0.45 (FAST_CODED; floor 0.30, phases 0.42)")
        .doesNotContain("out of");
    assertThat(lines.get(4)).startsWith("SKIP"); // no mode chooses its layout in this run
    // The chooser against the fastest fixed layout (FAST_CODED, not PAPER or another chooser).
    List<Result> withChooser = new java.util.ArrayList<>(run);
    withChooser.add(cell(1, Protocol.FAST_AUTO, 4L << 20, "write", 4700, 3000, 1));
    withChooser.add(cell(1, Protocol.PAPER, 4L << 20, "write", 4000, 3000, 1));
    assertThat(Targets.physicalFloor(withChooser).get(4))
        .startsWith("PASS")
        .contains("4MB 1.04 (FAST_CODED)");
    withChooser.add(cell(1, Protocol.FAST_AUTO, 1024, "write", 830, 750, 0.1, "INLINE (30/30)"));
    withChooser.add(
        cell(1, Protocol.FAST_AUTO, 64 * 1024, "write", 1100, 750, 0.1, "INLINE (30/30)"));
    withChooser.add(cell(1, Protocol.FAST_INLINE, 64 * 1024, "write", 1050, 750, 0.1));
    withChooser.add(cell(1, Protocol.FAST_CODED, 64 * 1024, "write", 1900, 750, 0.1));
    withChooser.add(
        cell(1, Protocol.FAST_AUTO, 1L << 20, "write", 3000, 2800, 1, "WHOLE on p0+p1 (29/30)"));
    withChooser.add(cell(1, Protocol.FAST, 1L << 20, "write", 3100, 2800, 1));
    String section = Reports.layoutSection(withChooser);
    assertThat(section).contains("| 1 | 4MB | CODED k=2 on p0+p1+p2 (30/30) | 4700.0 | FAST_CODED");
    assertThat(section)
        .contains(
            "config 1: INLINE 1KB-64KB, WHOLE 1MB, CODED k=2 4MB; thresholds between 64KB and 1MB"
                + " (INLINE to WHOLE), between 1MB and 4MB (WHOLE to CODED k=2)");
    assertThat(section)
        .contains("The paper's three questions")
        .contains("sent fragments (coded k=2 4MB)")
        .contains("from whole values to fragments between 1MB and 4MB in configuration 1")
        .contains("Size does")
        .contains("One configuration ran")
        .contains("fixed layout measured fastest at 4 of 4 sizes")
        .contains("at most 1.05 x");
    String svg = Svg.layoutPlot(withChooser);
    assertThat(svg).startsWith("<?xml").contains("class=\"config-1\"").contains("CODED k=2");
    assertThat(svg).contains("class=\"fastest-fixed\"").contains("class=\"threshold\"");
    assertThat(lines.get(5)).startsWith("PASS").contains("4MB 1.15 (FAST)");
    // Costs: the cheapest writes (FAST_INLINE, 0.50), and that protocol's reads (0.90), not the
    // cheapest reads (FAST's).
    assertThat(lines.get(6))
        .startsWith("PASS")
        .contains("writes")
        .contains("FAST_INLINE $0.1000 vs $0.2000, ratio 0.500")
        .contains("FAST 0.750");
    assertThat(lines.get(7))
        .startsWith("PASS")
        .contains("reads")
        .contains("FAST_INLINE $0.0900 vs $0.1000, ratio 0.900")
        .contains("FAST 0.400");
    // Then the cost objective's two lines (no FAST_AUTO_COST cell here), and configuration 2.
    assertThat(lines.get(8)).startsWith("SKIP").contains("cost objective").contains("config 1");
    assertThat(lines.get(9)).startsWith("SKIP").contains("cost objective").contains("config 1");
    assertThat(lines.get(10)).contains("config 2");

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
    assertThat(worse.subList(0, 10)).allMatch(l -> !l.startsWith("MISS"));
    assertThat(worse.get(10)).startsWith("MISS").contains("1KB 1.65 (FAST_INLINE; phases 1.40)");
    assertThat(worse.get(11)).startsWith("MISS").contains("0.45");
    assertThat(worse.get(12)).startsWith("MISS");
    assertThat(worse.get(13)).startsWith("MISS").contains("0.68");
    assertThat(worse.get(15)).startsWith("MISS");
    assertThat(worse.get(16)).startsWith("MISS").contains("ratio 1.250");
    assertThat(worse.get(17)).startsWith("MISS").contains("ratio 2.250");

    // Where the floor alone is above the limit, the line says the target is out of reach.
    List<Result> thin = new java.util.ArrayList<>();
    thin.add(cell(2, Protocol.FAST_CODED, 1L << 20, "write", 3700, 3000, 1));
    thin.add(cell(2, Protocol.DEPSKY_A, 1L << 20, "write", 5000, 3000, 1));
    assertThat(Targets.physicalFloor(thin).get(13))
        .startsWith("MISS")
        .contains("1MB 0.74 (FAST_CODED; floor 0.60, phases 0.84)")
        .endsWith("out of any protocol's reach where the floor alone is above 0.50: 1MB");
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
    PaperBench.Options large = PaperBench.Options.parse("--ops", "60", "--large-ops", "4M=30");
    assertThat(large.opsFor(1 << 20)).isEqualTo(60);
    assertThat(large.opsFor(4L << 20)).isEqualTo(30);
    assertThat(large.opsDescription()).isEqualTo("60 ops (30 from 4MB)");
    assertThatThrownBy(() -> PaperBench.Options.parse("--large-ops", "4M"))
        .hasMessageContaining("--large-ops");
    PaperBench.Options per =
        PaperBench.Options.parse("--configs", "1,3", "--config-protocols", "3=PAPER,DEPSKY_A");
    assertThat(per.modesFor(1)).isEqualTo(Protocol.DEFAULT);
    assertThat(per.modesFor(3)).containsExactly(Protocol.PAPER, Protocol.DEPSKY_A);
    assertThat(PaperBench.Options.parse().modesFor(3)).isEqualTo(Protocol.PAPER_FOUR);
    assertThat(PaperBench.Options.parse("--protocols", "FAST").modesFor(3))
        .containsExactly(Protocol.FAST);
  }
}
