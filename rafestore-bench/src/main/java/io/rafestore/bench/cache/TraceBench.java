package io.rafestore.bench.cache;

import io.rafestore.CloudRole;
import io.rafestore.Prefetch;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.ReadTierStats;
import io.rafestore.SigningKeys;
import io.rafestore.Version;
import io.rafestore.cache.CaffeineValueCache;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The read tier against a trace with Tombolo's mix of access patterns (issue 17): about 21 %
 * sequential once, 21 % random once, 47 % sequential repeated and 10 % random repeated accesses,
 * over a working set a few times larger than the cache, replayed in one run under four prefetching
 * modes ({@link Prefetch.Mode}: none, sequential, adaptive sequential, history graph plus adaptive
 * sequential), each on a fresh deployment with the same trace.
 *
 * <p><b>Deployment.</b> Four in-memory clouds behind the {@link WanEmulator} with the paper's Table
 * 1 profile (p0 5 ms and 100 Mbit/s; p1, p2, p3 315, 750 and 1,200 ms at 2 Mbit/s; 5 % jitter) in
 * Configuration 2 (data on p1 and p2, p3 writeDf's extra, p0 metadata only), f = 1, PAPER, on
 * <b>virtual time</b> ({@link VirtualScheduler}): the WAN's round trips and transfers are modelled,
 * the client's own CPU takes no time, so a cache hit costs 0 ms. Values are stored as data objects
 * (inline values off): large values in 16 parts of 16 KiB, small ones of 4 KiB. A writer client
 * stores the data set; the reader (the client measured) has a {@link CaffeineValueCache} a few
 * times smaller than the data it reads.
 *
 * <p><b>Trace.</b> Episodes are drawn at random so that accesses come out in the mix: a stream over
 * a large value read once (its 16 parts by range, 50 ms apart), a small value read once (80 % of
 * them written by the reader shortly before, write-through, as in the seed's traces where writes
 * precede most random-once reads), a stream over one of 24 large values read again and again, or
 * one of 12 groups of 10 small values read in the group's fixed order. Between episodes the reader
 * thinks 1 s, between reads of a group 500 ms. Every read is of a version the reader knows ({@code
 * read(key, version)} or a range of it): a hit is a read whose units were all in the cache (no
 * request at all), a miss pays readM (750 ms, Table 1's third-fastest cloud) and the fetch.
 *
 * <p><b>Graph memory.</b> Separately, {@code --graph-accesses} (1,000,000 by default) random range
 * reads over 1,000 values of 64 parts of 1 KiB, all cached (so no cloud is asked), feed the history
 * graph; its nodes, edges and estimated bytes are printed every tenth of the way.
 *
 * <pre>
 * java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.cache.TraceBench --out DIR
 * java -cp ... io.rafestore.bench.cache.TraceBench --quick
 * </pre>
 *
 * <p><b>Why reads missed.</b> Each missed read is put in one class by the {@link ReadTierStats}
 * miss causes its units counted ({@link Cause}): first touch (a cold miss of a key the reader had
 * neither read nor written, a floor no cache avoids), cold, refused by a prefetch budget, dropped
 * (prefetched and gone unused), evicted, late (waited for its prefetch in flight, with the mean
 * wait); per mode, and per pattern for the adaptive and history modes.
 *
 * <p>Prints target lines (PASS/MISS): the history mode's miss ratio at most 10 %, its p90 read
 * latency at least 10 x lower than sequential-only, the graph's nodes within their bound. A
 * command-line tool; not thread-safe.
 */
public final class TraceBench {
  static final int PART = 16 * 1024;
  static final int PARTS = 16;
  static final int SMALL = 4 * 1024;
  static final int SEQ_REPEATED_VALUES = 24;
  static final int GROUPS = 12;
  static final int GROUP_SIZE = 10;
  static final KeyPair WRITER = SigningKeys.generate();
  static final KeyPair READER = SigningKeys.generate();

  private TraceBench() {}

  /** The four kinds of access of Tombolo's analysis. */
  enum Pattern {
    SEQ_ONCE,
    RAND_ONCE,
    SEQ_REPEATED,
    RAND_REPEATED
  }

  /**
   * One access: read {@code length} bytes from {@code offset} of {@code key} (all of a small value
   * when {@code length} is 0), after {@code think}; {@code writeFirst}: the reader writes the value
   * just before.
   */
  record Access(
      Pattern pattern, String key, long offset, int length, Duration think, boolean writeFirst) {}

  /**
   * Why a read missed ({@link ReadTierStats}'s causes, per read: the first of these its units
   * counted): {@code FIRST_TOUCH} is a cold miss of a key the reader had neither read nor written
   * before, which no cache or prediction without foresight avoids.
   */
  enum Cause {
    FIRST_TOUCH,
    COLD,
    REFUSED,
    DROPPED,
    EVICTED,
    LATE
  }

  /** What one mode measured. */
  record Result(
      Prefetch.Mode mode,
      int reads,
      int writes,
      long misses,
      double[] latenciesMs,
      Map<Pattern, long[]> byPattern,
      Map<Pattern, long[]> byCause,
      double lateWaitMs,
      ReadTierStats stats) {
    double percentile(double p) {
      double[] s = latenciesMs.clone();
      Arrays.sort(s);
      if (s.length == 0) {
        return 0;
      }
      int i = (int) Math.ceil(p * s.length) - 1;
      return s[Math.max(0, Math.min(s.length - 1, i))];
    }

    double missRatio() {
      return reads == 0 ? 0 : (double) misses / reads;
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
    int accesses = 6_000;
    int graphAccesses = 1_000_000;
    long seed = 17;
    Path outDir = null;
    boolean quick = false;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> quick = true;
          case "--accesses" -> accesses = Integer.parseInt(value(args, ++i, a));
          case "--graph-accesses" -> graphAccesses = Integer.parseInt(value(args, ++i, a));
          case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
          case "--out" -> outDir = Path.of(value(args, ++i, a));
          default -> {
            err.println(
                "usage: TraceBench [--quick] [--accesses N] [--graph-accesses N] [--seed S]"
                    + " [--out DIR]");
            return 2;
          }
        }
      }
      if (quick) {
        accesses = Math.min(accesses, 1_200);
        graphAccesses = Math.min(graphAccesses, 20_000);
      }
      List<Access> trace = trace(accesses, seed);
      StringBuilder md = new StringBuilder();
      long cacheBytes = cacheBytes(trace);
      md.append(
          String.format(
              Locale.ROOT,
              "Trace: %d accesses (%s), data read %.1f MiB, cache %.1f MiB, prefetch budget"
                  + " %.2f MiB in flight and as much kept until first read; Table 1 profile,"
                  + " Configuration 2, virtual time.%n%n",
              trace.size(),
              mix(trace),
              dataBytes(trace) / 1048576.0,
              cacheBytes / 1048576.0,
              prefetchBytes(cacheBytes) / 1048576.0));
      md.append(
          "| mode | reads | misses | miss ratio | p50 ms | p90 ms | p99 ms | mean ms |"
              + " prefetched | accuracy | wasted MiB | wasted $ | saved $ |\n");
      md.append(
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
      Map<Prefetch.Mode, Result> results = new HashMap<>();
      for (Prefetch.Mode mode : Prefetch.Mode.values()) {
        Result r = replay(trace, mode, cacheBytes, seed);
        results.put(mode, r);
        double mean = Arrays.stream(r.latenciesMs()).average().orElse(0);
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %d | %.1f %% | %.1f | %.1f | %.1f | %.1f | %d | %.2f | %.2f | %.6f | %.6f |%n",
                mode,
                r.reads(),
                r.misses(),
                100 * r.missRatio(),
                r.percentile(0.5),
                r.percentile(0.9),
                r.percentile(0.99),
                mean,
                r.stats().prefetches(),
                r.stats().prefetchAccuracy(),
                r.stats().wastedBytes() / 1048576.0,
                r.stats().wastedDollars(),
                r.stats().dollarsSaved()));
      }
      md.append("\nMisses by pattern (misses / reads):\n\n| mode |");
      for (Pattern p : Pattern.values()) {
        md.append(' ').append(p).append(" |");
      }
      md.append("\n| --- |");
      for (int i = 0; i < Pattern.values().length; i++) {
        md.append(" ---: |");
      }
      md.append('\n');
      for (Prefetch.Mode mode : Prefetch.Mode.values()) {
        md.append("| ").append(mode).append(" |");
        for (Pattern p : Pattern.values()) {
          long[] c = results.get(mode).byPattern().getOrDefault(p, new long[2]);
          md.append(String.format(Locale.ROOT, " %d / %d |", c[0], c[1]));
        }
        md.append('\n');
      }
      md.append(
          "\nWhy reads missed (reads; first touch: a key the reader had neither read nor"
              + " written before; late: waited for its prefetch in flight, mean wait in"
              + " brackets), and prefetches refused by budget (requests / bytes / dollars):\n\n"
              + "| mode |");
      for (Cause c : Cause.values()) {
        md.append(' ').append(c).append(" |");
      }
      md.append(" refused by budget |\n| --- |");
      for (int i = 0; i <= Cause.values().length; i++) {
        md.append(" ---: |");
      }
      md.append('\n');
      for (Prefetch.Mode mode : Prefetch.Mode.values()) {
        Result r = results.get(mode);
        md.append("| ").append(mode).append(" |");
        for (Cause c : Cause.values()) {
          long n = 0;
          for (long[] v : r.byCause().values()) {
            n += v[c.ordinal()];
          }
          md.append(' ').append(n);
          if (c == Cause.LATE) {
            md.append(String.format(Locale.ROOT, " (%.0f ms)", r.lateWaitMs()));
          }
          md.append(" |");
        }
        md.append(
            String.format(
                Locale.ROOT,
                " %d / %d / %d |%n",
                r.stats().refusedByRequests(),
                r.stats().refusedByBytes(),
                r.stats().refusedByDollars()));
      }
      for (Prefetch.Mode mode : List.of(Prefetch.Mode.ADAPTIVE_SEQUENTIAL, Prefetch.Mode.HISTORY)) {
        md.append("\nWhy reads missed by pattern, ").append(mode).append(":\n\n| pattern |");
        for (Cause c : Cause.values()) {
          md.append(' ').append(c).append(" |");
        }
        md.append("\n| --- |");
        for (int i = 0; i < Cause.values().length; i++) {
          md.append(" ---: |");
        }
        md.append('\n');
        for (Pattern p : Pattern.values()) {
          long[] v = results.get(mode).byCause().getOrDefault(p, new long[Cause.values().length]);
          md.append("| ").append(p).append(" |");
          for (long n : v) {
            md.append(' ').append(n).append(" |");
          }
          md.append('\n');
        }
      }
      Result history = results.get(Prefetch.Mode.HISTORY);
      Result seq = results.get(Prefetch.Mode.SEQUENTIAL);
      double p90h = history.percentile(0.9);
      double p90s = seq.percentile(0.9);
      md.append('\n');
      md.append(
          target(
              history.missRatio() <= 0.10,
              String.format(
                  Locale.ROOT,
                  "history+sequential miss ratio %.1f %% <= 10 %%",
                  100 * history.missRatio())));
      md.append(
          target(
              p90h * 10 <= p90s,
              String.format(
                  Locale.ROOT,
                  "p90 read latency history+sequential %.1f ms vs sequential-only %.1f ms: %s x"
                      + " lower (target >= 10 x)",
                  p90h,
                  p90s,
                  p90h == 0
                      ? "unbounded (hits cost 0 ms on virtual time)"
                      : String.format(Locale.ROOT, "%.1f", p90s / p90h))));
      md.append('\n')
          .append("![Reads answered within each latency, per prefetch mode](img/")
          .append(PLOT)
          .append(")\n\n");
      md.append(graphMemory(graphAccesses, seed));
      String report = md.toString();
      out.print(report);
      if (outDir != null) {
        Files.createDirectories(outDir);
        Files.writeString(outDir.resolve("trace.md"), report, StandardCharsets.UTF_8);
        Files.writeString(outDir.resolve(PLOT), latencyPlot(results), StandardCharsets.UTF_8);
      }
      return report.contains("MISS ") ? 1 : 0;
    } catch (IOException | ExecutionException | RuntimeException e) {
      err.println("TraceBench failed: " + e);
      e.printStackTrace(err);
      return 1;
    }
  }

  /** The plot's file name, beside trace.md (scripts/bench.sh copies it to docs/img). */
  static final String PLOT = "trace-latency.svg";

  /**
   * An SVG plot of the share of reads answered within each latency (the empirical distribution
   * function), one line per prefetch mode: a cache hit costs 0 ms on virtual time, so each line
   * starts at its mode's hit ratio, and the p90 is where a line crosses 0.9 (drawn dashed).
   */
  static String latencyPlot(Map<Prefetch.Mode, Result> results) {
    int width = 640;
    int height = 400;
    int left = 60;
    int right = 170;
    int top = 30;
    int bottom = 50;
    String[] colours = {"#666666", "#d95f02", "#7570b3", "#1b9e77"};
    double maxMs = 0;
    for (Result r : results.values()) {
      maxMs = Math.max(maxMs, r.percentile(0.99));
    }
    maxMs = Math.max(100, Math.ceil(maxMs / 100) * 100);
    double plotW = width - left - right;
    double plotH = height - top - bottom;
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n"
                + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n"
                + "<text x=\"%d\" y=\"18\" font-size=\"14\">TraceBench: reads answered within"
                + " a latency (virtual time)</text>%n",
            width,
            height,
            left));
    for (int i = 0; i <= 10; i += 2) {
      double y = top + plotH * (1 - i / 10.0);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>%n",
              left,
              y,
              left + plotW,
              y,
              left - 6,
              y + 4,
              i / 10.0));
    }
    double y90 = top + plotH * 0.1;
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\""
                + " stroke-dasharray=\"4,3\"/>%n",
            left,
            y90,
            left + plotW,
            y90));
    for (int i = 0; i <= 5; i++) {
      double x = left + plotW * i / 5.0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
                  + "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>%n",
              x,
              top,
              x,
              top + plotH,
              x,
              top + plotH + 16,
              maxMs * i / 5.0));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">read latency, ms (to the"
                + " slowest 1 %% of the slowest mode)</text>%n"
                + "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\""
                + " text-anchor=\"middle\">share of reads</text>%n",
            left + plotW / 2,
            height - 12,
            top + plotH / 2,
            top + plotH / 2));
    int line = 0;
    for (Prefetch.Mode mode : Prefetch.Mode.values()) {
      Result r = results.get(mode);
      if (r == null) {
        continue;
      }
      double[] sorted = r.latenciesMs().clone();
      java.util.Arrays.sort(sorted);
      StringBuilder points = new StringBuilder();
      int n = sorted.length;
      points.append(String.format(Locale.ROOT, "%d,%.1f ", left, top + plotH));
      for (int i = 0; i < n; i++) {
        // A step at each distinct latency, up to the share of reads at or below it.
        if (i + 1 < n && sorted[i + 1] == sorted[i]) {
          continue;
        }
        double x = left + plotW * Math.min(sorted[i], maxMs) / maxMs;
        double y = top + plotH * (1 - (i + 1) / (double) n);
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        if (sorted[i] > maxMs) {
          break;
        }
      }
      String colour = colours[line % colours.length];
      svg.append(
          String.format(
              Locale.ROOT,
              "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n"
                  + "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
                  + " stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">%s (p90 %.0f ms)</text>%n",
              colour,
              points.toString().trim(),
              left + plotW + 10,
              top + 10 + 18.0 * line,
              left + plotW + 30,
              top + 10 + 18.0 * line,
              colour,
              left + plotW + 34,
              top + 14 + 18.0 * line,
              mode.name().toLowerCase(Locale.ROOT).replace('_', ' '),
              r.percentile(0.9)));
      line++;
    }
    svg.append("</svg>\n");
    return svg.toString();
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

  /** The trace: episodes drawn so that accesses come out in the seed's mix. */
  static List<Access> trace(int accesses, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] share = {0.21, 0.21, 0.47, 0.10};
    double[] perEpisode = {PARTS, 1, PARTS, GROUP_SIZE};
    double[] weight = new double[4];
    double sum = 0;
    for (int i = 0; i < 4; i++) {
      weight[i] = share[i] / perEpisode[i];
      sum += weight[i];
    }
    List<Access> out = new ArrayList<>();
    int onceLarge = 0;
    int onceSmall = 0;
    Duration episodeThink = Duration.ofSeconds(1);
    while (out.size() < accesses) {
      double x = rnd.nextDouble() * sum;
      int kind = 0;
      while (kind < 3 && x >= weight[kind]) {
        x -= weight[kind];
        kind++;
      }
      switch (Pattern.values()[kind]) {
        case SEQ_ONCE -> stream(out, Pattern.SEQ_ONCE, "so/" + onceLarge++, episodeThink);
        case RAND_ONCE ->
            out.add(
                new Access(
                    Pattern.RAND_ONCE,
                    "ro/" + onceSmall++,
                    0,
                    0,
                    episodeThink,
                    rnd.nextDouble() < 0.8));
        case SEQ_REPEATED ->
            stream(
                out, Pattern.SEQ_REPEATED, "sr/" + rnd.nextInt(SEQ_REPEATED_VALUES), episodeThink);
        case RAND_REPEATED -> {
          int g = rnd.nextInt(GROUPS);
          // Each group's fixed order: a permutation of its keys drawn from the group's number.
          List<Integer> order = new ArrayList<>();
          for (int i = 0; i < GROUP_SIZE; i++) {
            order.add(i);
          }
          java.util.Collections.shuffle(order, new java.util.Random(1000L + g));
          for (int i = 0; i < GROUP_SIZE; i++) {
            out.add(
                new Access(
                    Pattern.RAND_REPEATED,
                    "rr/" + g + "/" + order.get(i),
                    0,
                    0,
                    i == 0 ? episodeThink : Duration.ofMillis(500),
                    false));
          }
        }
      }
    }
    return out;
  }

  private static void stream(List<Access> out, Pattern p, String key, Duration think) {
    for (int i = 0; i < PARTS; i++) {
      out.add(
          new Access(p, key, (long) i * PART, PART, i == 0 ? think : Duration.ofMillis(50), false));
    }
  }

  private static String mix(List<Access> trace) {
    Map<Pattern, Integer> n = new java.util.EnumMap<>(Pattern.class);
    for (Access a : trace) {
      n.merge(a.pattern(), 1, Integer::sum);
    }
    StringBuilder b = new StringBuilder();
    for (Pattern p : Pattern.values()) {
      if (b.length() > 0) {
        b.append(", ");
      }
      b.append(
          String.format(Locale.ROOT, "%s %.0f %%", p, 100.0 * n.getOrDefault(p, 0) / trace.size()));
    }
    return b.toString();
  }

  private static int valueSize(String key) {
    return key.startsWith("so/") || key.startsWith("sr/") ? PARTS * PART : SMALL;
  }

  /** Bytes of the distinct values the trace reads. */
  static long dataBytes(List<Access> trace) {
    return trace.stream().map(Access::key).distinct().mapToLong(TraceBench::valueSize).sum();
  }

  /** A cache a third of the repeated working set: the working set is a few times larger. */
  static long cacheBytes(List<Access> trace) {
    long repeated = (long) SEQ_REPEATED_VALUES * PARTS * PART + (long) GROUPS * GROUP_SIZE * SMALL;
    return Math.max(256 * 1024, repeated / 3);
  }

  /**
   * The prefetcher's byte budget: an eighth of the cache in flight and as much again kept until
   * first read, so prefetching modes use at most a quarter more memory than the cache alone.
   */
  static long prefetchBytes(long cacheBytes) {
    return Math.max(PART, cacheBytes / 8);
  }

  static byte[] bytes(String key) {
    byte[] b = new byte[valueSize(key)];
    new SplittableRandom(key.hashCode()).nextBytes(b);
    return b;
  }

  /** A deployment: four in-memory clouds behind the Table 1 WAN on virtual time. */
  static final class Deployment {
    final VirtualScheduler scheduler = new VirtualScheduler();
    final WanEmulator wan;
    final List<WanEmulator.EmulatedCloud> clouds = new ArrayList<>();

    Deployment(long seed) {
      wan = WanEmulator.builder(scheduler).seed(seed).build();
      long[] rtt = {5, 315, 750, 1200};
      long[] bps = {100_000_000, 2_000_000, 2_000_000, 2_000_000};
      for (int i = 0; i < 4; i++) {
        clouds.add(
            wan.wrap(
                new MemoryCloud("p" + i),
                WanEmulator.Link.rtt(Duration.ofMillis(rtt[i]))
                    .bandwidthBitsPerSecond(bps[i])
                    .jitter(0.05)));
      }
    }

    RafeStore.Builder builder(String writer, KeyPair keys) {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .mode(ProtocolMode.PAPER)
              .executor(Runnable::run)
              .scheduler(scheduler)
              .closeDrivers(false)
              .inlineThreshold(0)
              .partSize(PART)
              .writer(writer, keys)
              .trustWriter(
                  writer.equals("writer") ? "reader" : "writer",
                  (writer.equals("writer") ? READER : WRITER).getPublic());
      long[] rtt = {5, 315, 750, 1200};
      for (int i = 0; i < 4; i++) {
        CloudRole role = i == 0 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA;
        b.cloud(clouds.get(i), role, Duration.ofMillis(rtt[i]));
      }
      return b;
    }

    <T> T run(CompletableFuture<T> f) throws ExecutionException {
      return scheduler.runUntilDone(f);
    }
  }

  /** Replays {@code trace} with prefetching {@code mode} on a fresh deployment. */
  static Result replay(List<Access> trace, Prefetch.Mode mode, long cacheBytes, long seed)
      throws ExecutionException {
    Deployment d = new Deployment(seed);
    Map<String, Version> versions = new HashMap<>();
    try (RafeStore writer = d.builder("writer", WRITER).build()) {
      for (Access a : trace) {
        if (!a.writeFirst() && !versions.containsKey(a.key())) {
          versions.put(a.key(), d.run(writer.write(a.key(), bytes(a.key()))).version());
        }
      }
    }
    d.scheduler.advance(Duration.ofSeconds(10));
    CaffeineValueCache cache = CaffeineValueCache.builder().maximumBytes(cacheBytes).build();
    List<Double> latencies = new ArrayList<>();
    Map<Pattern, long[]> byPattern = new java.util.EnumMap<>(Pattern.class);
    Map<Pattern, long[]> byCause = new java.util.EnumMap<>(Pattern.class);
    java.util.Set<String> touched = new java.util.HashSet<>();
    long lateReads = 0;
    double lateMs = 0;
    int writes = 0;
    long misses = 0;
    try (RafeStore reader =
        d.builder("reader", READER)
            .valueCache(cache)
            .prefetch(
                mode == Prefetch.Mode.OFF
                    ? Prefetch.off()
                    : Prefetch.of(mode).withMaxBytesInFlight(prefetchBytes(cacheBytes)))
            .build()) {
      for (Access a : trace) {
        d.scheduler.advance(a.think());
        if (a.writeFirst() && !versions.containsKey(a.key())) {
          versions.put(a.key(), d.run(reader.write(a.key(), bytes(a.key()))).version());
          writes++;
          d.scheduler.advance(Duration.ofMillis(200));
        }
        Version v = versions.get(a.key());
        ReadTierStats before = reader.readTierStats();
        long start = d.scheduler.nanoTime();
        if (a.length() == 0) {
          d.run(reader.read(a.key(), v));
        } else {
          d.run(reader.read(a.key(), v, a.offset(), a.length()));
        }
        double ms = (d.scheduler.nanoTime() - start) / 1e6;
        latencies.add(ms);
        boolean firstTouch = touched.add(a.key()) && !a.writeFirst();
        ReadTierStats after = reader.readTierStats();
        long[] c = byPattern.computeIfAbsent(a.pattern(), p -> new long[2]);
        c[1]++;
        if (after.misses() > before.misses()) {
          misses++;
          c[0]++;
          Cause cause = cause(before, after, firstTouch);
          byCause
              .computeIfAbsent(a.pattern(), p -> new long[Cause.values().length])[
              cause.ordinal()]++;
          if (cause == Cause.LATE) {
            lateReads++;
            lateMs += ms;
          }
        }
      }
      ReadTierStats stats = reader.readTierStats();
      return new Result(
          mode,
          trace.size(),
          writes,
          misses,
          latencies.stream().mapToDouble(Double::doubleValue).toArray(),
          byPattern,
          byCause,
          lateReads == 0 ? 0 : lateMs / lateReads,
          stats);
    }
  }

  /** Why a read missed: the first cause (in {@link Cause}'s order) whose count grew. */
  static Cause cause(ReadTierStats before, ReadTierStats after, boolean firstTouch) {
    if (after.coldMisses() > before.coldMisses()) {
      return firstTouch ? Cause.FIRST_TOUCH : Cause.COLD;
    }
    if (after.refusedMisses() > before.refusedMisses()) {
      return Cause.REFUSED;
    }
    if (after.droppedMisses() > before.droppedMisses()) {
      return Cause.DROPPED;
    }
    if (after.evictedMisses() > before.evictedMisses()) {
      return Cause.EVICTED;
    }
    return Cause.LATE;
  }

  /**
   * Feeds {@code accesses} random range reads (all cached: no cloud is asked) to the history graph
   * and reports its size as it goes.
   */
  static String graphMemory(int accesses, long seed) throws ExecutionException {
    int values = accesses >= 100_000 ? 1_000 : 100;
    int partSize = 1024;
    int parts = 64;
    Deployment d = new Deployment(seed);
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "%nHistory graph over %,d random range reads of %d values x %d parts of 1 KiB (all"
                + " cached), graphNodes bound %,d:%n%n| accesses | nodes | edges | est. bytes |%n"
                + "| ---: | ---: | ---: | ---: |%n",
            accesses,
            values,
            parts,
            Prefetch.of(Prefetch.Mode.HISTORY).graphNodes()));
    CaffeineValueCache cache =
        CaffeineValueCache.builder().maximumBytes(2L * values * parts * partSize).build();
    long maxNodes = 0;
    try (RafeStore reader =
        d.builder("reader", READER)
            .partSize(partSize)
            .valueCache(cache)
            .prefetch(Prefetch.of(Prefetch.Mode.HISTORY))
            .build()) {
      List<Version> versions = new ArrayList<>();
      for (int i = 0; i < values; i++) {
        byte[] b = new byte[parts * partSize];
        new SplittableRandom(i).nextBytes(b);
        versions.add(d.run(reader.write("g/" + i, b)).version());
      }
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int i = 1; i <= accesses; i++) {
        int k = rnd.nextInt(values);
        int first = rnd.nextInt(parts);
        int len = 1 + rnd.nextInt(4);
        d.run(reader.read("g/" + k, versions.get(k), (long) first * partSize, len * partSize));
        if (i % Math.max(1, accesses / 10) == 0) {
          ReadTierStats s = reader.readTierStats();
          maxNodes = Math.max(maxNodes, s.graphNodes());
          md.append(
              String.format(
                  Locale.ROOT,
                  "| %,d | %,d | %,d | %,d |%n",
                  i,
                  s.graphNodes(),
                  s.graphEdges(),
                  s.graphBytes()));
        }
      }
    }
    md.append('\n');
    md.append(
        target(
            maxNodes <= Prefetch.of(Prefetch.Mode.HISTORY).graphNodes(),
            String.format(
                Locale.ROOT,
                "graph memory bounded: at most %,d nodes over %,d accesses (bound %,d)",
                maxNodes,
                accesses,
                Prefetch.of(Prefetch.Mode.HISTORY).graphNodes())));
    return md.toString();
  }
}
