package io.rafestore.bench.jmh;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The JDK's Ed25519 signing and verification of a 200-byte message, the size of a signed metadata
 * entry; every write signs one and every read verifies up to n. Scores are microseconds per
 * operation. Run:
 *
 * <pre>
 * java -jar rafestore-bench/target/benchmarks.jar Ed25519Benchmark -f 1 -wi 2 -i 3
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class Ed25519Benchmark {
  private KeyPair keys;
  private final byte[] message = new byte[200];
  private byte[] signature;

  @Setup
  public void setUp() throws GeneralSecurityException {
    keys = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    new Random(42).nextBytes(message);
    signature = sign();
  }

  @Benchmark
  public byte[] sign() throws GeneralSecurityException {
    Signature signer = Signature.getInstance("Ed25519");
    signer.initSign(keys.getPrivate());
    signer.update(message);
    return signer.sign();
  }

  @Benchmark
  public boolean verify() throws GeneralSecurityException {
    Signature verifier = Signature.getInstance("Ed25519");
    verifier.initVerify(keys.getPublic());
    verifier.update(message);
    boolean ok = verifier.verify(signature);
    if (!ok) {
      throw new IllegalStateException("signature did not verify");
    }
    return ok;
  }
}
