package io.rafestore.bench.jmh;

import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
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
 * AES-256-GCM ({@link Aead}) encrypt and decrypt of a 1 MiB value with 32 bytes of associated data,
 * as DepSky-CA and RafeStore's confidential mode do once per write and read. Scores are ops/s; x
 * 1.048576 = MB/s.
 *
 * <p>Warm-up is long on purpose: JDK 17 runs AES-CTR and GHASH of a 1 MiB one-shot call in
 * interpreted Java (about 70 MB/s here) until, after roughly 10 s of such calls, the methods
 * holding the AES-NI/PCLMULQDQ intrinsics are compiled (about 2 GB/s). A short warm-up measures the
 * cold path. Run:
 *
 * <pre>
 * java -jar rafestore-bench/target/benchmarks.jar AeadBenchmark -f 1 -wi 2 -i 3
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 8, time = 3)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AeadBenchmark {
  @Param({"1048576"})
  public int size;

  private Aead aead;
  private byte[] plaintext;
  private byte[] sealed;
  private final byte[] associatedData = new byte[32];

  @Setup
  public void setUp() {
    aead = Aead.withKey(Aead.newKey());
    plaintext = new byte[size];
    new Random(42).nextBytes(plaintext);
    sealed = aead.encrypt(plaintext, associatedData);
  }

  @Benchmark
  public byte[] encrypt() {
    return aead.encrypt(plaintext, associatedData);
  }

  @Benchmark
  public byte[] decrypt() throws MalformedInputException {
    return aead.decrypt(sealed, associatedData);
  }
}
