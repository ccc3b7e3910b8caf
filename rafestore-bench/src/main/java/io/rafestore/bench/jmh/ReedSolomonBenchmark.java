package io.rafestore.bench.jmh;

import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
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
 * Reed-Solomon encode and decode throughput for the codes RafeStore uses, on 1 MiB and 16 MiB
 * values. Decoding is measured in the worst case: the first min(k, m) data shards are missing, so
 * that many are rebuilt from parity.
 *
 * <p>Scores are operations per second; multiply by {@code size} for bytes of value per second (1
 * MiB: ops/s x 1.048576 = MB/s). Run, after {@code mvn -pl rafestore-core,rafestore-bench -am
 * install -DskipTests}:
 *
 * <pre>
 * java -jar rafestore-bench/target/benchmarks.jar ReedSolomon
 * java -jar rafestore-bench/target/benchmarks.jar 'ReedSolomonBenchmark.encode' \
 *     -p code=2+2 -p size=1048576 -f 1 -wi 2 -i 3 -t 1
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReedSolomonBenchmark {
  /** k+m: data and parity shards. */
  @Param({"2+2", "4+2", "6+3"})
  public String code;

  /** Value size in bytes: 1 MiB and 16 MiB. */
  @Param({"1048576", "16777216"})
  public int size;

  private ReedSolomon rs;
  private byte[] value;
  private byte[][] degraded;

  @Setup
  public void setUp() {
    String[] km = code.split("\\+");
    rs = ReedSolomon.of(Integer.parseInt(km[0]), Integer.parseInt(km[1]));
    value = new byte[size];
    new Random(42).nextBytes(value);
    degraded = rs.encode(value);
    for (int i = 0; i < Math.min(rs.dataShards(), rs.parityShards()); i++) {
      degraded[i] = null;
    }
  }

  @Benchmark
  public byte[][] encode() {
    return rs.encode(value);
  }

  @Benchmark
  public byte[] decode() throws MalformedInputException {
    return rs.decode(degraded, size);
  }
}
