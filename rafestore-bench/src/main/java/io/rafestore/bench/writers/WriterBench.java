package io.rafestore.bench.writers;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.Pricing;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
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
 * readM with many writers (issue 23): a read of a key written by one of W trusted writers, W = 1,
 * 10, 100 and 1,000, with {@link WriterDiscovery#LISTING} (a listing of the key's logs per cloud,
 * GETs of the writers it names; the mode certified writers need, whose set a reader cannot
 * enumerate) and with {@link WriterDiscovery#PER_WRITER} (today's explicit trust: one GET per
 * trusted writer per cloud). Reports requests per read, latency and dollars per 10,000 reads.
 *
 * <p><b>Deployment.</b> Four in-memory clouds behind the {@link WanEmulator} with the paper's Table
 * 1 profile (p0 5 ms and 100 Mbit/s; p1, p2, p3 315, 750 and 1,200 ms at 2 Mbit/s; 5 % jitter),
 * every cloud holding data and metadata, f = 1, mode FAST, on <b>virtual time</b> ({@link
 * VirtualScheduler}): round trips and transfers are modelled, the client's CPU takes no time. Each
 * of {@code --keys} keys is written once with a 1 KiB value (inline in the signed log, so a read is
 * readM alone and its requests are all readM's) by one writer drawn at random among the W; the
 * reader, a read-only client trusting all W, then reads every key twice: <b>cold</b> (its first
 * read of the key: it expects no writer and learns them from the listings) and <b>warm</b> (it
 * fetches the writers it found last time together with the listing). 1 s between reads.
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
 * <p>Prints target lines (PASS/MISS) for LISTING: requests per read grow by at most one listing per
 * cloud from the smallest to the largest W, mean latency at the largest W within 1.2 x of the
 * smallest (cold and warm reads each), dollars per 10,000 reads at W = 100 within 1.5 x of W = 1.
 * Exit code 1 if a target is missed. A command-line tool; not thread-safe.
 */
public final class WriterBench {
  static final int CLOUDS = 4;
  static final long[] RTT_MS = {5, 315, 750, 1200};
  static final long[] BPS = {100_000_000, 2_000_000, 2_000_000, 2_000_000};
  static final int VALUE = 1024;

  private WriterBench() {}

  /** One cell: a discovery mode at W writers. */
  record Cell(
      WriterDiscovery mode,
      int writers,
      int reads,
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
      for (WriterDiscovery mode : List.of(WriterDiscovery.LISTING, WriterDiscovery.PER_WRITER)) {
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

  /** Measures one mode at {@code w} writers on a fresh deployment. */
  static Cell cell(WriterDiscovery mode, int w, int keys, List<KeyPair> pairs, long seed)
      throws ExecutionException {
    Deployment d = new Deployment(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    byte[] value = new byte[VALUE];
    rnd.nextBytes(value);
    Map<Integer, RafeStore> writers = new LinkedHashMap<>();
    try {
      for (int k = 0; k < keys; k++) {
        int author = rnd.nextInt(w);
        RafeStore writer =
            writers.computeIfAbsent(
                author, a -> d.builder(mode, w, pairs).writer(id(a), pairs.get(a)).build());
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
    try (RafeStore reader = d.builder(mode, w, pairs).build()) {
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
        requests[0],
        requests[1],
        (double) lists / reads,
        latency[0],
        latency[1],
        dollars / reads * 10_000);
  }

  static String report(Map<String, Cell> cells, int[] levels, int keys) {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "A read of a key written by 1 of W trusted writers; %d keys, each read cold then warm;"
                + " 1 KiB values (inline: the read is readM); Table 1 profile, every cloud data and"
                + " metadata, f = 1, FAST, virtual time; S3 list prices.%n%n",
            keys));
    md.append(
        "| mode | W | requests/read | cold | warm | listings/read | cold ms (mean) | warm ms"
            + " (mean) | warm ms (max) | $ per 10,000 reads |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Cell c : cells.values()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %.1f | %.1f | %.1f | %.2f | %.0f | %.0f | %.0f | %.4f |%n",
              c.mode(),
              c.writers(),
              c.requestsPerRead(),
              Cell.mean(c.requestsCold()),
              Cell.mean(c.requestsWarm()),
              c.listsPerRead(),
              Cell.mean(c.latencyColdMs()),
              Cell.mean(c.latencyWarmMs()),
              Arrays.stream(c.latencyWarmMs()).max().orElse(0),
              c.dollarsPer10k()));
    }
    md.append('\n');
    int lo = Arrays.stream(levels).min().orElse(1);
    int hi = Arrays.stream(levels).max().orElse(1);
    Cell small = cells.get(WriterDiscovery.LISTING + "/" + lo);
    Cell large = cells.get(WriterDiscovery.LISTING + "/" + hi);
    double grow = large.requestsPerRead() - small.requestsPerRead();
    md.append(
        target(
            grow <= CLOUDS,
            String.format(
                Locale.ROOT,
                "LISTING requests per read W=%d vs W=%d: %.1f vs %.1f (+%.1f; at most one listing"
                    + " per cloud, +%d)",
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
                  "LISTING %s read latency W=%d vs W=%d: %.0f vs %.0f ms, %.2f x (target <= 1.2 x)",
                  phase,
                  hi,
                  lo,
                  a,
                  b,
                  a / b)));
    }
    Cell c1 = cells.get(WriterDiscovery.LISTING + "/1");
    Cell c100 = cells.get(WriterDiscovery.LISTING + "/100");
    if (c1 != null && c100 != null) {
      double r = c100.dollarsPer10k() / c1.dollarsPer10k();
      md.append(
          target(
              r <= 1.5,
              String.format(
                  Locale.ROOT,
                  "LISTING cost per 10,000 reads W=100 vs W=1: $%.4f vs $%.4f, %.2f x (target <="
                      + " 1.5 x)",
                  c100.dollarsPer10k(),
                  c1.dollarsPer10k(),
                  r)));
    }
    Cell p1 = cells.get(WriterDiscovery.PER_WRITER + "/" + lo);
    Cell pHi = cells.get(WriterDiscovery.PER_WRITER + "/" + hi);
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
              "AUTO, the default (PER_WRITER up to %d trusted writers, LISTING above), W=%d vs W=%d:"
                  + " %.1f vs %.1f requests per read, $%.4f vs $%.4f per 10,000 reads.%n",
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

    /** A client trusting the first {@code w} writers of {@code pairs}, without identity. */
    RafeStore.Builder builder(WriterDiscovery mode, int w, List<KeyPair> pairs) {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .mode(ProtocolMode.FAST)
              .executor(Runnable::run)
              .scheduler(scheduler)
              .closeDrivers(false)
              .writerDiscovery(mode);
      for (int i = 0; i < CLOUDS; i++) {
        b.cloud(clouds.get(i), CloudRole.DATA_AND_METADATA, Duration.ofMillis(RTT_MS[i]));
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
