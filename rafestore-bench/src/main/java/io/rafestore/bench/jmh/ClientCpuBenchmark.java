package io.rafestore.bench.jmh;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.bench.support.RetainNewestCloud;
import java.io.IOException;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
 * executor(Runnable::run)}), so the average time of an operation is the CPU it costs the client:
 * hashing, signing, verifying, encoding, copying, and for DepSky-CA encryption and erasure coding.
 * One parameter per protocol mode and per value size (1 KB and 1 MB).
 *
 * <ul>
 *   <li>{@code write}: a new version of one of many keys, round robin. Keys are written once in the
 *       iteration's set-up, so in FAST mode (one trusted writer that knows its own log) readM is
 *       skipped as it would be in a long-running application. Each key gets only a few versions per
 *       iteration: a log is re-signed whole on every write, so a long history costs more.
 *   <li>{@code readLatest}: the latest version of a key that does not change; the client verifies a
 *       log once and then recognises it by its hash, as it would for a key read often.
 *   <li>{@code readAfterChange}: the latest version of a key that another client changed just
 *       before (in the invocation's set-up, not timed), so the reader verifies a new signed log:
 *       the cost of reading a key that changes between reads.
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
 * the same CPU is spread over the operation's wait. Issue 7's targets: at most 100 microseconds per
 * 1 KB write and 50 per read.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClientCpuBenchmark {
  private static final int KEYS_SMALL = 256;
  private static final int KEYS_LARGE = 16;

  @Param({"PAPER", "FAST", "DEPSKY_A", "DEPSKY_CA"})
  public ProtocolMode mode;

  @Param({"1024", "1048576"})
  public int size;

  /**
   * Who signs and verifies metadata: {@code jdk} (the default provider) or {@code bc}
   * (BouncyCastle's, through {@code RafeStore.Builder.signatureProvider}). The report's run uses
   * the default; compare with {@code -p signer=jdk,bc}.
   */
  @Param({"jdk"})
  public String signer;

  private final KeyPair keys = SigningKeys.generate();
  private RafeStore store;
  private RafeStore otherReader;
  private RafeStore otherWriter;
  private List<String> writeKeys;
  private int next;
  private byte[] value;

  @Setup(Level.Iteration)
  public void setUp() throws IOException {
    List<RetainNewestCloud> clouds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      clouds.add(new RetainNewestCloud("c" + i, 2));
    }
    store = client(clouds, "bench", keys);
    KeyPair otherKeys = SigningKeys.generate();
    otherWriter = client(clouds, "other", otherKeys);
    otherReader =
        clientBuilder(clouds)
            .trustWriter("bench", keys.getPublic())
            .trustWriter("other", otherKeys.getPublic())
            .build();
    value = new byte[size];
    new SplittableRandom(size).nextBytes(value);
    int n = size <= 64 * 1024 ? KEYS_SMALL : KEYS_LARGE;
    writeKeys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String key = "cpu/" + i;
      writeKeys.add(key);
      store.blocking().write(key, value);
    }
    store.blocking().write("cpu/read", value);
    otherWriter.blocking().write("cpu/changing", value);
    next = 0;
  }

  private RafeStore.Builder clientBuilder(List<RetainNewestCloud> clouds) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .executor(Runnable::run)
            .closeDrivers(false)
            .maxValueBytes(2L * 1024 * 1024)
            .signatureProvider(
                "bc".equals(signer)
                    ? new org.bouncycastle.jce.provider.BouncyCastleProvider()
                    : null);
    for (RetainNewestCloud c : clouds) {
      b.cloud(c);
    }
    return b;
  }

  private RafeStore client(List<RetainNewestCloud> clouds, String writer, KeyPair writerKeys) {
    return clientBuilder(clouds).writer(writer, writerKeys).mode(mode).build();
  }

  /** The per-invocation change that {@link #readAfterChange} reads; set-up is not timed. */
  @State(Scope.Thread)
  public static class Change {
    @Setup(Level.Invocation)
    public void change(ClientCpuBenchmark bench) throws IOException {
      bench.otherWriter.blocking().write("cpu/changing", bench.value);
    }
  }

  @TearDown(Level.Iteration)
  public void tearDown() {
    store.close();
    otherWriter.close();
    otherReader.close();
  }

  @Benchmark
  public WriteReceipt write() throws IOException {
    String key = writeKeys.get(next);
    next = next + 1 == writeKeys.size() ? 0 : next + 1;
    return store.blocking().write(key, value);
  }

  @Benchmark
  public StoredValue readLatest() throws IOException {
    return store.blocking().read("cpu/read");
  }

  @Benchmark
  public StoredValue readAfterChange(Change changed) throws IOException {
    return otherReader.blocking().read("cpu/changing");
  }
}
