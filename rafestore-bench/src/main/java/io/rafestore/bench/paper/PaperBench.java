package io.rafestore.bench.paper;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.bench.support.MeteredCloud;
import io.rafestore.bench.support.RetainNewestCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
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
 * <p>With {@code --virtual} the clouds' WAN and the client run on a {@link VirtualScheduler} with a
 * same-thread executor instead: each operation is started with the asynchronous API and driven
 * until it completes, its latency is the virtual time that passed (at time scale 1, the profile's
 * own round trips and bandwidths: deterministic), and the CPU time the bench thread spent in it is
 * measured beside it. Time-scaled real time multiplies the client's CPU by 1 / scale (a run 30
 * times faster than the paper still hashes 16 MB at this machine's speed); virtual time separates
 * the two, and virtual + CPU is a conservative estimate of the latency at time scale 1 (all CPU
 * counted as if on the critical path, the emulator's included). Work an operation leaves running
 * (lingering metadata puts, the packer) stays in the scheduler's queue and runs during the next
 * operations, as it would in reality.
 *
 * <pre>
 * java -cp ... io.rafestore.bench.paper.PaperBench --quick --out target/paper
 * java -cp ... io.rafestore.bench.paper.PaperBench --out results --configs 1,2 --ops 60
 * java -cp ... io.rafestore.bench.paper.PaperBench --virtual --large-ops 4M=30 --out virtual
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
      Floors.ReadLayout anyHolder =
          new Floors.ReadLayout(Floors.ReadKind.WHOLE, 0, Floors.dataClouds(a));
      for (long size : options.sizes) {
        total +=
            options.opsFor(size)
                * options.modesFor(config).size()
                * (Floors.writeMs(profile, a, F, size)
                    + Floors.readMs(profile, a, F, size, anyHolder));
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
    if (o.virtual && clouds != null) {
      err.println(
          "error: --virtual and --clouds-from cannot be combined: virtual time needs the built-in"
              + " in-memory clouds, which answer at once; external clouds answer in real time");
      return 2;
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
    if (options.quick && options.timeScale <= 0 && !options.virtual) {
      scale = profile.quickTimeScale();
    }
    if (options.virtual && !CPU.isCurrentThreadCpuTimeSupported()) {
      throw new IllegalArgumentException(
          "--virtual: this JVM cannot measure a thread's CPU time (ThreadMXBean)");
    }
    if (options.virtual && !CPU.isThreadCpuTimeEnabled()) {
      CPU.setThreadCpuTimeEnabled(true);
    }
    log.printf(
        Locale.ROOT,
        "PaperBench: profile %s, %s, %s, configs %s, modes %s, sizes %s%n",
        profile.name(),
        options.virtual ? "virtual time (time scale 1) + measured CPU" : "time scale " + scale,
        options.opsDescription(),
        options.configs,
        options.modesDescription(),
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
    List<Protocol> modes = options.modesFor(config);
    for (Protocol mode : modes) {
      for (long size : options.sizes) {
        Optional<Protocol> same = mode.sameAs(size).filter(modes::contains);
        if (same.isPresent()) {
          log.printf(
              Locale.ROOT,
              "config %d %-11s %6s  not run: the same protocol as %s at this size%n",
              config,
              mode,
              Reports.sizeLabel(size),
              same.get());
          continue;
        }
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
    for (Protocol mode : options.allModes()) {
      RafeStore.Builder builder =
          RafeStore.builder()
              .faultsTolerated(F)
              .writer("warm-up", SigningKeys.generate())
              .mode(mode.mode())
              .erasureCoding(mode.erasureK())
              .layout(mode.layout())
              .objective(mode.objective())
              .scheduler(Scheduler.system());
      if (mode.rafeStore() && !mode.inline()) {
        builder.inlineThreshold(0);
      }
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

  /**
   * How long the client must have been idle before its counters are read when it may be packing:
   * the packer's wait for a write to carry a ready pack ({@code Packer.COMMIT_DELAY}, one second of
   * real time whatever the time scale) and a second for its own writeM to start. Lingering metadata
   * puts are in flight, so they end the quiet period.
   */
  static final Duration PACKER_QUIET = Duration.ofSeconds(2);

  /** How long a client without a packer must have had nothing in flight. */
  static final Duration IDLE_QUIET = Duration.ofMillis(20);

  /** The longest the harness waits for a client to become idle before it reads anyway. */
  static final Duration DRAIN_LIMIT = Duration.ofSeconds(90);

  private List<Result> runCell(
      WanProfile.Arrangement arrangement, Protocol mode, long size, double scale)
      throws IOException {
    // On virtual time (--virtual) every timer, callback and in-memory cloud runs on this thread,
    // inside run(); scale is then 1.
    VirtualScheduler virtual = options.virtual ? new VirtualScheduler() : null;
    Scheduler scheduler = virtual != null ? virtual : Scheduler.system();
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
            .objective(mode.objective())
            .maxValueBytes(Math.max(size, 1024));
    // The client prices its choices with the table this run bills with (the layout chooser's
    // dollars, the cost objective's choice of clouds for logs and packs).
    prices.prices().forEach((id, p) -> builder.pricing(id, p.pricing()));
    if (virtual != null) {
      // The version's informational creation time from virtual time too, so that every run writes
      // the same bytes.
      builder
          .executor(Runnable::run)
          .clock(new VirtualClock(virtual, java.time.Instant.parse("2026-01-01T00:00:00Z")));
    }
    if (mode.rafeStore() && !mode.inline()) {
      // Inline values are on by default; the paper's protocol and the other fixed layouts store
      // every value as a data object.
      builder.inlineThreshold(0);
    }
    // Two meters per cloud: over the emulated link, what the client has in flight (to wait until
    // it is idle); under it, at the cloud, the bytes each get sent (the egress billed).
    List<MeteredCloud> atClient = new ArrayList<>();
    Map<String, MeteredCloud> atCloud = new HashMap<>();
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
      MeteredCloud cloudSide = new MeteredCloud(clouds.apply(id));
      MeteredCloud clientSide = new MeteredCloud(wan.wrap(cloudSide, wanLink), scheduler::nanoTime);
      atCloud.put(id, cloudSide);
      atClient.add(clientSide);
      builder.cloud(clientSide, role, rtt);
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
    String cell = "config " + arrangement.number() + " " + mode + " " + Reports.sizeLabel(size);
    List<Floors.WriteFloor> layouts = Floors.writeLayouts(profile, arrangement, F, size);
    Floors.WriteFloor bestLayout =
        layouts.stream().min(Comparator.comparingDouble(Floors.WriteFloor::ms)).orElseThrow();
    double writeFloor = bestLayout.ms();
    double phasedFloor = Floors.phasedWriteMs(profile, arrangement, F, size);
    try (RafeStore store = builder.build()) {
      var blocking = store.blocking();
      if (mode.choosesLayout()) {
        // The chooser decides from measured bandwidths; a long-running client has them, this
        // cell's fresh client gets them from one probe, untimed and left out of the counts.
        io.rafestore.ProbeOptions probe =
            new io.rafestore.ProbeOptions(3, Math.max(64 * KB, Math.min(size, 4096 * KB)), 1, size);
        try {
          if (virtual != null) {
            await(virtual, store.probe(probe));
          } else {
            blocking.probe(probe);
          }
        } catch (RafeStoreException e) {
          log.println("probe before " + mode + " failed (the chooser starts from hints): " + e);
        }
        drain(virtual, atClient, IDLE_QUIET, cell + " probe");
      }
      Map<String, CloudStats> before = store.stats();
      Map<String, Long> servedBefore = served(atCloud);
      Map<String, Integer> chosen = new java.util.TreeMap<>();
      int ops = options.opsFor(size);
      double[] writeMs = new double[ops];
      double[] writeVirtualMs = new double[ops];
      double[] writeCpuMs = new double[ops];
      int onlyNeeded = 0;
      int writes = 0;
      WriteReceipt last = null;
      long writesStart = System.nanoTime();
      for (int i = 0; i < ops; i++) {
        // Each version differs, so no cloud can answer with an older copy by accident.
        byte[] stamp = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(stamp, 0, value, 0, Math.min(stamp.length, value.length));
        long t0 = System.nanoTime();
        long v0 = scheduler.nanoTime();
        long c0 = virtual != null ? CPU.getCurrentThreadCpuTime() : 0;
        try {
          WriteReceipt receipt =
              virtual != null
                  ? await(virtual, store.write(key, value))
                  : blocking.write(key, value);
          if (virtual != null) {
            writeCpuMs[writes] = (CPU.getCurrentThreadCpuTime() - c0) / 1e6;
            writeVirtualMs[writes] = (scheduler.nanoTime() - v0) / 1e6;
            writeMs[writes] = writeVirtualMs[writes] + writeCpuMs[writes];
            writes++;
          } else {
            writeMs[writes++] = (System.nanoTime() - t0) / 1e6 / scale;
          }
          last = receipt;
          if (onlyNeededDataClouds(mode, size, receipt)) {
            onlyNeeded++;
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
      // The writes' bill includes what they leave running: metadata puts to the clouds beyond the
      // quorum and the packer's packs and its own writeM. Wait until all of that is done.
      drain(virtual, atClient, mode.inline() ? PACKER_QUIET : IDLE_QUIET, cell + " writes");
      double writeSeconds = (System.nanoTime() - writesStart) / 1e9;
      Map<String, CloudStats> afterWrites = store.stats();
      Map<String, Long> servedAfterWrites = served(atCloud);
      Floors.ReadLayout readLayout = readLayout(mode, size, last, arrangement);
      double readFloor = Floors.readMs(profile, arrangement, F, size, readLayout);
      double[] readMs = new double[ops];
      double[] readVirtualMs = new double[ops];
      double[] readCpuMs = new double[ops];
      int reads = 0;
      long readsStart = System.nanoTime();
      for (int i = 0; i < ops; i++) {
        long t0 = System.nanoTime();
        long v0 = scheduler.nanoTime();
        long c0 = virtual != null ? CPU.getCurrentThreadCpuTime() : 0;
        try {
          StoredValue v = virtual != null ? await(virtual, store.read(key)) : blocking.read(key);
          if (virtual != null) {
            readCpuMs[reads] = (CPU.getCurrentThreadCpuTime() - c0) / 1e6;
            readVirtualMs[reads] = (scheduler.nanoTime() - v0) / 1e6;
            readMs[reads] = readVirtualMs[reads] + readCpuMs[reads];
            reads++;
          } else {
            readMs[reads++] = (System.nanoTime() - t0) / 1e6 / scale;
          }
          if (v.info().size() != size) {
            throw new IllegalStateException("read " + v.info().size() + " bytes, wrote " + size);
          }
        } catch (RafeStoreException e) {
          report(arrangement, mode, size, "read", e);
        }
        tick(readFloor, arrangement, mode, size);
      }
      // Requests the reads cancelled may still be crossing the emulated links.
      drain(virtual, atClient, IDLE_QUIET, cell + " reads");
      double readSeconds = (System.nanoTime() - readsStart) / 1e9;
      Map<String, CloudStats> afterReads = store.stats();
      Map<String, Long> servedAfterReads = served(atCloud);
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
              ops - writes,
              new Floor(
                  writeFloor,
                  phasedFloor,
                  bestLayout.layout() + " on " + String.join("+", bestLayout.clouds())),
              onlyNeeded,
              billed(delta(afterWrites, before), servedAfterWrites, servedBefore),
              true,
              mostChosen(chosen, writes),
              writeSeconds,
              virtualTime(virtual, writeVirtualMs, writeCpuMs, writes));
      Result r =
          result(
              arrangement,
              mode,
              size,
              "read",
              Arrays.copyOf(readMs, reads),
              ops - reads,
              new Floor(readFloor, Double.NaN, readLayout.toString()),
              -1,
              billed(delta(afterReads, afterWrites), servedAfterReads, servedAfterWrites),
              false,
              "",
              readSeconds,
              virtualTime(virtual, readVirtualMs, readCpuMs, reads));
      log.printf(
          Locale.ROOT,
          "config %d %-11s %6s  write median %8.1f ms (needed clouds only %d/%d)  read median"
              + " %8.1f ms  failures %d  (%.1f s + %.1f s)%n",
          arrangement.number(),
          mode,
          Reports.sizeLabel(size),
          w.medianMs(),
          onlyNeeded,
          ops,
          r.medianMs(),
          w.failures() + r.failures(),
          writeSeconds,
          readSeconds);
      out.add(w);
      out.add(r);
      if (external) {
        // Leave nothing behind on real clouds: delete (tombstone and data), then purge.
        try {
          if (virtual != null) {
            await(virtual, store.delete(key));
            await(virtual, store.purge(key));
          } else {
            blocking.delete(key);
            blocking.purge(key);
          }
        } catch (RafeStoreException e) {
          log.println("cleaning up " + key + " failed (results stand): " + e.getMessage());
        }
      }
    }
    return out;
  }

  /**
   * Waits until no request of the client is in flight and none has started or ended for {@code
   * quiet}, at most {@link #DRAIN_LIMIT}; says so in the log if it gave up. On real time it polls
   * every 10 ms; on virtual time ({@code virtual} not null) it runs the scheduler's timers instead,
   * skipping straight to the end of the quiet period when idle, and gives up early when the client
   * is busy but nothing is left to run (it could never become idle).
   */
  private void drain(
      VirtualScheduler virtual, List<MeteredCloud> meters, Duration quiet, String what)
      throws IOException {
    java.util.function.LongSupplier clock = virtual != null ? virtual::nanoTime : System::nanoTime;
    long start = clock.getAsLong();
    while (true) {
      long now = clock.getAsLong();
      boolean idle = true;
      long lastActivity = Long.MIN_VALUE;
      for (MeteredCloud m : meters) {
        idle &= m.inFlight() == 0;
        lastActivity = Math.max(lastActivity, m.lastActivityNanos());
      }
      long quietFor = now - lastActivity;
      if (idle && quietFor >= quiet.toNanos()) {
        return;
      }
      boolean stuck = virtual != null && !idle && virtual.pending() == 0;
      if (now - start > DRAIN_LIMIT.toNanos() || stuck) {
        log.println(
            "WARNING: "
                + what
                + ": the client was not idle after "
                + Duration.ofNanos(now - start).toSeconds()
                + " s"
                + (virtual != null ? " of virtual time" : "")
                + "; its counters are read anyway");
        return;
      }
      if (virtual != null) {
        virtual.advance(
            idle ? Duration.ofNanos(quiet.toNanos() - quietFor) : Duration.ofMillis(10));
      } else {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while waiting for the client to be idle");
        }
      }
    }
  }

  /** The bench thread's CPU clock ({@code --virtual}). */
  private static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * Runs virtual time until {@code op} completes; its value, or its failure as the blocking API
   * would throw it.
   */
  private static <T> T await(VirtualScheduler virtual, CompletableFuture<T> op)
      throws RafeStoreException {
    try {
      return virtual.runUntilDone(op);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RafeStoreException r) {
        throw r;
      }
      if (cause instanceof java.util.concurrent.CompletionException c
          && c.getCause() instanceof RafeStoreException r) {
        throw r;
      }
      throw new RafeStoreException("operation failed: " + cause, cause);
    }
  }

  /** The virtual and CPU parts of a cell's first {@code n} operations; NONE on real time. */
  private static Result.VirtualTime virtualTime(
      VirtualScheduler virtual, double[] virtualMs, double[] cpuMs, int n) {
    if (virtual == null) {
      return Result.VirtualTime.NONE;
    }
    double[] v = Arrays.copyOf(virtualMs, n);
    double[] c = Arrays.copyOf(cpuMs, n);
    Arrays.sort(v);
    Arrays.sort(c);
    return new Result.VirtualTime(
        Result.percentile(v, 0.5),
        Result.percentile(v, 0.9),
        Result.percentile(v, 0.99),
        Result.percentile(c, 0.5),
        Result.percentile(c, 0.9));
  }

  /** A wall clock that reads virtual time from a fixed start, for versions' creation times. */
  private static final class VirtualClock extends java.time.Clock {
    private final VirtualScheduler virtual;
    private final java.time.Instant start;

    VirtualClock(VirtualScheduler virtual, java.time.Instant start) {
      this.virtual = virtual;
      this.start = start;
    }

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public java.time.Clock withZone(java.time.ZoneId zone) {
      return java.time.Clock.fixed(instant(), zone);
    }

    @Override
    public java.time.Instant instant() {
      return start.plusNanos(virtual.nanoTime());
    }
  }

  /** Bytes each cloud has served so far, by cloud id. */
  private static Map<String, Long> served(Map<String, MeteredCloud> atCloud) {
    Map<String, Long> out = new HashMap<>();
    atCloud.forEach((id, m) -> out.put(id, m.bytesServed()));
    return out;
  }

  /**
   * The client's counts with each cloud's bytes down replaced by what the cloud sent in the same
   * period: the egress a provider bills, cancelled requests included.
   */
  static Map<String, CloudStats> billed(
      Map<String, CloudStats> delta, Map<String, Long> servedNow, Map<String, Long> servedBefore) {
    Map<String, CloudStats> out = new HashMap<>();
    for (Map.Entry<String, CloudStats> e : delta.entrySet()) {
      CloudStats c = e.getValue();
      long egress =
          servedNow.getOrDefault(e.getKey(), 0L) - servedBefore.getOrDefault(e.getKey(), 0L);
      out.put(
          e.getKey(),
          new CloudStats(
                  c.cloudId(),
                  c.puts(),
                  c.gets(),
                  c.deletes(),
                  c.lists(),
                  c.bytesUp(),
                  Math.max(egress, c.bytesDown()),
                  c.cancelled(),
                  c.errors(),
                  c.speculations(),
                  c.speculationsKept(),
                  c.speculationsWasted(),
                  c.speculativeBytes())
              .withRouting(
                  c.routedSmall(), c.routedBulk(), c.steals(), c.stealsWon(), c.stealsWasted()));
    }
    return out;
  }

  /**
   * Whether a write contacted only the data clouds its layout needs: none for an inline value, k +
   * f for fragments, f+1 for whole copies (the paper's Table 3 count, for the modes that store
   * whole copies; the DepSky baselines always contact all n).
   */
  static boolean onlyNeededDataClouds(Protocol mode, long size, WriteReceipt receipt) {
    if (mode.choosesLayout()) {
      return receipt.onlyNeededDataClouds();
    }
    if (mode.mayInline(size)) {
      return receipt.dataCloudsContacted().isEmpty();
    }
    if (mode.rafeStore() && mode.erasureK() > 0) {
      return receipt.dataCloudsContacted().size() == mode.erasureK() + F;
    }
    return receipt.onlyFPlusOneDataClouds();
  }

  /**
   * The layout of the version the reads fetch: what {@code last}, the cell's last successful write,
   * stored and where (before any write succeeded: what the protocol would store, on the first data
   * clouds of the arrangement).
   */
  static Floors.ReadLayout readLayout(
      Protocol mode, long size, WriteReceipt last, WanProfile.Arrangement arrangement) {
    List<String> holders = last == null ? List.of() : last.info().dataClouds();
    List<String> data = Floors.dataClouds(arrangement);
    switch (mode.mode()) {
      case DEPSKY_A:
        return new Floors.ReadLayout(
            Floors.ReadKind.WHOLE, 0, holders.isEmpty() ? arrangement.order() : holders);
      case DEPSKY_CA:
        // n fragments of the sealed value, any f+1 of which decode.
        return new Floors.ReadLayout(
            Floors.ReadKind.CODED, F + 1, holders.isEmpty() ? arrangement.order() : holders);
      default:
        break;
    }
    Optional<io.rafestore.LayoutChoice> choice =
        last == null ? Optional.empty() : last.layoutChoice();
    boolean inline =
        choice.isPresent()
            ? choice.get().chosen().kind() == io.rafestore.LayoutChoice.Kind.INLINE
            : mode.mayInline(size);
    if (inline) {
      // The value is in the writer's log, which every cloud holds once the write's lingering
      // puts ended.
      return new Floors.ReadLayout(Floors.ReadKind.INLINE, 0, arrangement.order());
    }
    int k = choice.map(c -> c.chosen().k()).orElse(mode.erasureK());
    if (holders.isEmpty()) {
      holders = data.subList(0, Math.min(data.size(), k > 0 ? k + F : F + 1));
    }
    boolean parted = size > Floors.DEFAULT_PART_SIZE;
    Floors.ReadKind kind =
        k > 0
            ? (parted ? Floors.ReadKind.CODED_PARTS : Floors.ReadKind.CODED)
            : (parted ? Floors.ReadKind.PARTS : Floors.ReadKind.WHOLE);
    return new Floors.ReadLayout(kind, k, holders);
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

  /** A cell's floor: the physical one, the one with RafeStore's phases (writes), its layout. */
  private record Floor(double ms, double phasedMs, String layout) {}

  private Result result(
      WanProfile.Arrangement arrangement,
      Protocol mode,
      long size,
      String op,
      double[] latencies,
      int failures,
      Floor floor,
      int onlyNeeded,
      Map<String, CloudStats> delta,
      boolean writes,
      String chosenLayout,
      double seconds,
      Result.VirtualTime virtualTime) {
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
        floor.ms(),
        onlyNeeded,
        cancelled,
        perCloud,
        prices.costPer10k(delta, latencies.length + failures, writes),
        new Result.Speculative(started, kept, wasted),
        chosenLayout,
        floor.phasedMs(),
        floor.layout(),
        seconds,
        virtualTime);
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

    /** {@code --virtual}: virtual time at time scale 1, CPU time measured per operation. */
    boolean virtual;

    String runInfo = "";
    Path out = Path.of("paper-results");
    List<Integer> configs = List.of(1, 2, 3);

    /** The protocols of every configuration ({@code --protocols}); null for the defaults. */
    List<Protocol> modes;

    /** Protocols of one configuration ({@code --config-protocols N=...}), over {@link #modes}. */
    final Map<Integer, List<Protocol>> configModes = new java.util.TreeMap<>();

    long[] sizes = PAPER_SIZES.clone();
    int ops = 60;

    /**
     * From this size on, {@link #largeOps} operations per cell instead of {@link #ops}; 0: none.
     */
    long largeFrom;

    int largeOps;
    double timeScale;
    String profile = WanProfile.DEFAULT;
    String prices = PriceTable.DEFAULT;

    /** Writes, then reads, per cell of values of {@code size} bytes. */
    int opsFor(long size) {
      return largeFrom > 0 && size >= largeFrom ? largeOps : ops;
    }

    /** "60 ops" or "60 ops (30 from 4MB)". */
    String opsDescription() {
      return ops
          + " ops"
          + (largeFrom > 0 ? " (" + largeOps + " from " + Reports.sizeLabel(largeFrom) + ")" : "");
    }

    /**
     * The protocols run in configuration {@code config}: {@code --config-protocols} for it, else
     * {@code --protocols}, else {@link Protocol#defaultsFor}.
     */
    List<Protocol> modesFor(int config) {
      List<Protocol> m = configModes.get(config);
      if (m != null) {
        return m;
      }
      return modes != null ? modes : Protocol.defaultsFor(config);
    }

    /** Every protocol run in some configuration, in declaration order. */
    List<Protocol> allModes() {
      java.util.EnumSet<Protocol> all = java.util.EnumSet.noneOf(Protocol.class);
      for (int c : configs) {
        all.addAll(modesFor(c));
      }
      return List.copyOf(all);
    }

    /** "config 1: [PAPER, FAST], config 3: [PAPER]", or one list if every configuration has it. */
    String modesDescription() {
      java.util.Set<List<Protocol>> distinct = new java.util.LinkedHashSet<>();
      for (int c : configs) {
        distinct.add(modesFor(c));
      }
      if (distinct.size() <= 1) {
        return String.valueOf(configs.isEmpty() ? List.of() : modesFor(configs.get(0)));
      }
      StringBuilder sb = new StringBuilder();
      for (int c : configs) {
        sb.append(sb.length() == 0 ? "" : ", ").append("config ").append(c).append(": ");
        sb.append(modesFor(c));
      }
      return sb.toString();
    }

    static String usage() {
      return String.join(
          "\n",
          "usage: PaperBench [--quick] [--out DIR] [--configs 1,2,3] [--protocols PAPER,FAST,...]",
          "                  [--config-protocols N=PAPER,...] [--sizes 1K,64K,1M] [--ops N]",
          "                  [--time-scale X] [--profile FILE] [--prices FILE] [--verbose]",
          "                  [--parallel-configs] [--no-progress] [--virtual]",
          "  --quick        time scale from the profile (1/50), 3 ops, sizes 1K,64K,256K,1M",
          "  --out          output directory (default paper-results)",
          "  --configs      Table 2 configurations (default 1,2,3)",
          "  --protocols    (or --modes) the protocols of every configuration:",
          "                 PAPER (the paper's protocol on Table 2's order of data clouds, no",
          "                 inline values), FAST (whole copies on the client's choice of clouds),",
          "                 FAST_INLINE (FAST with inline values at the defaults: up to 64 KiB in",
          "                 the signed log; not run above that, where it is FAST), FAST_CODED",
          "                 (fragments, k = 2), FAST_AUTO (the layout chosen per value, inline",
          "                 allowed), FAST_AUTO_COST (FAST_AUTO under the cost objective: logs on",
          "                 the n - f cheapest clouds, packs on the cheapest f+1), DEPSKY_A,",
          "                 DEPSKY_CA; also PAPER_SELECTED, FAST_TABLE_ORDER.",
          "                 Default: configurations 1 and 2 all but the last two, others PAPER,",
          "                 FAST, DEPSKY_A, DEPSKY_CA",
          "  --config-protocols N=P1,P2  the protocols of configuration N (repeatable)",
          "  --sizes        value sizes with K or M suffix (default 1K..16M, x4 steps)",
          "  --ops          writes, then reads, per cell (default 60, 3 with --quick)",
          "  --large-ops SIZE=N  N writes, then N reads, per cell from SIZE on (4M=30: the",
          "                 largest values, most of a run's time, measured half as often)",
          "  --time-scale   multiply RTTs and divide bandwidths by X (0 < X <= 1; default 1, the",
          "                 paper's real time; latencies are reported divided by X)",
          "  --profile      WAN profile file (default the built-in Table 1 profile)",
          "  --prices       price table file (default the built-in assumed list prices)",
          "  --verbose      print what each write did (data clouds, writeDf, readM skipped)",
          "  --parallel-configs  run the configurations at the same time, one thread each",
          "                 (a shorter run; they then share the CPU and the timer thread)",
          "  --no-progress  no progress bar on stderr",
          "  --virtual      virtual time instead of real time: the WAN and the client on a",
          "                 virtual scheduler at time scale 1 (the profile's own RTTs and",
          "                 bandwidths), one thread; each operation's virtual latency and the CPU",
          "                 time of that thread are reported, and latencies (and targets) are",
          "                 their sum. Not with --time-scale or --parallel-configs");
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
          case "--virtual" -> o.virtual = true;
          case "--modes", "--protocols" -> {
            o.modes = protocols(value(args, ++i, a), a);
          }
          case "--config-protocols" -> {
            String v = value(args, ++i, a);
            int eq = v.indexOf('=');
            if (eq < 0) {
              throw new IllegalArgumentException(
                  a + ": expected N=PROTOCOL,PROTOCOL..., was '" + v + "'");
            }
            o.configModes.put(integer(v.substring(0, eq), a), protocols(v.substring(eq + 1), a));
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
          case "--large-ops" -> {
            String v = value(args, ++i, a);
            int eq = v.indexOf('=');
            if (eq < 0) {
              throw new IllegalArgumentException(
                  a + ": expected SIZE=N, as in 4M=30, was '" + v + "'");
            }
            o.largeFrom = size(v.substring(0, eq));
            o.largeOps = integer(v.substring(eq + 1), a);
            if (o.largeOps < 1) {
              throw new IllegalArgumentException(a + ": N must be >= 1, was " + o.largeOps);
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
      if (o.virtual && o.timeScale > 0) {
        throw new IllegalArgumentException(
            "--time-scale and --virtual cannot be combined: --virtual runs at the profile's own"
                + " time scale 1 on virtual time, which costs no waiting");
      }
      if (o.virtual && o.parallelConfigs) {
        throw new IllegalArgumentException(
            "--parallel-configs and --virtual cannot be combined: --virtual measures each"
                + " operation's CPU time on its thread, and configurations run at once would share"
                + " the cores (virtual time needs no parallel run to be short)");
      }
      return o;
    }

    private static List<Protocol> protocols(String list, String option) {
      List<Protocol> m = new ArrayList<>();
      for (String s : list.split(",")) {
        try {
          m.add(Protocol.valueOf(s.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              option
                  + ": unknown protocol '"
                  + s
                  + "', expected "
                  + Arrays.toString(Protocol.values()),
              e);
        }
      }
      return List.copyOf(m);
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
