package io.rafestore.bench.fairness;

import io.rafestore.CloudRole;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.TenantShare;
import io.rafestore.Version;
import io.rafestore.bench.support.RetainNewestCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.clouds.WanEmulator;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Tenants interfering on one shared client (issue 19, after the interference experiment of seed
 * 001, FAST): four kinds of tenant, each alone and then all together, with fair scheduling off and
 * on; two backlogged tenants with weights 2:1; a tenant with a reservation beside backlogged
 * others.
 *
 * <p><b>Deployment.</b> Four in-memory clouds behind the {@link WanEmulator} with the paper's Table
 * 1 profile (p0 5 ms and 100 Mbit/s; p1, p2, p3 315, 750 and 1,200 ms at 2 Mbit/s; 5 % jitter; the
 * client's links 100 Mbit/s), Configuration 2 (data on p1 and p2, p3 writeDf's extra, p0 metadata
 * only), f = 1, the client's default mode, on <b>virtual time</b>. Every cloud's link also serves
 * at most {@code --max-concurrent} (8) requests at once, the rest waiting first in first out
 * ({@link WanEmulator.Link#maxConcurrent}): a cloud, or a driver's pool, of limited parallelism,
 * which is what makes tenants of one client wait behind each other. Values are split into parts of
 * {@code --chunk-bytes} so that a sequential reader fetches one part per read. Each run is a fresh
 * deployment (same seed) with one client shared by its tenants, each tenant a {@code forTenant(id)}
 * view of it.
 *
 * <p><b>Tenants</b>, each a closed loop of {@code --outstanding} (4) operations (the next starts
 * when one completes): <i>small-read</i> reads the latest version of one of {@code --keys} (1,000)
 * keys of {@code --small-bytes} (1 KB) at random; <i>large-read</i> reads {@code --chunk-bytes} (1
 * MiB) ranges of {@code --large-values} (4) values of {@code --large-bytes} (4 MiB) in order, one
 * after the other; <i>small-write</i> writes 1 KB values to 64 keys of its own in turn;
 * <i>large-write</i> writes 4 MiB values to 4 keys of its own in turn. Backlogged tenants (weights
 * and reservation runs) are small readers with {@code --backlog} (32) operations outstanding.
 *
 * <p><b>Fairness on</b> is {@link io.rafestore.Fairness#on()} with the client's requests in flight
 * per cloud bounded as the clouds are ({@code --max-concurrent}) and, if {@code --tenant-bytes} is
 * given, that many bytes of one tenant in flight per cloud (by default Fairness.on()'s).
 *
 * <p><b>Measured</b> over {@code --seconds} (600) of virtual time after {@code --warmup} (60):
 * operations completed in that window per second, their payload bytes per second, and the p99 of
 * their latencies. A tenant's slowdown is its throughput alone (same fairness setting, same client
 * otherwise) over its throughput among the others.
 *
 * <pre>
 * java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.fairness.InterferenceBench --out DIR
 * java -cp ... io.rafestore.bench.fairness.InterferenceBench --quick
 * </pre>
 *
 * <p>Writes {@code interference.md} and {@code fairness-slowdown.svg} to {@code --out}; prints
 * target lines (PASS/MISS), all on the fairness-on runs: with n tenants together no tenant more
 * than 1.25 x n slower than alone; the small reader's p99 beside a large writer within 2 x of
 * alone; Jain's index of the normalised throughputs >= 0.9; weights 2:1 give 2:1 +/- 10 %; the
 * reservation met. Exit code 1 if any says MISS. A command-line tool; not thread-safe.
 */
public final class InterferenceBench {
  static final KeyPair WRITER = SigningKeys.generate();
  static final String[] CLOUDS = {"p0", "p1", "p2", "p3"};
  static final long[] RTT_MS = {5, 315, 750, 1200};
  static final long[] BITS_PER_S = {100_000_000, 2_000_000, 2_000_000, 2_000_000};
  static final long CLIENT_BITS_PER_S = 100_000_000;

  private InterferenceBench() {}

  /** The four kinds of tenant of the seed's experiment. */
  enum Kind {
    SMALL_READ("small-read", "small random reads"),
    LARGE_READ("large-read", "large sequential reads"),
    SMALL_WRITE("small-write", "small writes"),
    LARGE_WRITE("large-write", "large writes");

    final String id;
    final String label;

    Kind(String id, String label) {
      this.id = id;
      this.label = label;
    }
  }

  /** The run's settings. */
  record Params(
      double seconds,
      double warmup,
      int outstanding,
      int backlog,
      int smallBytes,
      int largeBytes,
      int chunkBytes,
      int keys,
      int largeValues,
      int maxConcurrent,
      long tenantBytes,
      long seed) {
    double window() {
      return seconds - warmup;
    }
  }

  /** One tenant of a run: its id, kind, operations outstanding and share (null: the default). */
  record Tenant(String id, Kind kind, int outstanding, TenantShare share) {}

  /** What one tenant did in the measured window. */
  record TenantResult(String id, Kind kind, long ops, long bytes, int failures, double[] latMs) {
    double opsPerSecond(double window) {
      return ops / window;
    }

    double bytesPerSecond(double window) {
      return bytes / window;
    }

    double p99() {
      return percentile(latMs, 0.99);
    }

    double p50() {
      return percentile(latMs, 0.5);
    }
  }

  /** One run: its label, whether fairness was on, and each tenant's result in order. */
  record Run(
      String label,
      boolean fair,
      Map<String, TenantResult> tenants,
      double wallSeconds,
      Map<String, io.rafestore.CloudStats> clouds) {}

  public static void main(String[] args) {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /** Runs the bench; returns the exit code (1 if a target line says MISS, 2 on bad arguments). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    double seconds = 600;
    double warmup = 60;
    int outstanding = 4;
    int backlog = 32;
    int smallBytes = 1024;
    int largeBytes = 4 << 20;
    int chunkBytes = 1 << 20;
    int keys = 1000;
    int largeValues = 4;
    int maxConcurrent = 8;
    long tenantBytes = 0;
    long seed = 19;
    Path outDir = null;
    boolean quick = false;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> quick = true;
          case "--seconds" -> seconds = Double.parseDouble(value(args, ++i, a));
          case "--warmup" -> warmup = Double.parseDouble(value(args, ++i, a));
          case "--outstanding" -> outstanding = Integer.parseInt(value(args, ++i, a));
          case "--backlog" -> backlog = Integer.parseInt(value(args, ++i, a));
          case "--small-bytes" -> smallBytes = Integer.parseInt(value(args, ++i, a));
          case "--large-bytes" -> largeBytes = Integer.parseInt(value(args, ++i, a));
          case "--chunk-bytes" -> chunkBytes = Integer.parseInt(value(args, ++i, a));
          case "--keys" -> keys = Integer.parseInt(value(args, ++i, a));
          case "--large-values" -> largeValues = Integer.parseInt(value(args, ++i, a));
          case "--max-concurrent" -> maxConcurrent = Integer.parseInt(value(args, ++i, a));
          case "--tenant-bytes" -> tenantBytes = Long.parseLong(value(args, ++i, a));
          case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
          case "--out" -> outDir = Path.of(value(args, ++i, a));
          default -> {
            err.println(
                "usage: InterferenceBench [--quick] [--seconds S] [--warmup S] [--outstanding N]"
                    + " [--backlog N] [--small-bytes N] [--large-bytes N] [--chunk-bytes N] [--keys"
                    + " N] [--large-values N] [--max-concurrent N] [--tenant-bytes N] [--seed S]"
                    + " [--out DIR]");
            return 2;
          }
        }
      }
      if (quick) {
        seconds = Math.min(seconds, 60);
        warmup = Math.min(warmup, 10);
        largeBytes = Math.min(largeBytes, 1 << 20);
        chunkBytes = Math.min(chunkBytes, 256 << 10);
        keys = Math.min(keys, 50);
      }
      if (!(seconds > warmup) || warmup < 0 || outstanding < 1 || backlog < 1 || keys < 1) {
        err.println("InterferenceBench: need --seconds > --warmup >= 0 and counts >= 1");
        return 2;
      }
      if (smallBytes < 1 || chunkBytes < 1024 || largeBytes < chunkBytes || largeValues < 1) {
        err.println(
            "InterferenceBench: need --small-bytes >= 1, --chunk-bytes >= 1024 and"
                + " --large-bytes >= --chunk-bytes");
        return 2;
      }
      if (maxConcurrent < 1 || tenantBytes < 0) {
        err.println(
            "InterferenceBench: --max-concurrent must be >= 1, --tenant-bytes >= 0 (0: the"
                + " default of Fairness.on())");
        return 2;
      }
      Params p =
          new Params(
              seconds,
              warmup,
              outstanding,
              backlog,
              smallBytes,
              largeBytes,
              chunkBytes,
              keys,
              largeValues,
              maxConcurrent,
              tenantBytes,
              seed);
      Report report = experiment(p, err);
      out.print(report.markdown);
      if (outDir != null) {
        Files.createDirectories(outDir);
        Files.writeString(
            outDir.resolve("interference.md"), report.markdown, StandardCharsets.UTF_8);
        Files.writeString(
            outDir.resolve("fairness-slowdown.svg"), report.svg, StandardCharsets.UTF_8);
      }
      return report.markdown.contains("\nMISS ") ? 1 : 0;
    } catch (IOException | ExecutionException | RuntimeException e) {
      err.println("InterferenceBench failed: " + e);
      e.printStackTrace(err);
      return 1;
    }
  }

  record Report(String markdown, String svg) {}

  /** Every run, the tables and the target lines. */
  static Report experiment(Params p, PrintStream progress) throws ExecutionException {
    boolean[] settings = {false, true};
    // Each kind alone, then the four together, then the small reader beside the large writer.
    Map<Boolean, Map<Kind, TenantResult>> alone = new LinkedHashMap<>();
    Map<Boolean, Run> together = new LinkedHashMap<>();
    Map<Boolean, Run> pair = new LinkedHashMap<>();
    Map<Boolean, Run> weighted = new LinkedHashMap<>();
    Map<Boolean, Run> reserved = new LinkedHashMap<>();
    List<Run> runs = new ArrayList<>();
    for (boolean fair : settings) {
      Map<Kind, TenantResult> a = new LinkedHashMap<>();
      for (Kind k : Kind.values()) {
        Run r =
            run(
                p,
                fair,
                k.id + " alone",
                List.of(new Tenant(k.id, k, p.outstanding(), TenantShare.weight(1))));
        runs.add(r);
        a.put(k, r.tenants().get(k.id));
        progress.println("InterferenceBench: " + describe(r, p));
      }
      alone.put(fair, a);
      List<Tenant> four = new ArrayList<>();
      for (Kind k : Kind.values()) {
        four.add(new Tenant(k.id, k, p.outstanding(), TenantShare.weight(1)));
      }
      Run all = run(p, fair, "all four together", four);
      runs.add(all);
      together.put(fair, all);
      progress.println("InterferenceBench: " + describe(all, p));
      Run two =
          run(
              p,
              fair,
              "small-read beside large-write",
              List.of(
                  new Tenant(
                      Kind.SMALL_READ.id, Kind.SMALL_READ, p.outstanding(), TenantShare.weight(1)),
                  new Tenant(
                      Kind.LARGE_WRITE.id,
                      Kind.LARGE_WRITE,
                      p.outstanding(),
                      TenantShare.weight(1))));
      runs.add(two);
      pair.put(fair, two);
      progress.println("InterferenceBench: " + describe(two, p));
      Run w =
          run(
              p,
              fair,
              "two backlogged, weights 2:1",
              List.of(
                  new Tenant("heavy", Kind.SMALL_READ, p.backlog(), TenantShare.weight(2)),
                  new Tenant("light", Kind.SMALL_READ, p.backlog(), TenantShare.weight(1))));
      runs.add(w);
      weighted.put(fair, w);
      progress.println("InterferenceBench: " + describe(w, p));
    }
    // The reservation: half of what the small reader achieves alone with fairness on (a rate the
    // system can give it), beside two backlogged small readers.
    double reservation = 0.5 * alone.get(true).get(Kind.SMALL_READ).opsPerSecond(p.window());
    for (boolean fair : settings) {
      Run r =
          run(
              p,
              fair,
              String.format(
                  Locale.ROOT, "reservation %.2f ops/s beside two backlogged", reservation),
              List.of(
                  new Tenant(
                      "reserved",
                      Kind.SMALL_READ,
                      p.outstanding(),
                      TenantShare.DEFAULT.withReservation(
                          Tenancy.reservationUnits(reservation, p))),
                  new Tenant("backlog-a", Kind.SMALL_READ, p.backlog(), TenantShare.weight(1)),
                  new Tenant("backlog-b", Kind.SMALL_READ, p.backlog(), TenantShare.weight(1))));
      runs.add(r);
      reserved.put(fair, r);
      progress.println("InterferenceBench: " + describe(r, p));
    }

    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "Tenants interfering on one client (issue 19, seed 001's experiment): Table 1 profile,"
                + " Configuration 2, f = 1, virtual time; every cloud serves at most %d requests at"
                + " once (FIFO beyond); %,.0f s measured after %,.0f s warm-up; %d operations"
                + " outstanding per tenant (%d for backlogged ones); small values %,d B over %,d"
                + " keys, large values %,d B read and written in parts of %,d B. Fairness on:"
                + " %s.%n%n",
            p.maxConcurrent(),
            p.window(),
            p.warmup(),
            p.outstanding(),
            p.backlog(),
            p.smallBytes(),
            p.keys(),
            p.largeBytes(),
            p.chunkBytes(),
            Tenancy.describeOn(p)));
    md.append(
        "| run | fairness | tenant | ops/s | MB/s | p50 ms | p99 ms | failed | slowdown vs alone"
            + " |\n");
    md.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Run r : runs) {
      for (TenantResult t : r.tenants().values()) {
        TenantResult base =
            r.tenants().size() > 1 && isKindTenant(t) ? alone.get(r.fair()).get(t.kind()) : null;
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %.3f | %.4f | %.0f | %.0f | %d | %s |%n",
                r.label(),
                r.fair() ? "on" : "off",
                t.id(),
                t.opsPerSecond(p.window()),
                t.bytesPerSecond(p.window()) / 1e6,
                t.p50(),
                t.p99(),
                t.failures(),
                base == null ? "" : String.format(Locale.ROOT, "%.2f", slowdown(base, t))));
      }
    }

    StringBuilder targets = new StringBuilder();
    int n = Kind.values().length;
    double bound = 1.25 * n;
    Run on = together.get(true);
    Run off = together.get(false);
    StringBuilder each = new StringBuilder();
    double worst = 0;
    for (Kind k : Kind.values()) {
      double sOn = slowdown(alone.get(true).get(k), on.tenants().get(k.id));
      double sOff = slowdown(alone.get(false).get(k), off.tenants().get(k.id));
      worst = Math.max(worst, sOn);
      each.append(String.format(Locale.ROOT, "%s %.2f (off %.2f), ", k.id, sOn, sOff));
    }
    each.setLength(each.length() - 2);
    targets.append(
        target(
            worst <= bound,
            String.format(
                Locale.ROOT,
                "%d tenants together, fairness on: slowdown vs alone %s; worst %.2f (target <= 1.25"
                    + " x %d = %.2f)",
                n,
                each,
                worst,
                n,
                bound)));
    TenantResult readAloneOn = alone.get(true).get(Kind.SMALL_READ);
    double pairRatio = pair.get(true).tenants().get(Kind.SMALL_READ.id).p99() / readAloneOn.p99();
    double pairRatioOff =
        pair.get(false).tenants().get(Kind.SMALL_READ.id).p99()
            / alone.get(false).get(Kind.SMALL_READ).p99();
    targets.append(
        target(
            pairRatio <= 2,
            String.format(
                Locale.ROOT,
                "small-read p99 beside a large-write tenant, fairness on: %.0f ms vs %.0f ms alone,"
                    + " %.2f x (target <= 2 x; off %.2f x: %.0f ms vs %.0f ms)",
                pair.get(true).tenants().get(Kind.SMALL_READ.id).p99(),
                readAloneOn.p99(),
                pairRatio,
                pairRatioOff,
                pair.get(false).tenants().get(Kind.SMALL_READ.id).p99(),
                alone.get(false).get(Kind.SMALL_READ).p99())));
    double jainOn = jain(alone.get(true), on);
    double jainOff = jain(alone.get(false), off);
    targets.append(
        target(
            jainOn >= 0.9,
            String.format(
                Locale.ROOT,
                "Jain's index of normalised throughput (together / alone), %d tenants, equal"
                    + " weights, fairness on: %.3f (target >= 0.9; off %.3f)",
                n,
                jainOn,
                jainOff)));
    double ratioOn = weightRatio(weighted.get(true), p);
    double ratioOff = weightRatio(weighted.get(false), p);
    targets.append(
        target(
            ratioOn >= 1.8 && ratioOn <= 2.2,
            String.format(
                Locale.ROOT,
                "two backlogged small readers, weights 2:1, fairness on: throughput %.3f vs %.3f"
                    + " ops/s, %.2f : 1 (target 2 : 1 +/- 10 %%, 1.80 to 2.20; off %.2f : 1)",
                weighted.get(true).tenants().get("heavy").opsPerSecond(p.window()),
                weighted.get(true).tenants().get("light").opsPerSecond(p.window()),
                ratioOn,
                ratioOff)));
    double gotOn = reserved.get(true).tenants().get("reserved").opsPerSecond(p.window());
    double gotOff = reserved.get(false).tenants().get("reserved").opsPerSecond(p.window());
    targets.append(
        target(
            gotOn >= reservation,
            String.format(
                Locale.ROOT,
                "reservation of %.3f ops/s (half the small reader's rate alone) beside two"
                    + " backlogged small readers, fairness on: %.3f ops/s (target >= %.3f; off"
                    + " %.3f)",
                reservation,
                gotOn,
                reservation,
                gotOff)));
    md.append(
        "\nReads routed by kind and stolen (issue 19), whole run including warm-up, per cloud:"
            + " small reads routed first to it, bulk (part) reads routed first to it, steals"
            + " (won / wasted), and gets in all.\n\n");
    md.append(
        "| run | fairness | cloud | routed small | routed bulk | steals | won | wasted | gets |\n");
    md.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Run r : runs) {
      if (r.tenants().size() < 2 || !r.tenants().containsKey(Kind.LARGE_READ.id)) {
        continue;
      }
      for (String c : CLOUDS) {
        io.rafestore.CloudStats st = r.clouds().get(c);
        if (st == null) {
          continue;
        }
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %d | %d | %d | %d | %d | %d |%n",
                r.label(),
                r.fair() ? "on" : "off",
                c,
                st.routedSmall(),
                st.routedBulk(),
                st.steals(),
                st.stealsWon(),
                st.stealsWasted(),
                st.gets()));
      }
    }
    md.append("\n").append(targets);
    String svg = slowdownSvg(alone, together);
    return new Report(md.toString(), svg);
  }

  private static boolean isKindTenant(TenantResult t) {
    return t.id().equals(t.kind().id);
  }

  private static String describe(Run r, Params p) {
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%s [%s] (%.1f s):",
                r.label(),
                r.fair() ? "on" : "off",
                r.wallSeconds()));
    for (TenantResult t : r.tenants().values()) {
      s.append(
          String.format(
              Locale.ROOT,
              " %s %.3f ops/s p99 %.0f ms;",
              t.id(),
              t.opsPerSecond(p.window()),
              t.p99()));
    }
    return s.toString();
  }

  /** Throughput alone over throughput with others (infinite if it did nothing with others). */
  static double slowdown(TenantResult alone, TenantResult together) {
    if (together.ops() == 0) {
      return Double.POSITIVE_INFINITY;
    }
    return (double) alone.ops() / together.ops();
  }

  /** Jain's index of each kind's throughput together normalised by its throughput alone. */
  static double jain(Map<Kind, TenantResult> alone, Run together) {
    double[] x = new double[Kind.values().length];
    int i = 0;
    for (Kind k : Kind.values()) {
      TenantResult a = alone.get(k);
      TenantResult t = together.tenants().get(k.id);
      x[i++] = a.ops() == 0 ? 0 : (double) t.ops() / a.ops();
    }
    return jain(x);
  }

  /** Jain's fairness index (sum x)^2 / (n sum x^2); 1 when all equal, 1/n when one has all. */
  static double jain(double[] x) {
    double sum = 0;
    double squares = 0;
    for (double v : x) {
      sum += v;
      squares += v * v;
    }
    return squares == 0 ? 0 : sum * sum / (x.length * squares);
  }

  private static double weightRatio(Run r, Params p) {
    double light = r.tenants().get("light").opsPerSecond(p.window());
    return light == 0
        ? Double.POSITIVE_INFINITY
        : r.tenants().get("heavy").opsPerSecond(p.window()) / light;
  }

  // ---- one run
  // -----------------------------------------------------------------------------------

  /** A fresh deployment, its data written, then the tenants' closed loops for the run's length. */
  static Run run(Params p, boolean fair, String label, List<Tenant> tenants)
      throws ExecutionException {
    long wallStart = System.nanoTime();
    VirtualScheduler clock = new VirtualScheduler();
    WanEmulator wan =
        WanEmulator.builder(clock)
            .uplinkBitsPerSecond(CLIENT_BITS_PER_S)
            .downlinkBitsPerSecond(CLIENT_BITS_PER_S)
            .seed(p.seed())
            .build();
    // Keep enough data objects per key for a large value's parts; old versions are never read.
    int keep = p.largeBytes() / p.chunkBytes() + 2;
    Map<String, WanEmulator.EmulatedCloud> clouds = new LinkedHashMap<>();
    for (int i = 0; i < CLOUDS.length; i++) {
      clouds.put(
          CLOUDS[i],
          wan.wrap(
              new RetainNewestCloud(CLOUDS[i], keep),
              WanEmulator.Link.rtt(Duration.ofMillis(RTT_MS[i]))
                  .bandwidthBitsPerSecond(BITS_PER_S[i])
                  .jitter(0.05)
                  .maxConcurrent(p.maxConcurrent())));
    }
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .executor(Runnable::run)
            .scheduler(clock)
            .closeDrivers(false)
            .partSize(p.chunkBytes())
            .writer("writer", WRITER);
    // Configuration 2: data p1, p2; writeDf's extra p3; metadata only p0 (added in that order).
    for (String id : List.of("p1", "p2", "p3", "p0")) {
      int i = Arrays.asList(CLOUDS).indexOf(id);
      b.cloud(
          clouds.get(id),
          id.equals("p0") ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA,
          Duration.ofMillis(RTT_MS[i]));
    }
    Tenancy.configure(b, fair, tenants, p);
    try (RafeStore store = b.dataCloudsInOrderAdded(true).build()) {
      Data data = Data.load(store, clock, p, tenants);
      long start = clock.nanoTime();
      long from = start + Math.round(p.warmup() * 1e9);
      long until = start + Math.round(p.seconds() * 1e9);
      List<Loop> loops = new ArrayList<>();
      for (Tenant t : tenants) {
        Loop loop = new Loop(store.forTenant(t.id()), t, clock, data, p, from, until);
        loops.add(loop);
      }
      for (Loop loop : loops) {
        loop.start();
      }
      clock.advance(Duration.ofNanos(until - clock.nanoTime()));
      for (Loop loop : loops) {
        loop.stopped = true;
      }
      Map<String, TenantResult> results = new LinkedHashMap<>();
      for (Loop loop : loops) {
        results.put(loop.tenant.id(), loop.result());
      }
      return new Run(
          label, fair, results, (System.nanoTime() - wallStart) / 1e9, Map.copyOf(store.stats()));
    }
  }

  /** What the tenants read: the small keys and the large values' versions. */
  record Data(List<Version> large) {
    static Data load(RafeStore store, VirtualScheduler clock, Params p, List<Tenant> tenants)
        throws ExecutionException {
      boolean small = tenants.stream().anyMatch(t -> t.kind() == Kind.SMALL_READ);
      boolean big = tenants.stream().anyMatch(t -> t.kind() == Kind.LARGE_READ);
      List<CompletableFuture<?>> writes = new ArrayList<>();
      List<Version> large = new ArrayList<>();
      if (big) {
        List<CompletableFuture<io.rafestore.WriteReceipt>> receipts = new ArrayList<>();
        for (int v = 0; v < p.largeValues(); v++) {
          receipts.add(store.write("lr/" + v, bytes(p.seed() * 31 + v, p.largeBytes())));
        }
        for (var r : receipts) {
          large.add(clock.runUntilDone(r).version());
        }
      }
      if (small) {
        // In waves, so that the loading does not queue thousands of requests at once.
        for (int k = 0; k < p.keys(); k++) {
          writes.add(store.write("sr/" + k, bytes(p.seed() * 1_000_003L + k, p.smallBytes())));
          if (writes.size() == 64 || k == p.keys() - 1) {
            clock.runUntilDone(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
            writes.clear();
          }
        }
      }
      // Lingering puts of the loading (to the clouds past the quorum) end before the run.
      clock.advance(Duration.ofSeconds(30));
      return new Data(large);
    }
  }

  /** One tenant's closed loop: {@code outstanding} operations, the next when one completes. */
  static final class Loop {
    final RafeStore store;
    final Tenant tenant;
    final VirtualScheduler clock;
    final Data data;
    final Params p;
    final long from;
    final long until;
    final SplittableRandom random;
    final List<Double> latencies = new ArrayList<>();
    final byte[][] largeBuffers;
    long ops;
    long bytes;
    int failures;
    long issued;
    boolean stopped;

    Loop(
        RafeStore store,
        Tenant t,
        VirtualScheduler clock,
        Data data,
        Params p,
        long from,
        long until) {
      this.store = store;
      this.tenant = t;
      this.clock = clock;
      this.data = data;
      this.p = p;
      this.from = from;
      this.until = until;
      this.random = new SplittableRandom(p.seed() ^ t.id().hashCode());
      this.largeBuffers =
          t.kind() == Kind.LARGE_WRITE
              ? new byte[][] {
                bytes(p.seed() + 1, p.largeBytes()), bytes(p.seed() + 2, p.largeBytes())
              }
              : null;
    }

    void start() {
      for (int i = 0; i < tenant.outstanding(); i++) {
        next();
      }
    }

    private void next() {
      if (stopped || clock.nanoTime() >= until) {
        return;
      }
      long n = issued++;
      long t0 = clock.nanoTime();
      CompletableFuture<?> op;
      long payload;
      try {
        switch (tenant.kind()) {
          case SMALL_READ -> {
            op = store.read("sr/" + random.nextInt(p.keys()));
            payload = p.smallBytes();
          }
          case LARGE_READ -> {
            int perValue = p.largeBytes() / p.chunkBytes();
            int value = (int) ((n / perValue) % data.large().size());
            long offset = (n % perValue) * (long) p.chunkBytes();
            op = store.read("lr/" + value, data.large().get(value), offset, p.chunkBytes());
            payload = p.chunkBytes();
          }
          case SMALL_WRITE -> {
            op = store.write(tenant.id() + "/" + (n % 64), bytes(p.seed() ^ n, p.smallBytes()));
            payload = p.smallBytes();
          }
          case LARGE_WRITE -> {
            byte[] value = largeBuffers[(int) (n % 2)].clone();
            // A different value each time (the first bytes count the writes).
            for (int i = 0; i < 8; i++) {
              value[i] = (byte) (n >>> (8 * i));
            }
            op = store.write(tenant.id() + "/" + (n % 4), value);
            payload = p.largeBytes();
          }
          default -> throw new IllegalStateException();
        }
      } catch (RuntimeException e) {
        op = CompletableFuture.failedFuture(e);
        payload = 0;
      }
      long size = payload;
      op.whenComplete(
          (r, e) -> {
            long t1 = clock.nanoTime();
            if (t1 >= from && t1 <= until) {
              if (e != null) {
                failures++;
              } else {
                ops++;
                bytes += size;
                latencies.add((t1 - t0) / 1e6);
              }
            }
            next();
          });
    }

    TenantResult result() {
      return new TenantResult(
          tenant.id(),
          tenant.kind(),
          ops,
          bytes,
          failures,
          latencies.stream().mapToDouble(Double::doubleValue).toArray());
    }
  }

  // ---- plot
  // --------------------------------------------------------------------------------------

  /** Bars of each kind's slowdown together vs alone, fairness off and on, and the 1.25 x n line. */
  static String slowdownSvg(
      Map<Boolean, Map<Kind, TenantResult>> alone, Map<Boolean, Run> together) {
    int width = 640;
    int height = 400;
    int left = 70;
    int right = 20;
    int top = 50;
    int bottom = 60;
    int n = Kind.values().length;
    double bound = 1.25 * n;
    double max = bound;
    double[][] s = new double[2][n];
    for (int f = 0; f < 2; f++) {
      for (int k = 0; k < n; k++) {
        Kind kind = Kind.values()[k];
        double v =
            slowdown(alone.get(f == 1).get(kind), together.get(f == 1).tenants().get(kind.id));
        s[f][k] = v;
        if (Double.isFinite(v)) {
          max = Math.max(max, v);
        }
      }
    }
    max = Math.ceil(max * 1.1);
    double plotW = width - left - right;
    double plotH = height - top - bottom;
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n",
            width,
            height));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"20\" font-size=\"14\">Slowdown of each tenant, %d together vs"
                + " alone (lower is better)</text>%n",
            left,
            n));
    // Axes and ticks.
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
            left,
            top,
            left,
            height - bottom,
            left,
            height - bottom,
            width - right,
            height - bottom));
    int step = (int) Math.max(1, Math.ceil(max / 8));
    for (int t = 0; t <= max; t += step) {
      double y = height - bottom - plotH * t / max;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d x</text>%n",
              left,
              y,
              width - right,
              y,
              left - 6,
              y + 4,
              t));
    }
    String[] colours = {"#d95f02", "#1b9e77"};
    String[] names = {"fairness off", "fairness on"};
    double group = plotW / n;
    double bar = group * 0.3;
    for (int k = 0; k < n; k++) {
      double x0 = left + group * k + group * 0.2;
      for (int f = 0; f < 2; f++) {
        double v = Double.isFinite(s[f][k]) ? s[f][k] : max;
        double h = plotH * Math.min(v, max) / max;
        double x = x0 + f * bar;
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/><text"
                    + " x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%s</text>%n",
                x,
                height - bottom - h,
                bar - 2,
                h,
                colours[f],
                x + bar / 2 - 1,
                height - bottom - h - 4,
                Double.isFinite(s[f][k]) ? String.format(Locale.ROOT, "%.2f", s[f][k]) : "inf"));
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              x0 + bar,
              height - bottom + 18,
              Kind.values()[k].id));
    }
    double yb = height - bottom - plotH * bound / max;
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\""
                + " stroke-dasharray=\"6,3\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">target"
                + " 1.25 x n = %.2f</text>%n",
            left,
            yb,
            width - right,
            yb,
            width - right,
            yb - 4,
            bound));
    for (int f = 0; f < 2; f++) {
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                  + "<text x=\"%d\" y=\"%d\">%s</text>%n",
              left + 160 * f,
              height - 22,
              colours[f],
              left + 160 * f + 16,
              height - 12,
              names[f]));
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  // ---- helpers
  // -----------------------------------------------------------------------------------

  static double percentile(double[] values, double p) {
    double[] s = values.clone();
    Arrays.sort(s);
    if (s.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(p * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, i))];
  }

  private static String target(boolean met, String what) {
    return (met ? "PASS " : "MISS ") + what + "\n";
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  static byte[] bytes(long seed, int size) {
    byte[] b = new byte[size];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }
}
