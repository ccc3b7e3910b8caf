package io.rafestore.bench.cost;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.Layout;
import io.rafestore.Objective;
import io.rafestore.Pricing;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.WriteReceipt;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;

/**
 * What a small write costs in cloud requests and dollars (issue 18): many concurrent writers of 1
 * KB values with and without group commit, against DepSky-A, in one run; and where the cost
 * objective puts data when one data cloud is ten times cheaper.
 *
 * <p><b>Deployment.</b> Four in-memory clouds behind the {@link WanEmulator} with the paper's Table
 * 1 profile (p0 5 ms and 100 Mbit/s; p1, p2, p3 315, 750 and 1,200 ms at 2 Mbit/s; 5 % jitter), f =
 * 1, mode PAPER, on <b>virtual time</b> ({@link VirtualScheduler}): round trips and transfers are
 * modelled, the client's CPU takes no time. Each variant runs on a fresh deployment with the same
 * workload.
 *
 * <p><b>Group commit.</b> {@code --writers} (64) writers, each a closed loop (its next write when
 * the last completed), write {@code --writes} (10,000) values of {@code --value-bytes} (1 KB) in
 * all; writer i writes key {@code thread/(i mod --keys)} (8 keys: a forum with eight active
 * threads, eight posters on each). Configuration 1 (p3 metadata only). Variants: DepSky-A (the
 * baseline the dollars are compared with), write-through (RafeStore's defaults: inline values and
 * packing, one metadata round per write: {@code groupCommit(false)}) and write-through with group
 * commit. Counted after the client is idle (lingering metadata puts and packing done): cloud
 * requests per write and dollars per write from {@link RafeStore#stats()} at every cloud's {@link
 * Pricing#DEFAULT} (S3 Standard list prices, an assumption: requests and egress as the client
 * counted them; storage is not in the figure: a month of DepSky-A's four 1 KB copies is about
 * $10^-7 per write, against its requests' $4 x 10^-5).
 *
 * <p><b>Cost objective.</b> Configuration 2 (p0 metadata only; data on p1, p2, p3), mode FAST,
 * {@link Layout#AUTO}, values as data objects (inline off, so that placement is visible), p3 priced
 * at a tenth of the others; {@code --cost-writes} (1,000) writes of 1 KB by 16 writers to keys of
 * their own, under {@link Objective#latency()} and {@link Objective#cost()}. Condition 1 holds for
 * the fastest pair {p1, p2} and for {p2, p3}. Reported: the share of values with a copy on p3, the
 * bill (requests and egress from {@code stats()}, plus a month of the data objects' storage at each
 * holder's price) and the write latency.
 *
 * <pre>
 * java -cp rafestore-bench/target/benchmarks.jar io.rafestore.bench.cost.WriteCostBench --out DIR
 * java -cp ... io.rafestore.bench.cost.WriteCostBench --quick
 * java -cp ... io.rafestore.bench.cost.WriteCostBench --only write-back --out DIR
 * java -cp ... io.rafestore.bench.cost.WriteCostBench --only write-back --jit-warmup 60 \
 *     --latency-writes 80000 --out DIR
 * java -XX:+UseZGC -cp ... io.rafestore.bench.cost.WriteCostBench --only write-back --out DIR
 * </pre>
 *
 * <p>A malformed or out-of-range option is refused with exit code 2 and a message naming it.
 *
 * <p><b>Write-back with group commit</b> (the first target): the same writers and keys,
 * each starting its next write when the last was <em>acknowledged</em> (fsynced in the local
 * journal), the uploads in the background sharing group-commit rounds; then {@code flush()} (the
 * counts run: {@code --writes} writes, their requests and dollars). The time from its first write
 * until {@code flush()} completed gives the rate the client moves writes to the clouds, reported as
 * "on the clouds: X writes/s": on this WAN profile about 150 a second, far below the rate the
 * journal acknowledges, so the latency rows below are bursts the journal absorbs, and the report
 * says so when the half-load rate is above that drain. This variant runs on <b>real time</b>, since
 * its journal's fsyncs are real: the same WAN profile on the system scheduler, the client on its
 * default executor. Its journal goes in a fresh directory under {@code --journal} (default: the
 * {@code --out} directory, else {@code java.io.tmpdir}), where the bench first times {@code
 * --fsyncs} (200) 1 KB appends each forced with {@code FileChannel.force(true)}, as the journal
 * forces a frame: the disk's baseline, in the same run on the same directory.
 *
 * <p><b>Warm-up.</b> Before any write-back measurement, unmeasured loops of the same writers, keys
 * and value size, each on a fresh client and journal directory (deleted after it, the client
 * closed): first a closed loop of {@code --warmup} (2,000) writes, then loops of {@code
 * --latency-writes} writes (the rows' length: a row's journal rotates segments and holds a backlog
 * that shorter loops never reach), closed and open (Poisson arrivals at half the throughput of the
 * closed loop before) by turns, until {@code --jit-warmup} (20; {@code --quick}: at most 0.5)
 * seconds have passed since the warm-up began. Without it the rows ran while C2 compiled the write
 * path (its threads took 25-40 % of two CPUs during every row of a 4 s run), so they measured the
 * JIT's warm-up, not the steady state. The report gives the warm-up's length and JIT time, and each
 * row's JIT compilation time ({@code CompilationMXBean}, "n/a" where unsupported) beside its
 * garbage collections: a row whose JIT ms is not near 0 ran while the JIT compiled.
 *
 * <p><b>The acknowledgement's latency, at three loads</b> (the second target), each on a
 * fresh client and journal after the warm-up, each writer a real thread blocking on its
 * acknowledgement, the uploads running in the background. The closed and open loops write {@code
 * --latency-writes} (50,000; {@code --quick}: at most 1,000) values each, so that the p99 rests on
 * 500 writes, not on the worst 100, which one garbage collection pause can set alone; the bench
 * refuses a row that would not fit the journal's default bound ({@link
 * io.rafestore.WriteBack#DEFAULT_MAX_ENTRIES} writes, {@link
 * io.rafestore.WriteBack#DEFAULT_MAX_BYTES} bytes, estimated without counting on the slow uploads),
 * naming the option, since writers waiting for space in a full journal are not the
 * acknowledgement's latency:
 *
 * <ul>
 *   <li><b>saturated</b>: the closed loop above. With {@code --writers} (64) writers always
 *       waiting, Little's law makes its mean latency 64 / throughput: it measures how many
 *       acknowledgements a second the process completes on this machine (2 cores shared with the
 *       uploads' signing and encoding, the WAN emulator and the JIT and GC), not what one
 *       acknowledgement waits for;
 *   <li><b>half load</b>: an open loop, writes falling due at Poisson arrivals of half the closed
 *       loop's throughput, taken by the same number of threads, each write timed from when it fell
 *       due if every thread was busy then (the wait for a thread is counted);
 *   <li><b>unloaded</b>: one writer thread, closed loop, {@code --single-writes} (2,000) writes.
 * </ul>
 *
 * <p>Each row gives p50, p99 and p99.9, each against the fsync's same percentile and the p99
 * against the fsync's median ("one fsync"), the garbage collections during the row (their pauses
 * stop every thread; where the JVM has a pause bean, as ZGC's "ZGC Pauses" beside its concurrent
 * "ZGC Cycles", only the pauses are counted, a sentence above the table saying which) and the JIT's
 * compilation time during it. The target line's verdict is the half-load row's p99 against the
 * fsync median; the line names that load and the JVM's collector ("on G1", "on ZGC": {@link
 * #collectorName}, so lines from two JVMs are told apart) and gives the unloaded figure and the
 * saturated one with its Little's law reading beside it, and, in the full run, says when the
 * half-load rate is a burst above the drain to the clouds. {@code --only write-back} runs just the
 * warm-up and these measurements (no virtual-time variant, no counts run, so no drain rate, no cost
 * objective) and writes {@code writecost-writeback.md}.
 *
 * <p>Prints target lines (PASS/MISS): write-through with group commit, and write-back with group
 * commit, each at least 5 x fewer cloud requests per write than write-through and at most 0.2 x
 * DepSky-A's dollars per write; the write-back acknowledgement's p99 within 3 x of the median fsync
 * at half load (above); the cost objective moves the data to the cheap cloud and the bill drops,
 * the latency objective does not move it. A command-line tool; not thread-safe.
 */
public final class WriteCostBench {
  static final KeyPair WRITER = SigningKeys.generate();
  static final long[] RTT_MS = {5, 315, 750, 1200};
  static final long[] BITS_PER_S = {100_000_000, 2_000_000, 2_000_000, 2_000_000};

  private WriteCostBench() {}

  /** The write paths compared. */
  enum Variant {
    DEPSKY_A("DepSky-A", b -> b.mode(ProtocolMode.DEPSKY_A)),
    WRITE_THROUGH("write-through", b -> b.groupCommit(false)),
    GROUP_COMMIT("write-through + group commit", b -> b.groupCommit(true));

    final String label;
    final UnaryOperator<RafeStore.Builder> settings;

    Variant(String label, UnaryOperator<RafeStore.Builder> settings) {
      this.label = label;
      this.settings = settings;
    }
  }

  /** What one variant measured. */
  record Result(
      String label,
      int writes,
      int failures,
      long requests,
      double dollars,
      double[] latenciesMs,
      Duration elapsed,
      Map<String, CloudStats> stats) {
    double requestsPerWrite() {
      return writes == 0 ? 0 : (double) requests / writes;
    }

    double dollarsPerWrite() {
      return writes == 0 ? 0 : dollars / writes;
    }

    double percentile(double p) {
      return WriteCostBench.percentile(latenciesMs, p);
    }
  }

  public static void main(String[] args) {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /** Runs the bench; returns the exit code (1 if a target line says MISS). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    int writes = 10_000;
    int writers = 64;
    int keys = 8;
    int valueBytes = 1000;
    int costWrites = 1_000;
    long seed = 18;
    Path outDir = null;
    Path journalBase = null;
    int fsyncs = 200;
    int singleWrites = 2_000;
    int warmup = 2_000;
    double jitWarmup = 20;
    int latencyWrites = 50_000;
    boolean quick = false;
    boolean onlyWriteBack = false;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> quick = true;
          case "--writes" -> writes = intValue(args, ++i, a);
          case "--latency-writes" -> latencyWrites = intValue(args, ++i, a);
          case "--writers" -> writers = intValue(args, ++i, a);
          case "--keys" -> keys = intValue(args, ++i, a);
          case "--value-bytes" -> valueBytes = intValue(args, ++i, a);
          case "--cost-writes" -> costWrites = intValue(args, ++i, a);
          case "--seed" -> seed = longValue(args, ++i, a);
          case "--out" -> outDir = Path.of(value(args, ++i, a));
          case "--journal" -> journalBase = Path.of(value(args, ++i, a));
          case "--fsyncs" -> fsyncs = intValue(args, ++i, a);
          case "--single-writes" -> singleWrites = intValue(args, ++i, a);
          case "--warmup" -> warmup = intValue(args, ++i, a);
          case "--jit-warmup" -> jitWarmup = secondsValue(args, ++i, a);
          case "--only" -> {
            String part = value(args, ++i, a);
            if (!part.equals("write-back")) {
              throw new IllegalArgumentException("--only takes write-back, not " + part);
            }
            onlyWriteBack = true;
          }
          default -> {
            err.println(USAGE);
            return 2;
          }
        }
      }
    } catch (IllegalArgumentException e) {
      err.println("WriteCostBench: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    if (quick) {
      writes = Math.min(writes, 1_000);
      latencyWrites = Math.min(latencyWrites, 1_000);
      costWrites = Math.min(costWrites, 200);
      singleWrites = Math.min(singleWrites, 500);
      warmup = Math.min(warmup, 300);
      jitWarmup = Math.min(jitWarmup, 0.5);
    }
    String invalid =
        atLeast(1, writes, "--writes")
            + atLeast(1, latencyWrites, "--latency-writes")
            + atLeast(1, writers, "--writers")
            + atLeast(1, keys, "--keys")
            + atLeast(0, valueBytes, "--value-bytes")
            + atLeast(1, costWrites, "--cost-writes")
            + atLeast(1, fsyncs, "--fsyncs")
            + atLeast(1, singleWrites, "--single-writes")
            + atLeast(0, warmup, "--warmup");
    if (!invalid.isEmpty()) {
      err.println("WriteCostBench:" + invalid);
      return 2;
    }
    String unbounded =
        journalBound(writes, "--writes", valueBytes)
            + journalBound(latencyWrites, "--latency-writes", valueBytes)
            + journalBound(warmup, "--warmup", valueBytes)
            + journalBound(singleWrites, "--single-writes", valueBytes);
    if (!unbounded.isEmpty()) {
      err.println("WriteCostBench:" + unbounded);
      return 2;
    }
    try {
      if (journalBase == null) {
        // The journal's disk: the report's directory if given, else the temporary directory.
        journalBase = outDir != null ? outDir : Path.of(System.getProperty("java.io.tmpdir"));
      }
      if (onlyWriteBack) {
        // The acknowledgement's measurements alone (no virtual-time variant, no cost objective).
        WriteBackRun wb =
            writeBackRun(
                writes,
                writers,
                keys,
                valueBytes,
                seed,
                journalBase,
                fsyncs,
                singleWrites,
                false,
                warmup,
                jitWarmup,
                latencyWrites);
        StringBuilder targets = new StringBuilder();
        String report = ackReport(wb, targets) + "\n" + targets;
        out.print(report);
        if (outDir != null) {
          Files.createDirectories(outDir);
          Files.writeString(
              outDir.resolve("writecost-writeback.md"), report, StandardCharsets.UTF_8);
        }
        return report.contains("MISS ") ? 1 : 0;
      }
      StringBuilder md = new StringBuilder();
      md.append(
          String.format(
              Locale.ROOT,
              "Group commit: %,d writes of %,d bytes by %d writers (closed loops) over %d keys;"
                  + " Table 1 profile, Configuration 1, PAPER, f = 1, virtual time; dollars at"
                  + " S3 Standard list prices (an assumption; requests and egress).%n%n",
              writes,
              valueBytes,
              writers,
              keys));
      md.append(
          "| variant | writes | failed | requests / write | $ / write | x DepSky-A $ |"
              + " p50 ms | p99 ms | run s |\n");
      md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
      List<Result> results = new ArrayList<>();
      for (Variant v : Variant.values()) {
        results.add(groupRun(v, writes, writers, keys, valueBytes, seed));
      }
      WriteBackRun wb =
          writeBackRun(
              writes,
              writers,
              keys,
              valueBytes,
              seed,
              journalBase,
              fsyncs,
              singleWrites,
              true,
              warmup,
              jitWarmup,
              latencyWrites);
      Result back = wb.result();
      results.add(back);
      Result depsky = results.get(Variant.DEPSKY_A.ordinal());
      for (Result r : results) {
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %d | %.2f | %.3g | %.3f | %s | %s | %.0f |%n",
                r.label(),
                r.writes(),
                r.failures(),
                r.requestsPerWrite(),
                r.dollarsPerWrite(),
                r.dollarsPerWrite() / depsky.dollarsPerWrite(),
                ms(r.percentile(0.5)),
                ms(r.percentile(0.99)),
                r.elapsed().toMillis() / 1000.0));
      }
      md.append("\nRequests per write by cloud (puts / gets):\n\n| variant |");
      for (String c : depsky.stats().keySet()) {
        md.append(' ').append(c).append(" |");
      }
      md.append("\n| --- |");
      depsky.stats().keySet().forEach(c -> md.append(" ---: |"));
      md.append('\n');
      for (Result r : results) {
        md.append("| ").append(r.label()).append(" |");
        for (CloudStats s : r.stats().values()) {
          md.append(
              String.format(
                  Locale.ROOT,
                  " %.2f / %.2f |",
                  (double) s.puts() / r.writes(),
                  (double) s.gets() / r.writes()));
        }
        md.append('\n');
      }
      Result plain = results.get(Variant.WRITE_THROUGH.ordinal());
      Result group = results.get(Variant.GROUP_COMMIT.ordinal());
      StringBuilder targets = new StringBuilder();
      double fewer =
          group.requestsPerWrite() == 0 ? 0 : plain.requestsPerWrite() / group.requestsPerWrite();
      targets.append(
          target(
              fewer >= 5 && group.failures() == 0,
              String.format(
                  Locale.ROOT,
                  "cloud requests per 1 KB write, %d writers over %d keys: write-through with"
                      + " group commit %.2f vs write-through %.2f, %.1f x fewer (target >= 5 x, as"
                      + " for write-back below)",
                  writers,
                  keys,
                  group.requestsPerWrite(),
                  plain.requestsPerWrite(),
                  fewer)));
      double ratio = group.dollarsPerWrite() / depsky.dollarsPerWrite();
      targets.append(
          target(
              ratio <= 0.2 && group.failures() == 0,
              String.format(
                  Locale.ROOT,
                  "dollars per write: write-through with group commit $%.3g vs DepSky-A $%.3g,"
                      + " %.3f x (target <= 0.2 x; write-through alone %.3f x)",
                  group.dollarsPerWrite(),
                  depsky.dollarsPerWrite(),
                  ratio,
                  plain.dollarsPerWrite() / depsky.dollarsPerWrite())));
      // The first target: write-back with group commit against write-through, same run.
      double backFewer =
          back.requestsPerWrite() == 0 ? 0 : plain.requestsPerWrite() / back.requestsPerWrite();
      targets.append(
          target(
              backFewer >= 5 && back.failures() == 0,
              String.format(
                  Locale.ROOT,
                  "cloud requests per 1 KB write, %d writers over %d keys: write-back with group"
                      + " commit %.2f vs write-through %.2f, %.1f x fewer (target >= 5 x)",
                  writers,
                  keys,
                  back.requestsPerWrite(),
                  plain.requestsPerWrite(),
                  backFewer)));
      double backRatio = back.dollarsPerWrite() / depsky.dollarsPerWrite();
      targets.append(
          target(
              backRatio <= 0.2 && back.failures() == 0,
              String.format(
                  Locale.ROOT,
                  "dollars per write: write-back with group commit $%.3g vs DepSky-A $%.3g, %.3f x"
                      + " (target <= 0.2 x)",
                  back.dollarsPerWrite(),
                  depsky.dollarsPerWrite(),
                  backRatio)));
      md.append('\n').append(ackReport(wb, targets));
      md.append('\n').append(costObjective(costWrites, valueBytes, seed, targets));
      md.append("\n").append(targets);
      String report = md.toString();
      out.print(report);
      if (outDir != null) {
        Files.createDirectories(outDir);
        Files.writeString(outDir.resolve("writecost.md"), report, StandardCharsets.UTF_8);
      }
      return report.contains("MISS ") ? 1 : 0;
    } catch (IOException | ExecutionException | RuntimeException e) {
      err.println("WriteCostBench failed: " + e);
      e.printStackTrace(err);
      return 1;
    }
  }

  /**
   * The write-back acknowledgement's three measurements against the fsync baseline (a table, each
   * percentile against the baseline's same percentile) and the target line, appended to
   * {@code targets}: its verdict is the open loop's (half the closed loop's throughput offered),
   * and the line names that load and gives the other two beside it, the closed loop with its
   * Little's law reading.
   */
  static String ackReport(WriteBackRun wb, StringBuilder targets) {
    double[] f = wb.fsyncMs();
    double f50 = percentile(f, 0.5);
    double f99 = percentile(f, 0.99);
    double f999 = percentile(f, 0.999);
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "Write-back acknowledgement (real time: the journal's fsyncs are real, the WAN's round"
                + " trips real waits on the system scheduler, the uploads running in the"
                + " background; each writer a thread of its own, blocking on its acknowledgement;"
                + " a fresh client and journal per row). Journal in %s (file system %s); %,d fsyncs"
                + " of a 1 KB append there, each force(true): p50 %.3f ms, p99 %.3f ms, p99.9"
                + " %.3f ms. Each percentile's ratio is to the fsync's same percentile.%n%n"
                + "%s%n%n%s%n%n"
                + "| load | writers | offered / s | acknowledged / s | writes | mean ms | p50 ms |"
                + " p99 ms | p99.9 ms | p50 x fsync p50 | p99 x fsync p99 | p99 x fsync p50 |"
                + " GCs (ms) in run | JIT ms in run |%n"
                + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
                + " ---: | ---: | ---: |%n",
            wb.journal().getParent(),
            wb.fs(),
            f.length,
            f50,
            f99,
            f999,
            warmupLine(wb.warmup()),
            collectorLine()));
    for (AckRun a : List.of(wb.single(), wb.open(), wb.closed())) {
      String load =
          a.writers() == 1
              ? "unloaded: one writer, closed loop"
              : a.offeredPerS() > 0
                  ? "half load: open loop, Poisson arrivals at half the closed loop's throughput"
                  : "saturated: closed loop (next write when the last was acknowledged)";
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %,.0f | %,d%s | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f |"
                  + " %d (%d) | %s |%n",
              load,
              a.writers(),
              a.offeredPerS() > 0 ? String.format(Locale.ROOT, "%,.0f", a.offeredPerS()) : "-",
              a.throughput(),
              a.ackMs().length,
              a.failures() > 0 ? " (" + a.failures() + " failed)" : "",
              a.mean(),
              a.p(0.5),
              a.p(0.99),
              a.p(0.999),
              ratio(a.p(0.5), f50),
              ratio(a.p(0.99), f99),
              ratio(a.p(0.99), f50),
              a.gcs(),
              a.gcMillis(),
              jit(a.jitMillis())));
    }
    AckRun c = wb.closed();
    AckRun o = wb.open();
    AckRun s = wb.single();
    md.append(
        String.format(
            Locale.ROOT,
            "%nLittle's law for the closed loop: %d writers always in the system, so its mean"
                + " latency is %d / throughput = %d / %,.0f per s = %.2f ms (measured mean %.2f"
                + " ms): it measures how many acknowledgements a second the machine completes"
                + " (CPU, with the uploads' signing and the WAN emulator in the same process), not"
                + " the latency of one acknowledgement. The open loop offers half that rate;%s"
                + " a write taken more than 1 ms after it fell due is timed from when it fell"
                + " due.%n",
            c.writers(),
            c.writers(),
            c.writers(),
            c.throughput(),
            c.throughput() == 0 ? 0 : 1000.0 * c.writers() / c.throughput(),
            c.mean(),
            o.late() > 0
                ? String.format(
                    Locale.ROOT, " %d writes fell due when every writer thread was busy;", o.late())
                : ""));
    if (wb.heapHeldBytes() != 0) {
      int n = c.ackMs().length - c.failures();
      md.append(
          String.format(
              Locale.ROOT,
              "%nHeap held by the closed loop's %,d acknowledged writes of %,d bytes, nearly all"
                  + " still waiting for the clouds (live heap after full collections, before the"
                  + " loop and after it, the client open, less what the in-memory clouds stored"
                  + " meanwhile): %s The values themselves are read back from the journal when"
                  + " their upload takes them; this is each pending write's bookkeeping and the"
                  + " rounds in flight.%n",
              n,
              wb.valueBytes(),
              wb.heapHeldBytes() > 0
                  ? String.format(
                      Locale.ROOT,
                      "%.1f MiB, %,d bytes a write.",
                      wb.heapHeldBytes() / (1024.0 * 1024),
                      n == 0 ? 0 : wb.heapHeldBytes() / n)
                  : String.format(
                      Locale.ROOT,
                      "not resolved (%.1f MiB: less than this measurement resolves on this"
                          + " collector, e.g. a short row).",
                      wb.heapHeldBytes() / (1024.0 * 1024))));
    }
    double drain = wb.drainPerS();
    boolean burst = drain > 0 && o.offeredPerS() > drain;
    if (wb.result() != null) {
      Result r = wb.result();
      md.append(
          String.format(
              Locale.ROOT,
              "%nOn the clouds: %.1f writes/s (%,d writes / %.1f s from the first write until"
                  + " flush() completed, the counts run of --writes writes).%s%n",
              drain,
              r.writes(),
              r.elapsed().toNanos() / 1e9,
              burst
                  ? String.format(
                      Locale.ROOT,
                      " The half-load row offers %,.0f writes/s, %,.0f x that: a burst the journal"
                          + " absorbs (its %,d writes wait there for their upload), not a load the"
                          + " client can sustain; the acknowledgement's latency is measured under"
                          + " it, the uploads' backlog growing throughout.",
                      o.offeredPerS(),
                      o.offeredPerS() / drain,
                      o.ackMs().length)
                  : ""));
    } else {
      md.append(
          String.format(
              Locale.ROOT,
              "%nThe rate the uploads move writes to the clouds (the sustained drain) is measured"
                  + " by the full run only (its counts run's flush()); the rows here leave their"
                  + " backlog in the journal, so an offered rate above that drain is a burst the"
                  + " journal absorbs.%n"));
    }
    int failures = c.failures() + o.failures() + s.failures();
    targets.append(
        target(
            ratio(o.p(0.99), f50) <= 3 && failures == 0,
            String.format(
                    Locale.ROOT,
                    "write-back acknowledgement p99 within 3 x of one fsync of the journal disk (median"
                        + " %.3f ms of %d 1 KB appends + force, same directory, same run), at half"
                        + " load (open loop, Poisson, %,.0f writes/s offered by %d writer threads ="
                        + " half the closed loop's throughput) on %s: p99 %.3f ms = %.1f x; unloaded"
                        + " (one"
                        + " writer): p99 %.3f ms = %.1f x; saturated (closed loop, %d writers): p99"
                        + " %.2f ms = %.1f x, a capacity figure: %,.0f acknowledgements/s, Little's"
                        + " law %d / %,.0f per s = %.2f ms mean (measured %.2f ms)",
                    f50,
                    f.length,
                    o.offeredPerS(),
                    o.writers(),
                    collector(),
                    o.p(0.99),
                    ratio(o.p(0.99), f50),
                    s.p(0.99),
                    ratio(s.p(0.99), f50),
                    c.writers(),
                    c.p(0.99),
                    ratio(c.p(0.99), f50),
                    c.throughput(),
                    c.writers(),
                    c.throughput(),
                    c.throughput() == 0 ? 0 : 1000.0 * c.writers() / c.throughput(),
                    c.mean())
                + (burst
                    ? String.format(
                        Locale.ROOT,
                        "; the half-load rate is a burst above the sustained drain to the clouds"
                            + " (%.1f writes/s), absorbed by the journal, not a load the client"
                            + " sustains",
                        drain)
                    : "")));
    return md.toString();
  }

  /** The warm-up's sentence: what ran, how long, the JIT's time and the GCs in it. */
  static String warmupLine(Warmup w) {
    if (w.runs() == 0) {
      return "No warm-up (--warmup 0, --jit-warmup 0): the rows run on a cold JVM.";
    }
    return String.format(
        Locale.ROOT,
        "JIT warm-up, not measured: %d loop%s of the same writers, %,d writes in all (%d closed;"
            + " %d open, each at half the throughput of the closed loop before it), each on a fresh"
            + " client and journal, over %.1f s; JIT compilation in it %s ms, %d GCs (%d ms). The"
            + " JIT ms column is the compilation time during each row: near 0 is steady state.",
        w.runs(),
        w.runs() == 1 ? "" : "s",
        w.writes(),
        w.runs() - w.openRuns(),
        w.openRuns(),
        w.seconds(),
        jit(w.jitMillis()),
        w.gcs(),
        w.gcMillis());
  }

  private static String jit(long ms) {
    return ms < 0 ? "n/a" : Long.toString(ms);
  }

  private static double ratio(double a, double b) {
    return b == 0 ? Double.POSITIVE_INFINITY : a / b;
  }

  /** Milliseconds: whole above 100, else two decimals (a write-back acknowledgement). */
  private static String ms(double ms) {
    return String.format(Locale.ROOT, ms >= 100 ? "%.0f" : "%.2f", ms);
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

  static final String USAGE =
      "usage: WriteCostBench [--quick] [--writes N] [--latency-writes N] [--writers N] [--keys N]"
          + " [--value-bytes N] [--cost-writes N] [--seed S] [--out DIR] [--journal DIR]"
          + " [--fsyncs N] [--single-writes N] [--warmup N] [--jit-warmup SECONDS]"
          + " [--only write-back]";

  /** The whole number after {@code option}; a clear error naming the option if it is not one. */
  private static int intValue(String[] args, int i, String option) {
    return (int) wholeNumber(args, i, option, Integer.MIN_VALUE, Integer.MAX_VALUE);
  }

  /** As {@link #intValue}, for a {@code long}. */
  private static long longValue(String[] args, int i, String option) {
    return wholeNumber(args, i, option, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  private static long wholeNumber(String[] args, int i, String option, long min, long max) {
    String v = value(args, i, option);
    try {
      long n = Long.parseLong(v.trim());
      if (n < min || n > max) {
        throw new NumberFormatException(v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " takes a whole number, not '" + v + "'", e);
    }
  }

  /** Seconds after {@code option}: a finite number >= 0, else an error naming the option. */
  private static double secondsValue(String[] args, int i, String option) {
    String v = value(args, i, option);
    double d;
    try {
      d = Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " takes seconds (e.g. 0.5), not '" + v + "'", e);
    }
    if (!(d >= 0) || Double.isInfinite(d)) {
      throw new IllegalArgumentException(option + " takes seconds >= 0, not '" + v + "'");
    }
    return d;
  }

  /** Empty if {@code value >= min}, else " OPTION must be >= MIN, was VALUE;". */
  private static String atLeast(int min, int value, String option) {
    return value >= min
        ? ""
        : String.format(Locale.ROOT, " %s must be >= %d, was %d;", option, min, value);
  }

  /**
   * The journal bytes one write of {@code valueBytes} takes, an upper estimate: its intent record
   * (type, id, time, key, value length and the value; {@link #keyBytes} for the key) and a frame's
   * header, as if alone in its frame, plus 512 bytes for the commit records of the writes uploaded
   * while a row runs (the drain is slow, so most writes have none during the row).
   */
  static long journalBytesPerWrite(int valueBytes) {
    return (long) valueBytes + 1 + 16 + 8 + 2 + KEY_BYTES + 4 + 12 + 512;
  }

  /** The longest key the bench writes ("thread/" and an int), in UTF-8 bytes. */
  private static final int KEY_BYTES = "thread/".length() + 11;

  /**
   * Empty if a row of {@code writes} writes fits the journal's default bound ({@link
   * io.rafestore.WriteBack#DEFAULT_MAX_ENTRIES} writes not yet on the clouds, {@link
   * io.rafestore.WriteBack#DEFAULT_MAX_BYTES} on disk) without counting on the uploads to free any
   * of it (they drain about 150 writes a second); else why not, naming {@code option}. A row that
   * filled the journal would measure writers waiting for space, not the acknowledgement.
   */
  static String journalBound(int writes, String option, int valueBytes) {
    int maxEntries = io.rafestore.WriteBack.DEFAULT_MAX_ENTRIES;
    long maxBytes = io.rafestore.WriteBack.DEFAULT_MAX_BYTES;
    if (writes > maxEntries) {
      return String.format(
          Locale.ROOT,
          " %s %,d exceeds the write-back journal's default bound of %,d writes not yet on the"
              + " clouds (WriteBack.DEFAULT_MAX_ENTRIES): a row would wait for a full journal;",
          option,
          writes,
          maxEntries);
    }
    long bytes = writes * journalBytesPerWrite(valueBytes);
    if (bytes > maxBytes) {
      return String.format(
          Locale.ROOT,
          " %s %,d writes of %,d bytes would take about %,d bytes of journal, above its default"
              + " bound of %,d bytes (WriteBack.DEFAULT_MAX_BYTES): a row would wait for a full"
              + " journal; lower %s or --value-bytes;",
          option,
          writes,
          valueBytes,
          bytes,
          maxBytes,
          option);
    }
    return "";
  }

  /**
   * The JIT's accumulated compilation time in ms ({@code CompilationMXBean}), or -1 where the JVM
   * has no JIT or does not monitor its time.
   */
  static long jitMillis() {
    java.lang.management.CompilationMXBean jit =
        java.lang.management.ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      return -1;
    }
    return jit.getTotalCompilationTime();
  }

  /** The JIT ms between two {@link #jitMillis} readings, -1 if unknown. */
  static long jitDelta(long before, long after) {
    return before < 0 || after < 0 ? -1 : after - before;
  }

  static byte[] bytes(long seed, int size) {
    byte[] b = new byte[size];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  /** Four in-memory clouds behind the Table 1 WAN on virtual time. */
  static final class Deployment {
    final VirtualScheduler scheduler;
    final io.rafestore.Scheduler timer;
    final List<WanEmulator.EmulatedCloud> clouds = new ArrayList<>();

    /** The in-memory clouds behind the WAN (what they store is on this JVM's heap too). */
    final List<MemoryCloud> stores = new ArrayList<>();

    Deployment(long seed) {
      this(seed, new VirtualScheduler());
    }

    /** On virtual time ({@code virtual}), or on real time if it is null (the system scheduler). */
    Deployment(long seed, VirtualScheduler virtual) {
      this.scheduler = virtual;
      this.timer = virtual != null ? virtual : io.rafestore.Scheduler.system();
      WanEmulator wan = WanEmulator.builder(timer).seed(seed).build();
      for (int i = 0; i < 4; i++) {
        MemoryCloud store = new MemoryCloud("p" + i);
        stores.add(store);
        clouds.add(
            wan.wrap(
                store,
                WanEmulator.Link.rtt(Duration.ofMillis(RTT_MS[i]))
                    .bandwidthBitsPerSecond(BITS_PER_S[i])
                    .jitter(0.05)));
      }
    }

    /** Bytes the in-memory clouds store. */
    long storedBytes() {
      long sum = 0;
      for (MemoryCloud m : stores) {
        sum += m.storedBytes();
      }
      return sum;
    }

    /** f = 1, PAPER, metadata-only cloud {@code metadataOnly}, callbacks on the timer thread. */
    RafeStore.Builder builder(int metadataOnly) {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .mode(ProtocolMode.PAPER)
              .executor(Runnable::run)
              .scheduler(timer)
              .closeDrivers(false)
              .writer("writer", WRITER);
      for (int i = 0; i < 4; i++) {
        b.cloud(
            clouds.get(i),
            i == metadataOnly ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA,
            Duration.ofMillis(RTT_MS[i]));
      }
      return b;
    }
  }

  /** Closed-loop writers on virtual time: each starts its next write when its last completed. */
  static final class Writers {
    final RafeStore store;
    final VirtualScheduler scheduler;
    final int total;

    /** The key of a writer's (first argument) n-th write of the run (second). */
    final java.util.function.BiFunction<Integer, Integer, String> keyOf;

    final int valueBytes;
    final long seed;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final List<Double> latencies = new ArrayList<>();
    final List<WriteReceipt> receipts = new ArrayList<>();
    int issued;
    int completed;
    int failures;
    int running;

    Writers(
        RafeStore store,
        VirtualScheduler scheduler,
        int total,
        java.util.function.BiFunction<Integer, Integer, String> keyOf,
        int valueBytes,
        long seed) {
      this.store = store;
      this.scheduler = scheduler;
      this.total = total;
      this.keyOf = keyOf;
      this.valueBytes = valueBytes;
      this.seed = seed;
    }

    void start(int writers) {
      running = writers;
      for (int w = 0; w < writers; w++) {
        next(w);
      }
    }

    private void next(int writer) {
      if (issued >= total) {
        if (--running == 0) {
          done.complete(null);
        }
        return;
      }
      int n = issued++;
      long start = scheduler.nanoTime();
      store
          .write(keyOf.apply(writer, n), bytes(seed * 1_000_003L + n, valueBytes))
          .whenComplete(
              (r, e) -> {
                completed++;
                if (e != null) {
                  failures++;
                } else {
                  latencies.add((scheduler.nanoTime() - start) / 1e6);
                  receipts.add(r);
                }
                next(writer);
              });
    }
  }

  /** One variant of the group-commit experiment on a fresh deployment. */
  static Result groupRun(Variant v, int writes, int writers, int keys, int valueBytes, long seed)
      throws ExecutionException {
    Deployment d = new Deployment(seed);
    try (RafeStore store = v.settings.apply(d.builder(3)).build()) {
      Writers w =
          new Writers(
              store, d.scheduler, writes, (i, n) -> "thread/" + (i % keys), valueBytes, seed);
      long start = d.scheduler.nanoTime();
      w.start(writers);
      d.scheduler.runUntilDone(w.done);
      Duration elapsed = Duration.ofNanos(d.scheduler.nanoTime() - start);
      // Idle: metadata puts lingering after their quorum and the packer's work have ended.
      d.scheduler.advance(Duration.ofSeconds(90));
      Map<String, CloudStats> stats = store.stats();
      long requests = 0;
      double dollars = 0;
      for (CloudStats s : stats.values()) {
        requests += s.requests();
        dollars += s.dollars();
      }
      return new Result(
          v.label,
          w.completed - w.failures,
          w.failures,
          requests,
          dollars,
          w.latencies.stream().mapToDouble(Double::doubleValue).toArray(),
          elapsed,
          stats);
    }
  }

  /**
   * One measurement of the write-back acknowledgement: {@code writers} writer threads, closed loops
   * ({@code offeredPerS} 0) or an open loop at {@code offeredPerS} writes a second (Poisson
   * arrivals); {@code seconds} from the first write issued to the last acknowledged; the garbage
   * collections and the JIT's compilation time ({@code jitMillis}, -1 if unknown) in that time.
   */
  record AckRun(
      String label,
      int writers,
      double offeredPerS,
      double[] ackMs,
      int failures,
      int late,
      double seconds,
      long gcs,
      long gcMillis,
      long jitMillis) {
    /** Acknowledgements a second over the run. */
    double throughput() {
      return seconds == 0 ? 0 : (ackMs.length - failures) / seconds;
    }

    double p(double q) {
      return percentile(ackMs, q);
    }

    double mean() {
      return Arrays.stream(ackMs).average().orElse(0);
    }
  }

  /**
   * What the write-back variant measured, besides the counts of {@link Result} ({@code result},
   * null without them): the warm-up, the three rows, the fsync baseline.
   */
  record WriteBackRun(
      Result result,
      Warmup warmup,
      AckRun closed,
      AckRun open,
      AckRun single,
      double[] fsyncMs,
      Path journal,
      String fs,
      long heapHeldBytes,
      int valueBytes) {
    double[] ackMs() {
      return closed.ackMs();
    }

    /**
     * The rate the client moved writes to the clouds in the counts run: its writes over the time
     * from its first write until {@code flush()} completed; 0 without counts.
     */
    double drainPerS() {
      return result == null || result.elapsed().isZero()
          ? 0
          : result.writes() / (result.elapsed().toNanos() / 1e9);
    }
  }

  /**
   * The unmeasured warm-up: {@code runs} loops ({@code openRuns} of them open) of {@code writes}
   * writes in all, over {@code seconds}, with the JIT's compilation time ({@code jitMillis}, -1 if
   * unknown) and the garbage collections in that time.
   */
  record Warmup(
      int runs,
      int openRuns,
      long writes,
      double seconds,
      long jitMillis,
      long gcs,
      long gcMillis) {}

  /** A write-back client on a fresh real-time deployment with its journal in {@code journal}. */
  static RafeStore writeBackStore(long seed, Path journal) {
    return writeBackStore(new Deployment(seed, null), journal);
  }

  /** As above, on deployment {@code d} (real time). */
  static RafeStore writeBackStore(Deployment d, Path journal) {
    RafeStore.Builder b = d.builder(3);
    // null: the client's default executor (a pool at least two wide), as a user's client gets.
    // Not ForkJoinPool.commonPool(): on two CPUs its parallelism is 1, so CompletableFuture's async
    // steps start a thread per task instead, about 2 per write, on the journal's writer thread
    // too (measured: 2,208 threads for 1,000 writes, most of that thread's time).
    b.executor(null)
        .groupCommit(true)
        .writeBack(io.rafestore.WriteBack.journal(journal.resolve("journal")));
    return b.build();
  }

  /**
   * Runs {@code writes} write-back writes of {@code valueBytes} from {@code writers} threads
   * (writer w writes key {@code thread/(w mod keys)}), each blocking on its acknowledgement (as
   * application threads would; callbacks chained on the acknowledgement would run on the journal's
   * acknowledger thread and not be concurrent). Closed loop if {@code offeredPerS} is 0 (a thread's
   * next write when its last was acknowledged); else an open loop: write n is due at the n-th
   * arrival of a Poisson process of that rate, taken by the next free thread, which waits until it
   * is due and issues it; its latency runs from the issue (the park's overshoot is the bench's, not
   * the journal's) or, if the thread took it more than 1 ms after it fell due (every thread busy),
   * from when it fell due: the wait for a free thread is counted, not hidden.
   */
  static AckRun ackRun(
      String label,
      RafeStore store,
      int writes,
      int writers,
      int keys,
      int valueBytes,
      long seed,
      double offeredPerS) {
    double[] ack = new double[writes];
    long[] due = new long[writes];
    if (offeredPerS > 0) {
      SplittableRandom arrivals = new SplittableRandom(seed ^ 0x5DEECE66DL);
      double t = 0;
      for (int n = 0; n < writes; n++) {
        t += -Math.log(1 - arrivals.nextDouble()) / offeredPerS;
        due[n] = (long) (t * 1e9);
      }
    }
    java.util.concurrent.atomic.AtomicInteger issued =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger failed =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger late =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong lastAck = new java.util.concurrent.atomic.AtomicLong();
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime() + 20_000_000L;
    for (int w = 0; w < writers; w++) {
      String key = "thread/" + (w % keys);
      Thread t =
          new Thread(
              () -> {
                int n;
                while ((n = issued.getAndIncrement()) < writes) {
                  byte[] value = bytes(seed * 1_000_003L + n, valueBytes);
                  long from;
                  if (offeredPerS > 0) {
                    long at = start + due[n];
                    long now = System.nanoTime();
                    if (now > at + 1_000_000L) {
                      // Every thread was busy when it fell due: the wait is part of its latency.
                      late.incrementAndGet();
                      from = at;
                    } else {
                      long wait;
                      while ((wait = at - System.nanoTime()) > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                      }
                      // Timed out of the park: its overshoot is the bench's, not the journal's.
                      from = System.nanoTime();
                    }
                  } else {
                    from = System.nanoTime();
                  }
                  try {
                    // A writer that waits for its acknowledgement: the blocking API, whose
                    // calling thread leads the journal's group commit.
                    store.blocking().writeBack(key, value);
                  } catch (java.io.InterruptedIOException e) {
                    Thread.currentThread().interrupt();
                    return;
                  } catch (io.rafestore.RafeStoreException | RuntimeException e) {
                    failed.incrementAndGet();
                  }
                  long end = System.nanoTime();
                  ack[n] = (end - from) / 1e6;
                  lastAck.accumulateAndGet(end, Math::max);
                }
              },
              "writecost-writer-" + w);
      t.setDaemon(true);
      threads.add(t);
    }
    long wait;
    while ((wait = start - System.nanoTime()) > 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(wait);
    }
    long[] gc0 = gcTotals();
    long jit0 = jitMillis();
    threads.forEach(Thread::start);
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
    for (Thread t : threads) {
      try {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      if (t.isAlive()) {
        throw new IllegalStateException(label + ": the writers did not finish in 10 minutes");
      }
    }
    double seconds = (lastAck.get() - start) / 1e9;
    long[] gc1 = gcTotals();
    long jit1 = jitMillis();
    return new AckRun(
        label,
        writers,
        offeredPerS,
        ack,
        failed.get(),
        late.get(),
        seconds,
        gc1[0] - gc0[0],
        gc1[1] - gc0[1],
        jitDelta(jit0, jit1));
  }

  /**
   * The JVM's garbage collections so far and their accumulated time in ms (every collector): the
   * pauses stop the journal's threads and the writers alike, so a run's tail is read beside them.
   */
  static long[] gcTotals() {
    List<java.lang.management.GarbageCollectorMXBean> beans =
        java.lang.management.ManagementFactory.getGarbageCollectorMXBeans();
    List<String> names = gcBeanNames();
    long count = 0;
    long ms = 0;
    for (java.lang.management.GarbageCollectorMXBean b : beans) {
      if (countsAsGc(b.getName(), names)) {
        count += Math.max(0, b.getCollectionCount());
        ms += Math.max(0, b.getCollectionTime());
      }
    }
    return new long[] {count, ms};
  }

  /**
   * Whether the bean {@code name}, one of the JVM's GC beans {@code all}, is counted in the GCs
   * columns: where a pause bean exists (a name containing "Pauses": ZGC's "ZGC Pauses" and
   * Shenandoah's "Shenandoah Pauses" on Java 17, beside their concurrent "Cycles", which do not
   * stop the threads), only it; else every bean (G1's young and old generations, say), as each of
   * their collections is a pause.
   */
  static boolean countsAsGc(String name, List<String> all) {
    return all.stream().noneMatch(n -> n.contains("Pauses")) || name.contains("Pauses");
  }

  /** This JVM's garbage collector, named from its GC beans ({@link #collectorName}). */
  static String collector() {
    return collectorName(gcBeanNames());
  }

  /** The names of this JVM's GC beans. */
  static List<String> gcBeanNames() {
    return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
        .map(b -> b.getName())
        .toList();
  }

  /**
   * The collector the GC beans {@code names} belong to: "G1" ("G1 Young Generation", "G1 Old
   * Generation"), "ZGC" ("ZGC Cycles", "ZGC Pauses"; "ZGC" before Java 17), "Shenandoah"; any other
   * the beans' names joined with " + " ("PS Scavenge + PS MarkSweep"), "none" without beans.
   */
  static String collectorName(List<String> names) {
    for (String c : List.of("G1", "ZGC", "Shenandoah")) {
      if (!names.isEmpty() && names.stream().allMatch(n -> n.equals(c) || n.startsWith(c + " "))) {
        return c;
      }
    }
    return names.isEmpty() ? "none" : String.join(" + ", names);
  }

  /** The sentence naming the collector and what the GCs reported count (its GC beans). */
  static String collectorLine() {
    List<String> names = gcBeanNames();
    return collectorLine(collectorName(names), names);
  }

  static String collectorLine(String collector, List<String> names) {
    List<String> counted = names.stream().filter(n -> countsAsGc(n, names)).toList();
    List<String> left = names.stream().filter(n -> !countsAsGc(n, names)).toList();
    return String.format(
        Locale.ROOT,
        "Collector: %s (GC beans: %s). The GCs here (the warm-up's and the table's column) count"
            + " %s and their time in ms as the JVM reports it%s.",
        collector,
        names.isEmpty() ? "none" : String.join(", ", names),
        counted.isEmpty()
            ? "nothing (no GC bean)"
            : left.isEmpty()
                ? "the collections of " + String.join(" and ", counted) + " (each a pause)"
                : "the pauses (" + String.join(", ", counted) + ")",
        left.isEmpty()
            ? ""
            : ", not the concurrent work ("
                + String.join(", ", left)
                + "), which runs beside the threads without stopping them");
  }

  /**
   * Write-back with group commit on fresh deployments, on <b>real time</b>: the journal's fsyncs
   * are real, so the WAN runs on the system scheduler (same Table 1 profile) and the client on its
   * default executor. After {@code fsyncs} fsyncs of a 1 KB append in the journal's directory (the
   * disk's baseline) and the warm-up ({@link #warmUp}: {@code warmup} writes, then loops of {@code
   * latencyWrites} writes, closed and open by turns, for {@code jitWarmup} seconds), each on a
   * fresh deployment and journal, the uploads running in the background as they come: (0) if {@code
   * counts}, the counts run: {@code writes} writes by {@code writers} threads over {@code keys}
   * keys as in {@link #groupRun}, each starting its next write when the last was acknowledged
   * (fsynced in the journal), then {@code flush()}, and the client left until its request count has
   * not moved for 3 s (lingering puts, packing): its requests and dollars are the variant's, its
   * time until {@code flush()} completed the drain rate; then three measurements of the
   * acknowledgement: (1) the closed loop, {@code latencyWrites} writes, the same threads and keys;
   * (2) an open loop of {@code latencyWrites} writes offered half the closed loop's throughput,
   * Poisson arrivals, the same threads and keys; (3) one writer thread, closed loop, {@code
   * singleWrites} writes.
   */
  static WriteBackRun writeBackRun(
      int writes,
      int writers,
      int keys,
      int valueBytes,
      long seed,
      Path journalBase,
      int fsyncs,
      int singleWrites,
      boolean counts,
      int warmup,
      double jitWarmup,
      int latencyWrites)
      throws IOException, ExecutionException {
    Files.createDirectories(journalBase);
    Path journal = Files.createTempDirectory(journalBase, "writecost-journal-");
    String fs = Files.getFileStore(journal).type();
    double[] fsync = fsyncBaseline(journal, fsyncs);
    try {
      return writeBackRuns(
          writes,
          writers,
          keys,
          valueBytes,
          seed,
          journal,
          fsync,
          singleWrites,
          fs,
          counts,
          warmup,
          jitWarmup,
          latencyWrites);
    } finally {
      deleteTree(journal);
    }
  }

  private static WriteBackRun writeBackRuns(
      int writes,
      int writers,
      int keys,
      int valueBytes,
      long seed,
      Path journal,
      double[] fsync,
      int singleWrites,
      String fs,
      boolean counts,
      int warmup,
      double jitWarmup,
      int latencyWrites)
      throws IOException, ExecutionException {
    Warmup warm =
        warmUp(latencyWrites, writers, keys, valueBytes, seed, journal, warmup, jitWarmup);
    Result r = null;
    if (counts) {
      // The request and dollar figures: --writes writes, then flush() and the client left
      // idle. Its own client, before the latency rows, so that its long drain (about 150 writes
      // a second reach the clouds) is over before they start.
      try (RafeStore store = writeBackStore(seed, journal.resolve("counts"))) {
        long start = System.nanoTime();
        AckRun run = ackRun("counts", store, writes, writers, keys, valueBytes, seed, 0);
        r = counts(store, start, writes, run);
      }
    }
    AckRun closed;
    long heapHeld;
    Deployment closedClouds = new Deployment(seed + 1, null);
    try (RafeStore store = writeBackStore(closedClouds, journal.resolve("closed"))) {
      long stored = closedClouds.storedBytes();
      long before = heapAfterCollection();
      closed = ackRun("closed loop", store, latencyWrites, writers, keys, valueBytes, seed + 1, 0);
      // With the client open, its acknowledged writes nearly all still waiting for the clouds
      // (about 150 a second reach them): what the heap holds for a backlog, less what the
      // in-memory clouds took meanwhile (on this heap, but not the client's).
      heapHeld = heapAfterCollection() - before - (closedClouds.storedBytes() - stored);
      // Closed here, as below: what is not on the clouds yet stays in the (deleted) journal.
    }
    AckRun open;
    try (RafeStore store = writeBackStore(seed + 2, journal.resolve("open"))) {
      open =
          ackRun(
              "open loop",
              store,
              latencyWrites,
              writers,
              keys,
              valueBytes,
              seed + 2,
              Math.max(1, closed.throughput() / 2));
    }
    AckRun single;
    try (RafeStore store = writeBackStore(seed + 3, journal.resolve("single"))) {
      single = ackRun("one writer", store, singleWrites, 1, 1, valueBytes, seed + 3, 0);
    }
    return new WriteBackRun(
        r, warm, closed, open, single, fsync, journal, fs, heapHeld, valueBytes);
  }

  /**
   * Bytes of heap in use after full collections ({@code System.gc()}, a full collection with the
   * JVM's default collectors, three times with a pause between): what is live.
   */
  static long heapAfterCollection() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /**
   * The unmeasured warm-up before the rows: a cold JVM compiles the write path while it runs, and a
   * row measured then carries the JIT's CPU (measured: its compiler threads took 25-40 % of two
   * CPUs during every row of a run without this). First a closed loop of {@code warmup} writes (if
   * any), then loops of {@code writes} writes (the rows' length) until {@code jitWarmup} seconds
   * have passed since the warm-up began, closed and open by turns (each open loop offered half the
   * throughput of the closed loop of {@code writes} before it, Poisson arrivals, as the half-load
   * row: closed loops alone left that row's code to compile during it, 1.1 s of JIT time in a 1.5 s
   * row after a 20 s closed-loop warm-up in one run); each on a fresh client and journal directory
   * (deleted after it), the same writers, keys and value size as the rows, the client closed after
   * it.
   */
  static Warmup warmUp(
      int writes,
      int writers,
      int keys,
      int valueBytes,
      long seed,
      Path journal,
      int warmup,
      double jitWarmup)
      throws IOException {
    long t0 = System.nanoTime();
    long jit0 = jitMillis();
    long[] gc0 = gcTotals();
    long budget = (long) (jitWarmup * 1e9);
    int runs = 0;
    int openRuns = 0;
    long written = 0;
    double lastClosed = 0;
    while ((runs == 0 && warmup > 0) || System.nanoTime() - t0 < budget) {
      boolean first = runs == 0 && warmup > 0;
      int n = first ? warmup : writes;
      // Open after each closed loop (its throughput known), closed otherwise.
      double offered = lastClosed > 0 ? Math.max(1, lastClosed / 2) : 0;
      Path dir = journal.resolve("warmup-" + runs);
      try (RafeStore store = writeBackStore(seed + 4 + runs, dir)) {
        AckRun a = ackRun("warm-up", store, n, writers, keys, valueBytes, seed + 4 + runs, offered);
        // The next loop is open at half this one's rate if this one was a closed loop of the rows'
        // length (not the shorter, colder --warmup loop, whose rate would set a slow open loop).
        lastClosed = offered > 0 || first ? 0 : a.throughput();
      }
      deleteTree(dir);
      runs++;
      openRuns += offered > 0 ? 1 : 0;
      written += n;
    }
    long[] gc1 = gcTotals();
    return new Warmup(
        runs,
        openRuns,
        written,
        (System.nanoTime() - t0) / 1e9,
        jitDelta(jit0, jitMillis()),
        gc1[0] - gc0[0],
        gc1[1] - gc0[1]);
  }

  /**
   * After the closed loop: {@code flush()}, then the client left until its request count has not
   * moved for 3 s (lingering metadata puts, packing); the variant's requests and dollars.
   */
  private static Result counts(RafeStore store, long start, int writes, AckRun closed)
      throws ExecutionException {
    try {
      store.flush().get(30, java.util.concurrent.TimeUnit.MINUTES);
      Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
      // Idle: lingering metadata puts and the packer's work (its commit waits 1 s) have ended
      // once the request count stays put for 3 s.
      long last = -1;
      int still = 0;
      while (still < 6) {
        Thread.sleep(500);
        long now = 0;
        for (CloudStats s : store.stats().values()) {
          now += s.requests();
        }
        still = now == last ? still + 1 : 0;
        last = now;
      }
      Map<String, CloudStats> stats = store.stats();
      long requests = 0;
      double dollars = 0;
      for (CloudStats s : stats.values()) {
        requests += s.requests();
        dollars += s.dollars();
      }
      return new Result(
          "write-back + group commit",
          writes - closed.failures(),
          closed.failures(),
          requests,
          dollars,
          closed.ackMs(),
          elapsed,
          stats);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("write-back run did not finish: " + e, e);
    }
  }

  /**
   * {@code count} times: append 1 KB to a file in {@code dir} and {@code FileChannel.force(true)}
   * it, as the journal forces a frame; the milliseconds of each write + force.
   */
  static double[] fsyncBaseline(Path dir, int count) throws IOException {
    Path probe = dir.resolve("fsync-probe");
    double[] ms = new double[count];
    byte[] record = bytes(7, 1024);
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(
            probe,
            java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE)) {
      for (int i = 0; i < count; i++) {
        long t0 = System.nanoTime();
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(record);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
        ms[i] = (System.nanoTime() - t0) / 1e6;
      }
    } finally {
      Files.deleteIfExists(probe);
    }
    return ms;
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  static double percentile(double[] values, double p) {
    double[] s = values.clone();
    Arrays.sort(s);
    if (s.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(p * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, i))];
  }

  /**
   * The cost objective against the latency objective with p3 ten times cheaper: where the values go
   * and what the bill is. Appends its target lines to {@code targets}.
   */
  static String costObjective(int writes, int valueBytes, long seed, StringBuilder targets)
      throws ExecutionException {
    Pricing cheap = Pricing.DEFAULT.times(0.1);
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "Cost objective: %,d writes of %,d bytes by 16 writers to keys of their own;"
                + " Configuration 2 (p0 metadata only), FAST, layout auto, values as data objects,"
                + " p3 priced at 0.1 x S3 list prices, the others at 1 x.%n%n"
                + "| objective | values with a copy on p3 | data clouds used | bill / 1,000 writes"
                + " (requests + egress + a month of data) | p50 ms | p99 ms |%n"
                + "| --- | ---: | --- | ---: | ---: | ---: |%n",
            writes,
            valueBytes));
    double[] bill = new double[2];
    double[] onP3 = new double[2];
    Objective[] objectives = {Objective.latency(), Objective.cost()};
    for (int o = 0; o < 2; o++) {
      Deployment d = new Deployment(seed + 1);
      try (RafeStore store =
          d.builder(0)
              .mode(ProtocolMode.FAST)
              .inlineThreshold(0)
              .layout(Layout.AUTO)
              .objective(objectives[o])
              .pricing("p3", cheap)
              .build()) {
        // Keys of their own: each write a new key, so every write places a new value.
        Writers keyed =
            new Writers(store, d.scheduler, writes, (i, n) -> "c/" + n, valueBytes, seed);
        keyed.start(16);
        d.scheduler.runUntilDone(keyed.done);
        d.scheduler.advance(Duration.ofSeconds(90));
        double dollars = 0;
        for (CloudStats s : store.stats().values()) {
          dollars += s.dollars();
        }
        long withP3 = 0;
        java.util.Map<String, Long> used = new java.util.TreeMap<>();
        for (WriteReceipt r : keyed.receipts) {
          List<String> holders = r.info().dataClouds();
          if (holders.contains("p3")) {
            withP3++;
          }
          for (String h : holders) {
            used.merge(h, 1L, Long::sum);
            Pricing p = h.equals("p3") ? cheap : Pricing.DEFAULT;
            dollars += p.storage(r.info().size(), 1);
          }
        }
        int ok = keyed.receipts.size();
        bill[o] = ok == 0 ? 0 : dollars / ok * 1000;
        onP3[o] = ok == 0 ? 0 : (double) withP3 / ok;
        double[] lat = keyed.latencies.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(lat);
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %.0f %% | %s | $%.5f | %.0f | %.0f |%n",
                o == 0 ? "latency" : "cost",
                100 * onP3[o],
                used,
                bill[o],
                lat.length == 0 ? 0 : lat[lat.length / 2],
                lat.length == 0 ? 0 : lat[Math.max(0, (int) Math.ceil(0.99 * lat.length) - 1)]));
        if (keyed.failures > 0) {
          md.append("(").append(keyed.failures).append(" writes failed)\n");
        }
      }
    }
    targets.append(
        target(
            onP3[1] >= 0.9 && onP3[0] <= 0.1 && bill[1] < bill[0],
            String.format(
                Locale.ROOT,
                "one data cloud 10 x cheaper, Condition 1 holding either way: the cost objective"
                    + " puts %.0f %% of values on it and the bill drops to %.2f x the latency"
                    + " objective's, which puts %.0f %% there",
                100 * onP3[1],
                bill[0] == 0 ? 0 : bill[1] / bill[0],
                100 * onP3[0])));
    return md.toString();
  }
}
