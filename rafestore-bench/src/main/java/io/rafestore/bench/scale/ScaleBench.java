package io.rafestore.bench.scale;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.bench.support.RetainNewestCloud;
import io.rafestore.clouds.WanEmulator;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How one client scales with operations in flight: for each level (1, 10, 100, 1,000 by default) it
 * keeps that many operations running on four in-memory clouds behind an emulated WAN with the same
 * round-trip time to every cloud (50 ms by default, real time on {@link Scheduler#system()}),
 * starting a new one whenever one ends, and reports operations per second, mean latency and the
 * peak number of live threads in the JVM during the level ({@link ThreadMXBean}). Ideal scaling is
 * linear until the client's CPU is the bottleneck; the thread count must not grow with the number
 * of requests. Writes go to distinct keys (a client runs one key's metadata phases one after
 * another), reads to keys written beforehand. The clouds' answers arrive on a small pool ({@code
 * --cloud-threads}), as a real driver's arrive on its I/O threads, not on the timer thread.
 *
 * <p>Real time, not virtual: the ratio is meant to show where the client's CPU (signing, hashing,
 * the futures) stops throughput growing, and on a virtual clock CPU takes no time, so 1,000 in
 * flight would always give 1,000 x. Each level also reports the process's CPU time per operation
 * (client, emulated clouds, JIT and GC together).
 *
 * <pre>
 * java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.scale.ScaleBench --out DIR
 * java -cp ... io.rafestore.bench.scale.ScaleBench --quick
 * </pre>
 *
 * <p>A command-line tool; not thread-safe. Issue 16's target, printed per operation and mode: with
 * the default executor and signer, 1,000 in flight give at least 500 times the throughput of one,
 * and the client adds at most 4 threads per CPU (beyond the JVM's own and the clouds' pool).
 */
public final class ScaleBench {
  private ScaleBench() {}

  /** One level's measurement. */
  record Level(
      String op,
      ProtocolMode mode,
      String executor,
      int inFlight,
      long completed,
      long failed,
      double seconds,
      double meanLatencyMs,
      int peakThreads,
      double cpuMicrosPerOp) {
    double opsPerSecond() {
      return completed / seconds;
    }
  }

  public static void main(String[] args) {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Runs the suite; prints one line per level and the target line to {@code out}, writes {@code
   * scale.csv} and {@code scale.md} to {@code --out} if given. Never calls {@link System#exit}.
   *
   * @return 0 on completion, 2 on a usage error, 1 if the run failed
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    List<Integer> levels = List.of(1, 10, 100, 1000);
    double seconds = 10;
    double warmup = 3;
    double jitWarmup = 20;
    long rttMs = 50;
    int size = 1024;
    List<ProtocolMode> modes = List.of(ProtocolMode.FAST, ProtocolMode.PAPER);
    List<String> ops = List.of("write", "read");
    List<String> executors = List.of("default", "pool");
    int ioThreads = 2;
    Path outDir = null;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> {
            seconds = 2;
            warmup = 1;
            jitWarmup = 2;
            levels = List.of(1, 10, 100);
            modes = List.of(ProtocolMode.FAST);
          }
          case "--levels" -> {
            List<Integer> l = new ArrayList<>();
            for (String s : value(args, ++i, a).split(",")) {
              l.add(Integer.parseInt(s.trim()));
            }
            levels = List.copyOf(l);
          }
          case "--seconds" -> seconds = Double.parseDouble(value(args, ++i, a));
          case "--warmup" -> warmup = Double.parseDouble(value(args, ++i, a));
          case "--jit-warmup" -> jitWarmup = Double.parseDouble(value(args, ++i, a));
          case "--rtt-ms" -> rttMs = Long.parseLong(value(args, ++i, a));
          case "--size" -> size = Integer.parseInt(value(args, ++i, a));
          case "--modes" -> {
            List<ProtocolMode> m = new ArrayList<>();
            for (String s : value(args, ++i, a).split(",")) {
              m.add(ProtocolMode.valueOf(s.trim().toUpperCase(Locale.ROOT)));
            }
            modes = List.copyOf(m);
          }
          case "--ops" -> ops = List.of(value(args, ++i, a).split(","));
          case "--executors" -> executors = List.of(value(args, ++i, a).split(","));
          case "--cloud-threads" -> ioThreads = Integer.parseInt(value(args, ++i, a));
          case "--out" -> outDir = Path.of(value(args, ++i, a));
          case "--help", "-h" -> {
            out.println(
                "usage: ScaleBench [--quick] [--levels 1,10,100,1000] [--seconds S] [--warmup S]"
                    + " [--jit-warmup S] [--rtt-ms MS] [--size BYTES] [--modes FAST,PAPER] [--ops write,read]"
                    + " [--executors default,pool] [--cloud-threads N] [--out DIR]\n"
                    + "  --executors: default = the client's default executor; pool = a"
                    + " fork-join pool with one thread per CPU\n"
                    + "  --warmup: each level runs this long before it is measured\n"
                    + "  --jit-warmup: before the first level, each op runs this long at the"
                    + " highest level, unmeasured, so that every row (the first executor's as"
                    + " much as the last's) sees compiled code (default 20; 0: none)\n"
                    + "  --cloud-threads: the emulated clouds' answers arrive on a pool of N"
                    + " threads, as a real driver's arrive on its I/O threads (default 2; 0: on"
                    + " the timer thread)");
            return 0;
          }
          default -> throw new IllegalArgumentException("unknown option '" + a + "'");
        }
      }
      if (seconds <= 0
          || warmup < 0
          || jitWarmup < 0
          || rttMs < 0
          || size < 1
          || levels.isEmpty()
          || ioThreads < 0) {
        throw new IllegalArgumentException(
            "--seconds > 0, --warmup >= 0, --jit-warmup >= 0, --rtt-ms >= 0, --size >= 1, --cloud-threads >= 0");
      }
      for (String op : ops) {
        if (!op.equals("write") && !op.equals("read")) {
          throw new IllegalArgumentException("--ops: write or read, was '" + op + "'");
        }
      }
      for (String e : executors) {
        if (!e.equals("default") && !e.equals("pool")) {
          throw new IllegalArgumentException("--executors: default or pool, was '" + e + "'");
        }
      }
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
    // Live threads before any client: the JVM's own and this tool's. A level's peak minus these
    // and the clouds' I/O pool is what the client added (its executor, its scheduler's timer).
    int baselineThreads = ManagementFactory.getThreadMXBean().getThreadCount();
    out.printf(
        Locale.ROOT,
        "ScaleBench: %d-byte values, RTT %d ms to each of 4 clouds, %s s per level after %s s"
            + " warm-up, %d CPUs, %d threads before any client, answers on %d cloud I/O"
            + " threads%n",
        size,
        rttMs,
        seconds,
        warmup,
        Runtime.getRuntime().availableProcessors(),
        baselineThreads,
        ioThreads);
    List<Level> results = new ArrayList<>();
    try {
      // The rows run one after another in one JVM, so without this the first executor's rows
      // would run on code the JIT had not compiled yet and the last's on code it had (a run with
      // the executors in the other order turned the comparison around).
      if (jitWarmup > 0) {
        int top = levels.stream().max(Integer::compare).orElseThrow();
        for (String op : ops) {
          for (ProtocolMode mode : modes) {
            Level w =
                measure(op, mode, executors.get(0), top, jitWarmup, 0, rttMs, size, ioThreads);
            out.printf(
                Locale.ROOT,
                "JIT warm-up, not measured: %s %s executor %s in flight %d for %s s: %.1f ops/s%n",
                op,
                mode,
                executors.get(0),
                top,
                jitWarmup,
                w.opsPerSecond());
          }
        }
      }
      for (String executor : executors) {
        for (String op : ops) {
          for (ProtocolMode mode : modes) {
            for (int level : levels) {
              Level r = measure(op, mode, executor, level, seconds, warmup, rttMs, size, ioThreads);
              results.add(r);
              out.printf(
                  Locale.ROOT,
                  "%-5s %-5s executor %-7s in flight %5d: %9.1f ops/s  mean latency %8.1f ms"
                      + "  peak threads %3d  CPU %6.1f us/op  failed %d%n",
                  r.op(),
                  r.mode(),
                  r.executor(),
                  r.inFlight(),
                  r.opsPerSecond(),
                  r.meanLatencyMs(),
                  r.peakThreads(),
                  r.cpuMicrosPerOp(),
                  r.failed());
            }
          }
        }
      }
      List<String> targets =
          targets(results, baselineThreads, ioThreads, Runtime.getRuntime().availableProcessors());
      for (String t : targets) {
        out.println(t);
      }
      if (outDir != null) {
        write(outDir, results, targets, rttMs, size, seconds, jitWarmup, baselineThreads);
      }
      return 0;
    } catch (IOException e) {
      err.println("ScaleBench failed: " + e);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("ScaleBench interrupted");
      return 1;
    }
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  static Level measure(
      String op,
      ProtocolMode mode,
      String executor,
      int inFlight,
      double seconds,
      double warmup,
      long rttMs,
      int size,
      int cloudThreads)
      throws IOException, InterruptedException {
    Scheduler scheduler = Scheduler.system();
    java.util.concurrent.ExecutorService io =
        cloudThreads == 0 ? null : Executors.newFixedThreadPool(cloudThreads, ioThreadFactory());
    WanEmulator wan =
        WanEmulator.builder(scheduler)
            .seed(inFlight)
            .callbackExecutor(io == null ? Runnable::run : io)
            .build();
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer("scale", SigningKeys.generate())
            .mode(mode)
            .scheduler(scheduler);
    ForkJoinPool pool = null;
    if (executor.equals("pool")) {
      pool = new ForkJoinPool(Runtime.getRuntime().availableProcessors());
      b.executor(pool);
    }
    for (int i = 0; i < 4; i++) {
      b.cloud(
          wan.wrap(
              new RetainNewestCloud("c" + i, 2),
              WanEmulator.Link.rtt(Duration.ofMillis(rttMs)).jitter(0.05)));
    }
    try (RafeStore store = b.build()) {
      return drive(store, op, mode, executor, inFlight, seconds, warmup, size);
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
      if (io != null) {
        io.shutdownNow();
      }
    }
  }

  private static java.util.concurrent.ThreadFactory ioThreadFactory() {
    AtomicLong n = new AtomicLong();
    return r -> {
      Thread t = new Thread(r, "cloud-io-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static Level drive(
      RafeStore store,
      String op,
      ProtocolMode mode,
      String executor,
      int inFlight,
      double seconds,
      double warmup,
      int size)
      throws IOException, InterruptedException {
    byte[] value = new byte[size];
    // Distinct keys: twice the level, so two operations in flight never share one.
    int keys = Math.max(2, 2 * inFlight);
    {
      if (op.equals("read")) {
        List<CompletableFuture<?>> seed = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
          seed.add(store.write("scale/" + k, value));
          if (seed.size() == 200) {
            CompletableFuture.allOf(seed.toArray(CompletableFuture[]::new)).join();
            seed.clear();
          }
        }
        CompletableFuture.allOf(seed.toArray(CompletableFuture[]::new)).join();
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      AtomicLong completed = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      AtomicLong latencyNanos = new AtomicLong();
      AtomicLong nextKey = new AtomicLong();
      AtomicBoolean counting = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch drained = new CountDownLatch(inFlight);
      Runnable[] loop = new Runnable[1];
      loop[0] =
          () -> {
            if (stop.get()) {
              drained.countDown();
              return;
            }
            String key = "scale/" + Math.floorMod(nextKey.getAndIncrement(), keys);
            long t0 = System.nanoTime();
            CompletableFuture<?> f = op.equals("write") ? store.write(key, value) : store.read(key);
            f.whenComplete(
                (r, e) -> {
                  if (counting.get()) {
                    if (e == null) {
                      completed.incrementAndGet();
                      latencyNanos.addAndGet(System.nanoTime() - t0);
                    } else {
                      failed.incrementAndGet();
                    }
                  }
                  loop[0].run();
                });
          };
      for (int i = 0; i < inFlight; i++) {
        loop[0].run();
      }
      Thread.sleep((long) (warmup * 1000));
      threads.resetPeakThreadCount();
      long cpu0 = processCpuNanos();
      long start = System.nanoTime();
      counting.set(true);
      Thread.sleep((long) (seconds * 1000));
      counting.set(false);
      double elapsed = (System.nanoTime() - start) / 1e9;
      long cpu = processCpuNanos() - cpu0;
      int peak = threads.getPeakThreadCount();
      stop.set(true);
      if (!drained.await(60, TimeUnit.SECONDS)) {
        throw new IOException("operations still in flight 60 s after the level ended");
      }
      long n = completed.get();
      return new Level(
          op,
          mode,
          executor,
          inFlight,
          n,
          failed.get(),
          elapsed,
          n == 0 ? Double.NaN : latencyNanos.get() / 1e6 / n,
          peak,
          n == 0 || cpu < 0 ? Double.NaN : cpu / 1e3 / n);
    }
  }

  /**
   * CPU time of the whole process (every thread, the JIT and the GC included), or -1 where the JVM
   * does not say: what the level's operations cost the machine, client and emulated clouds alike.
   */
  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    return -1;
  }

  /**
   * Issue 16's target lines, one per (op, mode, executor) measured at 1 and 1,000 in flight: the
   * throughput ratio (at least 500) and the threads the client added at its peak (at most 4 per
   * CPU): the peak less the {@code baseline} threads alive before any client and the {@code
   * cloudPools} threads the emulated clouds deliver answers on.
   */
  static List<String> targets(List<Level> results, int baseline, int cloudPools, int cpus) {
    List<String> out = new ArrayList<>();
    for (Level top : results) {
      if (top.inFlight() != 1000) {
        continue;
      }
      for (Level one : results) {
        if (one.inFlight() == 1
            && one.op().equals(top.op())
            && one.mode() == top.mode()
            && one.executor().equals(top.executor())) {
          double ratio = top.opsPerSecond() / one.opsPerSecond();
          int added = top.peakThreads() - baseline - cloudPools;
          boolean pass = ratio >= 500 && added <= 4 * cpus;
          out.add(
              String.format(
                  Locale.ROOT,
                  "%s  %s %s executor %s: 1000 in flight give %.0f x the throughput of 1"
                      + " (target >= 500); peak threads %d: %d before any client, %d the"
                      + " clouds' I/O pool, %d added by the client (target <= 4 x %d CPUs = %d);"
                      + " %.0f us of CPU per operation",
                  pass ? "PASS" : "MISS",
                  top.op(),
                  top.mode(),
                  top.executor(),
                  ratio,
                  top.peakThreads(),
                  baseline,
                  cloudPools,
                  added,
                  cpus,
                  4 * cpus,
                  top.cpuMicrosPerOp()));
        }
      }
    }
    return out;
  }

  private static void write(
      Path dir,
      List<Level> results,
      List<String> targets,
      long rttMs,
      int size,
      double seconds,
      double jitWarmup,
      int baselineThreads)
      throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv =
        new StringBuilder(
            "op,mode,executor,in_flight,completed,failed,seconds,ops_per_s,ratio_vs_1,mean_latency_ms,"
                + "peak_threads,cpu_us_per_op\n");
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "One client, four in-memory clouds at %d ms RTT (emulated WAN, real time), %d-byte"
                + " values, %s s per level after an unmeasured JIT warm-up of %s s per op at the"
                + " highest level, %d CPUs, %d threads before any client. CPU us/op is"
                + " the whole process's CPU time (client, emulated clouds, JIT, GC) over the"
                + " operations completed.%n%n",
            rttMs,
            size,
            seconds,
            jitWarmup,
            Runtime.getRuntime().availableProcessors(),
            baselineThreads));
    md.append(
        "| op | mode | executor | in flight | ops/s | x vs 1 in flight | mean latency ms |"
            + " peak threads | CPU us/op | failed |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Level r : results) {
      double base = Double.NaN;
      for (Level one : results) {
        if (one.inFlight() == 1
            && one.op().equals(r.op())
            && one.mode() == r.mode()
            && one.executor().equals(r.executor())) {
          base = one.opsPerSecond();
        }
      }
      double ratio = r.opsPerSecond() / base;
      csv.append(
          String.format(
              Locale.ROOT,
              "%s,%s,%s,%d,%d,%d,%.3f,%.2f,%.2f,%.2f,%d,%.1f%n",
              r.op(),
              r.mode(),
              r.executor(),
              r.inFlight(),
              r.completed(),
              r.failed(),
              r.seconds(),
              r.opsPerSecond(),
              ratio,
              r.meanLatencyMs(),
              r.peakThreads(),
              r.cpuMicrosPerOp()));
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %d | %.1f | %.1f | %.1f | %d | %.0f | %d |%n",
              r.op(),
              r.mode(),
              r.executor(),
              r.inFlight(),
              r.opsPerSecond(),
              ratio,
              r.meanLatencyMs(),
              r.peakThreads(),
              r.cpuMicrosPerOp(),
              r.failed()));
    }
    md.append("\n```\n");
    for (String t : targets) {
      md.append(t).append('\n');
    }
    md.append("```\n");
    Files.writeString(dir.resolve("scale.csv"), csv, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("scale.md"), md, StandardCharsets.UTF_8);
  }
}
