package io.rafestore.bench.writers;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.Pricing;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.WriterCertificate;
import io.rafestore.WriterDiscovery;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.clouds.WanEmulator;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
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
 * readM with many writers (issue 23): a read of a key written by one of W writers, W = 1, 10, 100
 * and 1,000, in three setups ({@link Setup}): <b>certified</b> writers (each carries a certificate
 * of the operator key, the reader is configured with that key alone and lists the key's logs, as
 * {@link WriterDiscovery#AUTO} does with operator keys), and <b>explicit trust</b> (the reader is
 * configured with all W public keys) with {@link WriterDiscovery#LISTING} and with {@link
 * WriterDiscovery#PER_WRITER} (one GET per trusted writer per cloud). Reports requests per read,
 * latency and dollars per 10,000 reads.
 *
 * <p><b>Deployment.</b> Four in-memory clouds behind the {@link WanEmulator} with the paper's Table
 * 1 profile (p0 5 ms and 100 Mbit/s; p1, p2, p3 315, 750 and 1,200 ms at 2 Mbit/s; 5 % jitter),
 * every cloud holding data and metadata, f = 1, mode FAST, on <b>virtual time</b> ({@link
 * VirtualScheduler}): round trips and transfers are modelled, the client's CPU takes no time. Each
 * of {@code --keys} keys is written once with a 1 KiB value (inline in the signed log, so a read is
 * readM alone and its requests are all readM's) by one writer drawn at random among the W (with
 * certificates, all W certificates are on the clouds first); the reader, a read-only client, first
 * reads a key nobody wrote (not measured, reported apart as the <b>start</b>: with certificates,
 * its first reading of the trust data, one listing of {@code c/} per cloud and the W certificates;
 * read again every {@code trustRefresh}, then without the certificates it holds), then reads every
 * key twice: <b>cold</b> (its first read of the key: it expects no writer and learns them from the
 * listings) and <b>warm</b> (it fetches the writers it found last time together with the listing).
 * 1 s between reads.
 *
 * <p><b>Cost.</b> Every cloud is priced at {@link Pricing#DEFAULT} (S3 list prices: a list request
 * costs as much as 12.5 GETs): requests sent (cancelled ones included, as providers bill them),
 * listings and egress, from the reader's {@link RafeStore#stats()}.
 *
 * <pre>
 * java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.writers.WriterBench --out DIR
 * java -cp ... io.rafestore.bench.writers.WriterBench --quick
 * </pre>
 *
 * <p>Prints target lines (PASS/MISS) for the certified setup and for explicit trust by listing:
 * requests per read grow by at most one listing per cloud from the smallest to the largest W, mean
 * latency at the largest W within 1.2 x of the smallest (cold and warm reads each), dollars per
 * 10,000 reads at W = 100 within 1.5 x of W = 1 (listing prices included). Exit code 1 if a target
 * is missed. A command-line tool; not thread-safe.
 */
public final class WriterBench {
  static final int CLOUDS = 4;
  static final long[] RTT_MS = {5, 315, 750, 1200};
  static final long[] BPS = {100_000_000, 2_000_000, 2_000_000, 2_000_000};
  static final int VALUE = 1024;

  /** The operator key of the certified setup. */
  static final KeyPair OPERATOR = SigningKeys.generate();

  private WriterBench() {}

  /** How the reader knows the writers. */
  enum Setup {
    /** Certified writers; the reader holds the operator key alone (and lists: AUTO). */
    CERTIFIED("certified", WriterDiscovery.AUTO),
    /** Every writer's key configured in the reader; readM by listing. */
    LISTING("explicit, LISTING", WriterDiscovery.LISTING),
    /** Every writer's key configured in the reader; one GET per trusted writer per cloud. */
    PER_WRITER("explicit, PER_WRITER", WriterDiscovery.PER_WRITER);

    final String label;
    final WriterDiscovery discovery;

    Setup(String label, WriterDiscovery discovery) {
      this.label = label;
      this.discovery = discovery;
    }
  }

  /** One cell: a setup at W writers. */
  record Cell(
      Setup mode,
      int writers,
      int reads,
      double startRequests,
      double[] requestsCold,
      double[] requestsWarm,
      double listsPerRead,
      double[] latencyColdMs,
      double[] latencyWarmMs,
      double dollarsPer10k) {
    static double mean(double[] a) {
      return Arrays.stream(a).average().orElse(0);
    }

    double requestsPerRead() {
      return (Arrays.stream(requestsCold).sum() + Arrays.stream(requestsWarm).sum()) / reads;
    }
  }

  public static void main(String[] args) {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /** Runs the bench; returns the exit code. Never calls {@link System#exit}. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    int[] levels = {1, 10, 100, 1000};
    int keys = 20;
    long seed = 23;
    Path outDir = null;
    boolean quick = false;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> quick = true;
          case "--levels" ->
              levels =
                  Arrays.stream(value(args, ++i, a).split(","))
                      .mapToInt(s -> Integer.parseInt(s.trim()))
                      .toArray();
          case "--keys" -> keys = Integer.parseInt(value(args, ++i, a));
          case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
          case "--out" -> outDir = Path.of(value(args, ++i, a));
          default -> {
            err.println(
                "usage: WriterBench [--quick] [--levels 1,10,100,1000] [--keys N] [--seed S]"
                    + " [--out DIR]");
            return 2;
          }
        }
      }
      if (quick) {
        keys = Math.min(keys, 4);
      }
      int maxW = Arrays.stream(levels).max().orElse(1);
      List<KeyPair> pairs = new ArrayList<>(maxW);
      for (int i = 0; i < maxW; i++) {
        pairs.add(SigningKeys.generate());
      }
      Map<String, Cell> cells = new LinkedHashMap<>();
      for (Setup mode : Setup.values()) {
        for (int w : levels) {
          cells.put(mode + "/" + w, cell(mode, w, keys, pairs, seed));
        }
      }
      String report = report(cells, levels, keys);
      out.print(report);
      if (outDir != null) {
        Files.createDirectories(outDir);
        Files.writeString(outDir.resolve("writers.md"), report, StandardCharsets.UTF_8);
      }
      return report.contains("MISS ") ? 1 : 0;
    } catch (IOException | ExecutionException | RuntimeException e) {
      err.println("WriterBench failed: " + e);
      e.printStackTrace(err);
      return 1;
    }
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  static String id(int i) {
    return String.format(Locale.ROOT, "w%04d", i);
  }

  /** Writer {@code i}'s certificate of {@link #OPERATOR}, valid for a year from now. */
  static WriterCertificate certificate(int i, List<KeyPair> pairs) {
    Instant now = Instant.now();
    return WriterCertificate.issue(
        id(i),
        pairs.get(i).getPublic(),
        now.minus(Duration.ofDays(1)),
        now.plus(Duration.ofDays(365)),
        now,
        "ops",
        OPERATOR.getPrivate());
  }

  /** Measures one setup at {@code w} writers on a fresh deployment. */
  static Cell cell(Setup mode, int w, int keys, List<KeyPair> pairs, long seed)
      throws ExecutionException {
    Deployment d = new Deployment(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    byte[] value = new byte[VALUE];
    rnd.nextBytes(value);
    if (mode == Setup.CERTIFIED) {
      // The W writers' certificates on the clouds, as their first writes would leave them.
      try (RafeStore operator = d.builder(mode, w, pairs).build()) {
        List<CompletableFuture<Void>> published = new ArrayList<>(w);
        for (int i = 0; i < w; i++) {
          published.add(operator.publishCertificate(certificate(i, pairs)));
        }
        d.run(CompletableFuture.allOf(published.toArray(new CompletableFuture<?>[0])));
      }
    }
    Map<Integer, RafeStore> writers = new LinkedHashMap<>();
    try {
      for (int k = 0; k < keys; k++) {
        int author = rnd.nextInt(w);
        RafeStore writer =
            writers.computeIfAbsent(
                author,
                a -> {
                  RafeStore.Builder b = d.builder(mode, w, pairs).writer(id(a), pairs.get(a));
                  if (mode == Setup.CERTIFIED) {
                    b.writerCertificate(certificate(a, pairs));
                  }
                  return b.build();
                });
        d.run(writer.write("k/" + k, value));
      }
    } finally {
      writers.values().forEach(RafeStore::close);
    }
    d.scheduler.advance(Duration.ofSeconds(10));
    double[][] requests = new double[2][keys];
    double[][] latency = new double[2][keys];
    long lists = 0;
    double dollars = 0;
    double startRequests;
    try (RafeStore reader = d.builder(mode, w, pairs).build()) {
      // The start: a read of a key nobody wrote (with certificates, the first trust reading).
      Map<String, CloudStats> fresh = reader.stats();
      try {
        d.run(reader.read("nobody"));
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof io.rafestore.KeyNotFoundException)) {
          throw e;
        }
      }
      d.scheduler.runUntilIdle();
      startRequests = requestsSince(fresh, reader.stats());
      for (int round = 0; round < 2; round++) {
        for (int k = 0; k < keys; k++) {
          d.scheduler.advance(Duration.ofSeconds(1));
          Map<String, CloudStats> before = reader.stats();
          long start = d.scheduler.nanoTime();
          d.run(reader.read("k/" + k));
          latency[round][k] = (d.scheduler.nanoTime() - start) / 1e6;
          // Requests cancelled after the quorum are counted: they were sent, and billed.
          d.scheduler.runUntilIdle();
          Map<String, CloudStats> after = reader.stats();
          for (Map.Entry<String, CloudStats> e : after.entrySet()) {
            CloudStats a = e.getValue();
            CloudStats b = before.get(e.getKey());
            long g = a.gets() - b.gets();
            long l = a.lists() - b.lists();
            long bytes = a.bytesDown() - b.bytesDown();
            requests[round][k] += g + l;
            lists += l;
            dollars +=
                g * Pricing.DEFAULT.perGet()
                    + l * Pricing.DEFAULT.perList()
                    + Pricing.DEFAULT.egress(bytes);
          }
        }
      }
    }
    int reads = 2 * keys;
    return new Cell(
        mode,
        w,
        reads,
        startRequests,
        requests[0],
        requests[1],
        (double) lists / reads,
        latency[0],
        latency[1],
        dollars / reads * 10_000);
  }

  /** GETs and listings between two snapshots of a client's stats. */
  static double requestsSince(Map<String, CloudStats> before, Map<String, CloudStats> after) {
    long n = 0;
    for (Map.Entry<String, CloudStats> e : after.entrySet()) {
      CloudStats b = before.get(e.getKey());
      n += e.getValue().gets() - b.gets() + e.getValue().lists() - b.lists();
    }
    return n;
  }

  static String report(Map<String, Cell> cells, int[] levels, int keys) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "A read of a key written by 1 of W writers; %d keys, each read cold then warm;"
                + " 1 KiB values (inline: the read is readM); Table 1 profile, every cloud data and"
                + " metadata, f = 1, FAST, virtual time; S3 list prices. certified: the reader is"
                + " configured with the operator key alone; explicit: with all W writers' keys."
                + " start: the requests of the reader's first read (not in the other columns;"
                + " certified, its first reading of the trust data).%n%n",
            keys));
    for (Setup setup : Setup.values()) {
      md.append(table(cells, setup));
    }
    int lo = Arrays.stream(levels).min().orElse(1);
    int hi = Arrays.stream(levels).max().orElse(1);
    md.append(targets(cells, Setup.CERTIFIED, lo, hi));
    md.append(targets(cells, Setup.LISTING, lo, hi));
    Cell small = cells.get(Setup.LISTING + "/" + lo);
    Cell large = cells.get(Setup.LISTING + "/" + hi);
    Cell p1 = cells.get(Setup.PER_WRITER + "/" + lo);
    Cell pHi = cells.get(Setup.PER_WRITER + "/" + hi);
    if (p1 != null && pHi != null) {
      md.append(
          String.format(
              Locale.ROOT,
              "For comparison, PER_WRITER (explicit trust) W=%d vs W=%d: %.1f vs %.1f requests per"
                  + " read, $%.4f vs $%.4f per 10,000 reads, warm latency %.0f vs %.0f ms.%n",
              hi,
              lo,
              pHi.requestsPerRead(),
              p1.requestsPerRead(),
              pHi.dollarsPer10k(),
              p1.dollarsPer10k(),
              Cell.mean(pHi.latencyWarmMs()),
              Cell.mean(p1.latencyWarmMs())));
      Cell autoHi = WriterDiscovery.AUTO_PER_WRITER_MAX < hi ? large : pHi;
      Cell autoLo = WriterDiscovery.AUTO_PER_WRITER_MAX < lo ? small : p1;
      md.append(
          String.format(
              Locale.ROOT,
              "AUTO with explicit trust, the default (PER_WRITER up to %d trusted writers, LISTING"
                  + " above), W=%d vs W=%d: %.1f vs %.1f requests per read, $%.4f vs $%.4f per"
                  + " 10,000 reads.%n",
              WriterDiscovery.AUTO_PER_WRITER_MAX,
              hi,
              lo,
              autoHi.requestsPerRead(),
              autoLo.requestsPerRead(),
              autoHi.dollarsPer10k(),
              autoLo.dollarsPer10k()));
    }
    return md.toString();
  }

  /** The table of one setup's cells. */
  static String table(Map<String, Cell> cells, Setup setup) {
    StringBuilder md = new StringBuilder();
    md.append("Reader trust: ").append(setup.label).append("\n\n");
    md.append(
        "| mode | W | requests/read | cold | warm | listings/read | cold ms (mean) | warm ms"
            + " (mean) | warm ms (max) | $ per 10,000 reads | start requests |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Cell c : cells.values()) {
      if (c.mode() != setup) {
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %.1f | %.1f | %.1f | %.2f | %.0f | %.0f | %.0f | %.4f | %,.0f |%n",
              c.mode(),
              c.writers(),
              c.requestsPerRead(),
              Cell.mean(c.requestsCold()),
              Cell.mean(c.requestsWarm()),
              c.listsPerRead(),
              Cell.mean(c.latencyColdMs()),
              Cell.mean(c.latencyWarmMs()),
              Arrays.stream(c.latencyWarmMs()).max().orElse(0),
              c.dollarsPer10k(),
              c.startRequests()));
    }
    md.append('\n');
    return md.toString();
  }

  /** The target lines of {@code setup}: requests, latency and cost from W = lo to hi. */
  static String targets(Map<String, Cell> cells, Setup setup, int lo, int hi) {
    StringBuilder md = new StringBuilder();
    Cell small = cells.get(setup + "/" + lo);
    Cell large = cells.get(setup + "/" + hi);
    double grow = large.requestsPerRead() - small.requestsPerRead();
    md.append(
        target(
            grow <= CLOUDS,
            String.format(
                Locale.ROOT,
                "%s requests per read W=%d vs W=%d: %.1f vs %.1f (+%.1f; at most one listing"
                    + " per cloud, +%d)",
                setup,
                hi,
                lo,
                large.requestsPerRead(),
                small.requestsPerRead(),
                grow,
                CLOUDS)));
    for (String phase : List.of("cold", "warm")) {
      double a = Cell.mean(phase.equals("cold") ? large.latencyColdMs() : large.latencyWarmMs());
      double b = Cell.mean(phase.equals("cold") ? small.latencyColdMs() : small.latencyWarmMs());
      md.append(
          target(
              a <= 1.2 * b,
              String.format(
                  Locale.ROOT,
                  "%s %s read latency W=%d vs W=%d: %.0f vs %.0f ms, %.2f x (target <= 1.2 x)",
                  setup,
                  phase,
                  hi,
                  lo,
                  a,
                  b,
                  a / b)));
    }
    Cell c1 = cells.get(setup + "/1");
    Cell c100 = cells.get(setup + "/100");
    if (c1 != null && c100 != null) {
      double r = c100.dollarsPer10k() / c1.dollarsPer10k();
      md.append(
          target(
              r <= 1.5,
              String.format(
                  Locale.ROOT,
                  "%s cost per 10,000 reads W=100 vs W=1: $%.4f vs $%.4f, %.2f x (target <="
                      + " 1.5 x)",
                  setup,
                  c100.dollarsPer10k(),
                  c1.dollarsPer10k(),
                  r)));
    }
    return md.toString();
  }

  private static String target(boolean met, String what) {
    return (met ? "PASS " : "MISS ") + what + "\n";
  }

  /** Four in-memory clouds behind the Table 1 WAN on virtual time. */
  static final class Deployment {
    final VirtualScheduler scheduler = new VirtualScheduler();
    final List<WanEmulator.EmulatedCloud> clouds = new ArrayList<>();

    Deployment(long seed) {
      WanEmulator wan = WanEmulator.builder(scheduler).seed(seed).build();
      for (int i = 0; i < CLOUDS; i++) {
        clouds.add(
            wan.wrap(
                new MemoryCloud("p" + i),
                WanEmulator.Link.rtt(Duration.ofMillis(RTT_MS[i]))
                    .bandwidthBitsPerSecond(BPS[i])
                    .jitter(0.05)));
      }
    }

    /**
     * A client without identity trusting the first {@code w} writers of {@code pairs}, or (setup
     * CERTIFIED) the operator key alone.
     */
    RafeStore.Builder builder(Setup mode, int w, List<KeyPair> pairs) {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .mode(ProtocolMode.FAST)
              .executor(Runnable::run)
              .scheduler(scheduler)
              .closeDrivers(false)
              .writerDiscovery(mode.discovery);
      for (int i = 0; i < CLOUDS; i++) {
        b.cloud(clouds.get(i), CloudRole.DATA_AND_METADATA, Duration.ofMillis(RTT_MS[i]));
      }
      if (mode == Setup.CERTIFIED) {
        return b.trustOperator("ops", OPERATOR.getPublic());
      }
      for (int i = 0; i < w; i++) {
        b.trustWriter(id(i), pairs.get(i).getPublic());
      }
      return b;
    }

    <T> T run(CompletableFuture<T> f) throws ExecutionException {
      return scheduler.runUntilDone(f);
    }
  }
}
