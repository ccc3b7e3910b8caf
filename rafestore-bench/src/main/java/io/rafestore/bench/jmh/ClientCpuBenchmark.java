package io.rafestore.bench.jmh;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.bench.support.RetainNewestCloud;
import io.rafestore.clouds.VirtualScheduler;
import java.io.IOException;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The client's CPU time per operation: a RafeStore client (f = 1) over four in-memory clouds with
 * zero latency, every callback and every piece of CPU work on the benchmark thread ({@code
 * executor(Runnable::run)}), and its timers on a {@link VirtualScheduler} that the benchmark thread
 * runs until the operation completes (a write's readM may wait a few predicted microseconds for its
 * uploads: on a real timer that wait would be counted as time and its work done on the timer's
 * thread). So the average time of an operation is the CPU it costs the client: hashing, signing,
 * verifying, encoding, copying, and for DepSky-CA encryption and erasure coding, plus the in-memory
 * clouds' own small share. One parameter per protocol mode, per value size (1 KB and 1 MB) and per
 * signer.
 *
 * <ul>
 *   <li>{@code write}: a new version of one of many keys, round robin. Keys are written once in the
 *       iteration's set-up, so in FAST mode (one trusted writer that knows its own log) readM is
 *       skipped as it would be in a long-running application. Each key gets only a few versions per
 *       iteration ({@link Writing}): a log is re-signed whole on every write, so a long history
 *       costs more.
 *   <li>{@code readLatest}: the latest version of a key that does not change; the client verifies a
 *       log once and then recognises it by its hash, as it would for a key read often.
 *   <li>{@code readAfterChange}: the latest version of a key that another client changed just
 *       before (in the invocation's set-up, not timed), so the reader verifies a new signed log:
 *       the cost of reading a key that changes between reads. The reader trusts two writers, so
 *       readM asks each cloud for two logs, one of them absent. Each client's cache of verified
 *       logs is its own, so the reader cannot find the log its writer signed (until 2026-11-28 the
 *       cache was the JVM's, and this benchmark verified nothing: {@code VerifiedLogCacheTest}).
 * </ul>
 *
 * Scores are microseconds per operation. Add {@code -prof gc} for allocation per operation. Run:
 *
 * <pre>
 * java -jar rafestore-bench/target/benchmarks.jar ClientCpuBenchmark -f 1 -wi 3 -i 5
 * java -jar rafestore-bench/target/benchmarks.jar ClientCpuBenchmark -p size=1024 -prof gc
 * </pre>
 *
 * <p>Zero-latency clouds answer before the call returns, so nothing here waits; on real networks
 * the same CPU is spread over the operation's wait. Issue 16's targets, with the default signer: at
 * most 100 microseconds per 1 KB write ({@code write}) and 50 per read of a changed key ({@code
 * readAfterChange}), which must verify one new Ed25519 signature ({@code Ed25519Benchmark.verify}
 * is the floor under it); issue 7's 50 per read of an unchanged key ({@code readLatest}).
 * scripts/bench.sh prints the target lines from the 1 KB rows.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClientCpuBenchmark {
  private static final int KEYS_SMALL = 4096;
  private static final int KEYS_LARGE = 16;

  /**
   * System property: at most this many keys for {@link #write} (default: no limit). Only for the
   * smoke run ({@code scripts/bench.sh --quick}, one 100 ms iteration in the launching JVM): there
   * the set-up writing 4,096 keys, untimed, was nearly all of the JMH step, for a measurement of a
   * few hundred writes (2026-11-29, 2 cores: {@code write}'s eight smoke runs alone 52 s, the whole
   * step 48 s in CI before and 9 s with 64 keys). With fewer keys each gets more versions, so a
   * smoke score is not comparable with a full run's.
   */
  static final String MAX_KEYS_PROPERTY = "rafestore.bench.maxKeys";

  /**
   * The clients, their clouds and their scheduler, new each iteration; each benchmark takes one
   * subclass, whose set-up adds what it needs. Not states injected into one another: JMH (1.37)
   * gives a helper state that asks for another state an instance of its own, so a change made
   * through it landed on other clouds than the ones read (which is how an earlier {@code
   * readAfterChange} read an unchanged key).
   */
  @State(Scope.Thread)
  public abstract static class Base {
    @Param({"PAPER", "FAST", "DEPSKY_A", "DEPSKY_CA"})
    public ProtocolMode mode;

    @Param({"1024", "1048576"})
    public int size;

    /**
     * Who signs and verifies metadata: {@code bc} (the default: BouncyCastle's low-level Ed25519,
     * no provider given), {@code jdk} (the JDK's own, {@code signatureProvider(SunEC)}) or {@code
     * bc-jca} (BouncyCastle's JCA provider, {@code signatureProvider(new BouncyCastleProvider())}).
     * The report runs the first two side by side; issue 16's targets are for the default.
     */
    @Param({"bc", "jdk"})
    public String signer;

    private final KeyPair keys = SigningKeys.generate();
    private final KeyPair otherKeys = SigningKeys.generate();
    VirtualScheduler scheduler;
    RafeStore store;
    RafeStore otherReader;
    RafeStore otherWriter;
    byte[] value;

    void setUpClients() throws IOException {
      scheduler = new VirtualScheduler();
      List<RetainNewestCloud> clouds = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        clouds.add(new RetainNewestCloud("c" + i, 2));
      }
      store = client(clouds, "bench", keys);
      otherWriter = client(clouds, "other", otherKeys);
      otherReader =
          clientBuilder(clouds)
              .trustWriter("bench", keys.getPublic())
              .trustWriter("other", otherKeys.getPublic())
              .build();
      value = new byte[size];
      new SplittableRandom(size).nextBytes(value);
      run(store.write("cpu/read", value));
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
      store.close();
      otherWriter.close();
      otherReader.close();
    }

    private RafeStore.Builder clientBuilder(List<RetainNewestCloud> clouds) {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .executor(Runnable::run)
              .scheduler(scheduler)
              .closeDrivers(false)
              .maxValueBytes(2L * 1024 * 1024)
              .signatureProvider(provider(signer));
      for (RetainNewestCloud c : clouds) {
        b.cloud(c);
      }
      return b;
    }

    private RafeStore client(List<RetainNewestCloud> clouds, String writer, KeyPair writerKeys) {
      return clientBuilder(clouds).writer(writer, writerKeys).mode(mode).build();
    }

    /** Runs the clients' timers on this thread until {@code op} completes. */
    <T> T run(CompletableFuture<T> op) throws IOException {
      try {
        return scheduler.runUntilDone(op);
      } catch (ExecutionException e) {
        throw new IOException(e.getCause());
      }
    }
  }

  private static java.security.Provider provider(String signer) {
    switch (signer) {
      case "bc":
        return null;
      case "jdk":
        return java.security.Security.getProvider("SunEC");
      case "bc-jca":
        return new org.bouncycastle.jce.provider.BouncyCastleProvider();
      default:
        throw new IllegalArgumentException("signer: bc, jdk or bc-jca, was " + signer);
    }
  }

  /** {@link #readLatest}'s: the clients alone. */
  @State(Scope.Thread)
  public static class Clients extends Base {
    @Setup(Level.Iteration)
    public void setUp() throws IOException {
      setUpClients();
    }
  }

  /**
   * {@link #write}'s: the keys it writes round robin, each written once in the iteration's set-up
   * (not timed). So many that each key's log holds only a few entries: a log is re-signed whole on
   * every write, so a long history costs more (about 7,000 writes a second would give 256 keys
   * thirty versions each per iteration).
   */
  @State(Scope.Thread)
  public static class Writing extends Base {
    List<String> keys;
    int next;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
      setUpClients();
      int n =
          Math.min(
              size <= 64 * 1024 ? KEYS_SMALL : KEYS_LARGE,
              Math.max(1, Integer.getInteger(MAX_KEYS_PROPERTY, Integer.MAX_VALUE)));
      keys = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String key = "cpu/" + i;
        keys.add(key);
        run(store.write(key, value));
      }
      next = 0;
    }

    String nextKey() {
      String key = keys.get(next);
      next = next + 1 == keys.size() ? 0 : next + 1;
      return key;
    }
  }

  /**
   * {@link #readAfterChange}'s: before each invocation (not timed), another writer writes a new
   * version of the next of many keys (so each log holds only a few entries).
   */
  @State(Scope.Thread)
  public static class Changing extends Base {
    private static final int KEYS = 4096;
    String key;
    int next;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
      setUpClients();
    }

    @Setup(Level.Invocation)
    public void change() throws IOException {
      key = "cpu/changing/" + next;
      next = next + 1 == KEYS ? 0 : next + 1;
      run(otherWriter.write(key, value));
    }
  }

  @Benchmark
  public WriteReceipt write(Writing c) throws IOException {
    return c.run(c.store.write(c.nextKey(), c.value));
  }

  @Benchmark
  public StoredValue readLatest(Clients c) throws IOException {
    return c.run(c.store.read("cpu/read"));
  }

  /** A read of a changed key: it must verify the new signed log. */
  @Benchmark
  public StoredValue readAfterChange(Changing c) throws IOException {
    StoredValue v = c.run(c.otherReader.read(c.key));
    if (!v.info().version().writer().equals("other")) {
      throw new IllegalStateException("read " + v.info() + ", not the change");
    }
    return v;
  }
}
