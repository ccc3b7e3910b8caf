package io.rafestore.bench.jmh;

import io.rafestore.internal.codec.Sha256;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SHA-256 of a 1 KiB metadata-sized input and of a 1 MiB value, the per-fragment hash of every
 * write and verified read. Scores are ops/s; x size = bytes/s. Run:
 *
 * <pre>
 * java -jar rafestore-bench/target/benchmarks.jar Sha256Benchmark -f 1 -wi 2 -i 3
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class Sha256Benchmark {
  @Param({"1024", "1048576"})
  public int size;

  private byte[] data;

  @Setup
  public void setUp() {
    data = new byte[size];
    new Random(42).nextBytes(data);
  }

  @Benchmark
  public byte[] hash() {
    return Sha256.hash(data);
  }
}
