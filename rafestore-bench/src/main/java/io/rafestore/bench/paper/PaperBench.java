package io.rafestore.bench.paper;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.bench.support.RetainNewestCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.spi.CloudDriver;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * The reproduction of the paper's Figure 3 and Table 3: for each Table 2 configuration, protocol
 * mode and value size, N writes then N reads of one key on in-memory clouds behind an emulated WAN
 * (real time on {@link Scheduler#system()}, scaled by a time-scale factor), recording latency
 * percentiles, writes that contacted only f+1 data clouds, requests and bytes per cloud, cancelled
 * requests, the ratio to the physical floor and a cost estimate. Writes CSV, Markdown and SVG plots
 * to an output directory.
 *
 * <pre>
 * java -cp ... io.rafestore.bench.paper.PaperBench --quick --out target/paper
 * java -cp ... io.rafestore.bench.paper.PaperBench --out results --configs 1,2 --ops 60
 * </pre>
 *
 * <p>A command-line tool, not an API; not thread-safe. f = 1 (n = 4) as in the paper.
 */
public final class PaperBench {
  static final int F = 1;
  static final long KB = 1024;
  static final long[] PAPER_SIZES = {
    KB, 4 * KB, 16 * KB, 64 * KB, 256 * KB, 1024 * KB, 4096 * KB, 16384 * KB
  };
  static final long[] QUICK_SIZES = {KB, 64 * KB, 256 * KB, 1024 * KB};

  /** Data objects kept per key and cloud; see {@link RetainNewestCloud}. */
  static final int KEEP_VERSIONS = 3;

  private final Options options;
  private final WanProfile profile;
  private final PriceTable prices;
  private final PrintStream log;
  private final Progress progress;

  /**
   * Makes the driver behind each profile cloud (by the profile's id, p0..p3) for one cell; the
   * emulated WAN link is wrapped around it. Default: in-memory clouds that keep only the newest
   * versions. {@code rafestore bench --clouds-from FILE} passes real clouds (the emulators) here.
   */
  private final Function<String, CloudDriver> clouds;

  /** Whether the clouds are external (not in memory): keys are then unique per run and purged. */
  private final boolean external;

  private final String runId = Long.toHexString(System.nanoTime());

  private PaperBench(Options options, PrintStream log, PrintStream err) throws IOException {
    this(options, log, err, null);
  }

  private PaperBench(
      Options options, PrintStream log, PrintStream err, Function<String, CloudDriver> clouds)
      throws IOException {
    this.external = clouds != null;
    this.clouds = clouds != null ? clouds : id -> new RetainNewestCloud(id, KEEP_VERSIONS);
    this.options = options;
    this.profile = WanProfile.load(options.profile);
    this.prices = PriceTable.load(options.prices, profile.clouds().keySet());
    this.log = log;
    this.progress = options.progress ? new Progress(err, totalWork()) : null;
  }

  /**
   * The expected work of the whole run in paper milliseconds (the floors of all operations), so the
   * progress bar's estimate weighs a 16 MB write like the 16,000 1 KB writes it lasts as long as.
   */
  private double totalWork() throws IOException {
    double total = 0;
    for (int config : options.configs) {
      WanProfile.Arrangement a = profile.arrangement(config);
      for (long size : options.sizes) {
        total +=
            options.ops
                * options.modes.size()
                * (Floors.writeMs(profile, a, F, size) + Floors.readMs(profile, a, F, size));
      }
    }
    return total;
  }

  /**
   * Runs the benchmark from the command line; exits with {@link #run(String[], PrintStream,
   * PrintStream)}'s code when it is not 0.
   *
   * @param args see {@link Options#usage()}; {@code --help} prints it
   */
  public static void main(String[] args) {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * The reusable entry point (what {@code rafestore bench} calls): parses {@code args}, runs the
   * benchmark, writes its files, prints the summary and the targets to {@code out} and progress to
   * {@code err}. Never calls {@link System#exit}.
   *
   * @return 0 when the run completed (whether or not targets were met), 2 for a usage error, 1 when
   *     the run could not complete (a profile or price file unreadable, an output directory not
   *     writable)
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, null);
  }

  /**
   * As {@link #run(String[], PrintStream, PrintStream)}, with the profile's WAN emulated around the
   * drivers {@code clouds} makes (by profile cloud id, p0..p3, once per cell; the client closes
   * them) instead of in-memory clouds: the real emulators or real clouds. Keys are then unique to
   * the run and each cell deletes and purges its key at the end.
   */
  public static int run(
      String[] args, PrintStream out, PrintStream err, Function<String, CloudDriver> clouds) {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(Options.usage());
      return 2;
    }
    if (o.help) {
      out.println(Options.usage());
      return 0;
    }
    try {
      List<Result> results = new PaperBench(o, out, err, clouds).runAll();
      for (String line : Targets.evaluate(results)) {
        out.println(line);
      }
      return 0;
    } catch (IOException | IllegalArgumentException e) {
      err.println("PaperBench failed: " + e);
      return 1;
    }
  }

  /** Runs with {@code options}, logging to {@code log}, no progress bar; returns the results. */
  static List<Result> run(Options options, PrintStream log) throws IOException {
    options.progress = false;
    return new PaperBench(options, log, log).runAll();
  }

  private List<Result> runAll() throws IOException {
    double scale = options.timeScale > 0 ? options.timeScale : 1;
    if (options.quick && options.timeScale <= 0) {
      scale = profile.quickTimeScale();
    }
    log.printf(
        Locale.ROOT,
        "PaperBench: profile %s, time scale %s, %d ops, configs %s, modes %s, sizes %s%n",
        profile.name(),
        scale,
        options.ops,
        options.configs,
        options.modes,
        Arrays.toString(options.sizes));
    String loadBefore = loadAverage();
    long startNanos = System.nanoTime();
    java.time.Instant started = java.time.Instant.now();
    warmUp();
    List<Result> results = new ArrayList<>();
    if (options.parallelConfigs && options.configs.size() > 1) {
      // One thread per configuration; each has its own clouds, emulator and client, so they share
      // only the CPU and the system timer thread. Results are gathered in configuration order.
      ExecutorService pool = Executors.newFixedThreadPool(options.configs.size());
      try {
        List<Future<List<Result>>> futures = new ArrayList<>();
        for (int config : options.configs) {
          final double s = scale;
          futures.add(pool.submit(() -> runConfig(config, s)));
        }
        for (Future<List<Result>> f : futures) {
          results.addAll(f.get());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted");
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        throw new IllegalStateException("a configuration's run failed", e.getCause());
      } finally {
        pool.shutdownNow();
      }
    } else {
      for (int config : options.configs) {
        results.addAll(runConfig(config, scale));
      }
    }
    if (progress != null) {
      progress.finish();
    }
    options.runInfo =
        String.format(
            Locale.ROOT,
            "Run started %s, took %.1f min; load average (1, 5, 15 min) %s before, %s after;"
                + " %d CPUs.",
            started.truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
            (System.nanoTime() - startNanos) / 6e10,
            loadBefore,
            loadAverage(),
            Runtime.getRuntime().availableProcessors());
    Reports.writeAll(options.out, profile, prices, scale, options, results);
    log.println("PaperBench: wrote " + options.out.toAbsolutePath());
    return results;
  }

  /** The first three fields of /proc/loadavg, or the JVM's 1-minute figure elsewhere. */
  private static String loadAverage() {
    try {
      String[] f =
          java.nio.file.Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII)
              .trim()
              .split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return String.format(
          Locale.ROOT,
          "%.2f",
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  private List<Result> runConfig(int config, double scale) throws IOException {
    WanProfile.Arrangement arrangement = profile.arrangement(config);
    List<Result> results = new ArrayList<>();
    for (Protocol mode : options.modes) {
      for (long size : options.sizes) {
        results.addAll(runCell(arrangement, mode, size, scale));
      }
    }
    return results;
  }

  /**
   * Runs every mode's code a few times on local links, untimed, so the first measured cell does not
   * pay for class loading and JIT compilation: at a time scale of 1/50 every real millisecond of
   * such overhead shows as 50 paper milliseconds.
   */
  private void warmUp() throws IOException {
    for (Protocol mode : options.modes) {
      RafeStore.Builder builder =
          RafeStore.builder()
              .faultsTolerated(F)
              .writer("warm-up", SigningKeys.generate())
              .mode(mode.mode())
              .erasureCoding(mode.erasureK())
              .layout(mode.layout())
              .scheduler(Scheduler.system());
      WanEmulator wan = WanEmulator.builder(Scheduler.system()).build();
      for (int i = 0; i < 3 * F + 1; i++) {
        builder.cloud(wan.wrap(new MemoryCloud("w" + i), WanEmulator.Link.local()));
      }
      try (RafeStore store = builder.build()) {
        var blocking = store.blocking();
        for (long size : new long[] {KB, 256 * KB}) {
          for (int i = 0; i < 5; i++) {
            try {
              blocking.write("warm-up", new byte[Math.toIntExact(size)]);
              blocking.read("warm-up");
            } catch (RafeStoreException e) {
              log.println("warm-up " + mode + " failed (not measured, run goes on): " + e);
            }
          }
        }
      }
    }
  }

  private List<Result> runCell(
      WanProfile.Arrangement arrangement, Protocol mode, long size, double scale)
      throws IOException {
    Scheduler scheduler = Scheduler.system();
    WanEmulator wan =
        WanEmulator.builder(scheduler)
            .uplinkBitsPerSecond(WanProfile.scaledBps(profile.uplinkBps(), scale))
            .downlinkBitsPerSecond(WanProfile.scaledBps(profile.downlinkBps(), scale))
            .seed(size * 31 + arrangement.number())
            .build();
    KeyPair keys = SigningKeys.generate();
    RafeStore.Builder builder =
        RafeStore.builder()
            .faultsTolerated(F)
            .writer("bench", keys)
            .mode(mode.mode())
            .scheduler(scheduler)
            .dataCloudsInOrderAdded(mode.tableOrder())
            .erasureCoding(mode.erasureK())
            .layout(mode.layout())
            .maxValueBytes(Math.max(size, 1024));
    for (String id : arrangement.order()) {
      WanProfile.CloudLink link = profile.clouds().get(id);
      Duration rtt = profile.scaledRtt(id, scale);
      WanEmulator.Link wanLink =
          WanEmulator.Link.rtt(rtt)
              .jitter(profile.jitter())
              .bandwidthBitsPerSecond(WanProfile.scaledBps(link.bps(), scale));
      CloudRole role =
          arrangement.metadataOnly().contains(id)
              ? CloudRole.METADATA_ONLY
              : CloudRole.DATA_AND_METADATA;
      // In memory, only the newest versions' data stay; the protocol never reads older ones here.
      builder.cloud(wan.wrap(clouds.apply(id), wanLink), role, rtt);
    }
    String key =
        (external ? "bench-" + runId + "/" : "bench/")
            + "config"
            + arrangement.number()
            + "/"
            + mode
            + "/"
            + size;
    // Seeded on purpose: the same bytes in every run. The content does not matter for timing.
    byte[] value = new byte[Math.toIntExact(size)];
    new SplittableRandom(size).nextBytes(value);
    List<Result> out = new ArrayList<>(2);
    double writeFloor = Floors.writeMs(profile, arrangement, F, size);
    double readFloor = Floors.readMs(profile, arrangement, F, size, parted(mode, size));
    try (RafeStore store = builder.build()) {
      var blocking = store.blocking();
      if (mode.choosesLayout()) {
        // The chooser decides from measured bandwidths; a long-running client has them, this
        // cell's fresh client gets them from one probe, untimed and left out of the counts.
        try {
          blocking.probe(
              new io.rafestore.ProbeOptions(
                  3, Math.max(64 * KB, Math.min(size, 4096 * KB)), 1, size));
        } catch (RafeStoreException e) {
          log.println("probe before " + mode + " failed (the chooser starts from hints): " + e);
        }
      }
      Map<String, CloudStats> before = store.stats();
      Map<String, Integer> chosen = new java.util.TreeMap<>();
      double[] writeMs = new double[options.ops];
      int onlyFPlusOne = 0;
      int writes = 0;
      for (int i = 0; i < options.ops; i++) {
        // Each version differs, so no cloud can answer with an older copy by accident.
        byte[] stamp = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(stamp, 0, value, 0, Math.min(stamp.length, value.length));
        long t0 = System.nanoTime();
        try {
          WriteReceipt receipt = blocking.write(key, value);
          writeMs[writes++] = (System.nanoTime() - t0) / 1e6 / scale;
          if (mode.choosesLayout()
              ? receipt.onlyNeededDataClouds()
              : receipt.onlyFPlusOneDataClouds()) {
            onlyFPlusOne++;
          }
          receipt
              .layoutChoice()
              .ifPresent(c -> chosen.merge(layoutLabel(c.chosen()), 1, Integer::sum));
          if (options.verbose) {
            log.printf(
                Locale.ROOT,
                "  write %d: data clouds %s, writeDf %s, readM skipped %s, %.1f ms%s%n",
                i,
                receipt.dataCloudsContacted(),
                receipt.writeDfUsed(),
                receipt.readMSkipped(),
                writeMs[writes - 1],
                receipt.layoutChoice().map(c -> "; " + c.reason()).orElse(""));
          }
        } catch (RafeStoreException e) {
          // A failed operation is counted and reported, not timed; the run goes on.
          report(arrangement, mode, size, "write", e);
        }
        tick(writeFloor, arrangement, mode, size);
      }
      Map<String, CloudStats> afterWrites = store.stats();
      double[] readMs = new double[options.ops];
      int reads = 0;
      for (int i = 0; i < options.ops; i++) {
        long t0 = System.nanoTime();
        try {
          StoredValue v = blocking.read(key);
          readMs[reads++] = (System.nanoTime() - t0) / 1e6 / scale;
          if (v.info().size() != size) {
            throw new IllegalStateException("read " + v.info().size() + " bytes, wrote " + size);
          }
        } catch (RafeStoreException e) {
          report(arrangement, mode, size, "read", e);
        }
        tick(readFloor, arrangement, mode, size);
      }
      Map<String, CloudStats> afterReads = store.stats();
      int n = arrangement.order().size();
      if (n != 3 * F + 1) {
        log.println("note: " + n + " clouds for f=" + F);
      }
      Result w =
          result(
              arrangement,
              mode,
              size,
              "write",
              Arrays.copyOf(writeMs, writes),
              options.ops - writes,
              writeFloor,
              onlyFPlusOne,
              delta(afterWrites, before),
              true,
              mostChosen(chosen, writes));
      Result r =
          result(
              arrangement,
              mode,
              size,
              "read",
              Arrays.copyOf(readMs, reads),
              options.ops - reads,
              readFloor,
              -1,
              delta(afterReads, afterWrites),
              false,
              "");
      log.printf(
          Locale.ROOT,
          "config %d %-9s %6s  write median %8.1f ms (f+1 only %d/%d)  read median %8.1f ms"
              + "  failures %d%n",
          arrangement.number(),
          mode,
          Reports.sizeLabel(size),
          w.medianMs(),
          onlyFPlusOne,
          options.ops,
          r.medianMs(),
          w.failures() + r.failures());
      out.add(w);
      out.add(r);
      if (external) {
        // Leave nothing behind on real clouds: delete (tombstone and data), then purge.
        try {
          blocking.delete(key);
          blocking.purge(key);
        } catch (RafeStoreException e) {
          log.println("cleaning up " + key + " failed (results stand): " + e.getMessage());
        }
      }
    }
    return out;
  }

  private void tick(double work, WanProfile.Arrangement arrangement, Protocol mode, long size) {
    if (progress != null) {
      progress.advance(
          work, "config " + arrangement.number() + " " + mode + " " + Reports.sizeLabel(size));
    }
  }

  private void report(
      WanProfile.Arrangement arrangement,
      Protocol mode,
      long size,
      String op,
      RafeStoreException e) {
    log.printf(
        Locale.ROOT,
        "FAILED: config %d %s %s %s: %s%n",
        arrangement.number(),
        mode,
        Reports.sizeLabel(size),
        op,
        e);
  }

  private Result result(
      WanProfile.Arrangement arrangement,
      Protocol mode,
      long size,
      String op,
      double[] latencies,
      int failures,
      double floor,
      int onlyFPlusOne,
      Map<String, CloudStats> delta,
      boolean writes,
      String chosenLayout) {
    double[] sorted = latencies.clone();
    Arrays.sort(sorted);
    List<Result.CloudUse> perCloud = new ArrayList<>();
    long cancelled = 0;
    long started = 0;
    long kept = 0;
    long wasted = 0;
    for (String id : arrangement.order()) {
      CloudStats s = delta.get(id);
      perCloud.add(new Result.CloudUse(id, s.requests(), s.bytesUp(), s.bytesDown()));
      cancelled += s.cancelled();
      started += s.speculations();
      kept += s.speculationsKept();
      wasted += s.speculationsWasted();
    }
    return new Result(
        arrangement.number(),
        mode,
        size,
        op,
        latencies.length,
        failures,
        Result.percentile(sorted, 0.5),
        Result.percentile(sorted, 0.9),
        Result.percentile(sorted, 0.99),
        floor,
        onlyFPlusOne,
        cancelled,
        perCloud,
        prices.costPer10k(delta, latencies.length + failures, writes),
        new Result.Speculative(started, kept, wasted),
        chosenLayout);
  }

  /** "CODED k=2 on p0+p1+p2": a chosen candidate without its predictions. */
  static String layoutLabel(io.rafestore.LayoutChoice.Candidate c) {
    return c.kind()
        + (c.k() > 0 ? " k=" + c.k() : "")
        + (c.clouds().isEmpty() ? "" : " on " + String.join("+", c.clouds()));
  }

  /** The layout chosen most often among {@code writes} writes, with its count; "" if none. */
  static String mostChosen(Map<String, Integer> chosen, int writes) {
    return chosen.entrySet().stream()
        .max(Map.Entry.comparingByValue())
        .map(e -> e.getKey() + " (" + e.getValue() + "/" + writes + ")")
        .orElse("");
  }

  /**
   * Whether {@code mode} stores a value of {@code size} bytes in parts (RafeStore's modes with full
   * copies split values above the default part size; the benchmark keeps the default), whose read
   * may fetch parts from several holders at once ({@link Floors#readMs}).
   */
  static boolean parted(Protocol mode, long size) {
    return mode.rafeStore() && mode.erasureK() == 0 && size > Floors.DEFAULT_PART_SIZE;
  }

  private static Map<String, CloudStats> delta(
      Map<String, CloudStats> after, Map<String, CloudStats> before) {
    Map<String, CloudStats> d = new HashMap<>();
    for (Map.Entry<String, CloudStats> e : after.entrySet()) {
      CloudStats b = before.get(e.getKey());
      d.put(e.getKey(), b == null ? e.getValue() : e.getValue().minus(b));
    }
    return d;
  }

  /** Command-line options. Mutable while parsing, then read only. */
  static final class Options {
    boolean help;
    boolean quick;
    boolean verbose;
    boolean progress = true;
    boolean parallelConfigs;
    String runInfo = "";
    Path out = Path.of("paper-results");
    List<Integer> configs = List.of(1, 2, 3);
    List<Protocol> modes = Protocol.DEFAULT;
    long[] sizes = PAPER_SIZES.clone();
    int ops = 60;
    double timeScale;
    String profile = WanProfile.DEFAULT;
    String prices = PriceTable.DEFAULT;

    static String usage() {
      return String.join(
          "\n",
          "usage: PaperBench [--quick] [--out DIR] [--configs 1,2,3] [--protocols PAPER,FAST,...]",
          "                  [--sizes 1K,64K,1M] [--ops N] [--time-scale X]",
          "                  [--profile FILE] [--prices FILE] [--verbose] [--no-progress]",
          "  --quick        time scale from the profile (1/50), 3 ops, sizes 1K,64K,256K,1M",
          "  --out          output directory (default paper-results)",
          "  --configs      Table 2 configurations (default 1,2,3)",
          "  --protocols    (or --modes) PAPER, FAST, DEPSKY_A, DEPSKY_CA (the default four),",
          "                 PAPER_SELECTED, FAST_TABLE_ORDER, FAST_CODED (FAST with erasure-coded",
          "                 data, k = 2), FAST_AUTO (FAST with the layout chosen per value).",
          "                 PAPER uses Table 2's order of data",
          "                 clouds (the paper's own protocol); FAST lets the client choose them",
          "  --sizes        value sizes with K or M suffix (default 1K..16M, x4 steps)",
          "  --ops          writes, then reads, per cell (default 60, 3 with --quick)",
          "  --time-scale   multiply RTTs and divide bandwidths by X (0 < X <= 1; default 1, the",
          "                 paper's real time; latencies are reported divided by X)",
          "  --profile      WAN profile file (default the built-in Table 1 profile)",
          "  --prices       price table file (default the built-in assumed list prices)",
          "  --verbose      print what each write did (data clouds, writeDf, readM skipped)",
          "  --parallel-configs  run the configurations at the same time, one thread each",
          "                 (a shorter run; they then share the CPU and the timer thread)",
          "  --no-progress  no progress bar on stderr");
    }

    static Options parse(String... args) {
      Options o = new Options();
      boolean opsSet = false;
      boolean sizesSet = false;
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--help", "-h" -> o.help = true;
          case "--quick" -> o.quick = true;
          case "--verbose" -> o.verbose = true;
          case "--out" -> o.out = Path.of(value(args, ++i, a));
          case "--configs" -> {
            List<Integer> c = new ArrayList<>();
            for (String s : value(args, ++i, a).split(",")) {
              c.add(integer(s, a));
            }
            o.configs = List.copyOf(c);
          }
          case "--no-progress" -> o.progress = false;
          case "--parallel-configs" -> o.parallelConfigs = true;
          case "--modes", "--protocols" -> {
            List<Protocol> m = new ArrayList<>();
            for (String s : value(args, ++i, a).split(",")) {
              try {
                m.add(Protocol.valueOf(s.trim().toUpperCase(Locale.ROOT)));
              } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                    "--modes: unknown mode '"
                        + s
                        + "', expected "
                        + Arrays.toString(Protocol.values()),
                    e);
              }
            }
            o.modes = List.copyOf(m);
          }
          case "--sizes" -> {
            String[] parts = value(args, ++i, a).split(",");
            o.sizes = new long[parts.length];
            for (int k = 0; k < parts.length; k++) {
              o.sizes[k] = size(parts[k]);
            }
            sizesSet = true;
          }
          case "--ops" -> {
            o.ops = integer(value(args, ++i, a), a);
            opsSet = true;
          }
          case "--time-scale" -> {
            String v = value(args, ++i, a);
            try {
              o.timeScale = Double.parseDouble(v);
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("--time-scale: not a number: " + v, e);
            }
            if (!(o.timeScale > 0 && o.timeScale <= 1)) {
              throw new IllegalArgumentException("--time-scale must be in (0, 1], was " + v);
            }
          }
          case "--profile" -> o.profile = value(args, ++i, a);
          case "--prices" -> o.prices = value(args, ++i, a);
          default -> throw new IllegalArgumentException("unknown option '" + a + "'");
        }
      }
      if (o.quick) {
        if (!opsSet) {
          o.ops = 3;
        }
        if (!sizesSet) {
          o.sizes = QUICK_SIZES.clone();
        }
      }
      if (o.ops < 1) {
        throw new IllegalArgumentException("--ops must be >= 1, was " + o.ops);
      }
      return o;
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }

    private static int integer(String s, String option) {
      try {
        return Integer.parseInt(s.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(option + ": not a whole number: '" + s + "'", e);
      }
    }

    static long size(String s) {
      String t = s.trim().toUpperCase(Locale.ROOT);
      long unit = 1;
      if (t.endsWith("KB") || t.endsWith("K")) {
        unit = KB;
        t = t.substring(0, t.indexOf('K'));
      } else if (t.endsWith("MB") || t.endsWith("M")) {
        unit = KB * KB;
        t = t.substring(0, t.indexOf('M'));
      }
      long v;
      try {
        v = Long.parseLong(t) * unit;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--sizes: not a size like 64K or 1M: '" + s + "'", e);
      }
      if (v < 1 || v > 64 * KB * KB) {
        throw new IllegalArgumentException("--sizes: must be 1 byte to 64M, was '" + s + "'");
      }
      return v;
    }
  }
}
