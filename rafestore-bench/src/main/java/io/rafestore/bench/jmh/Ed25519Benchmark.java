package io.rafestore.bench.jmh;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
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
 * Ed25519 signing and verification of a 200-byte message, the size of a short signed metadata log;
 * every write signs one and every read verifies each distinct log it receives. Two implementations:
 * {@code JDK} is what RafeStore uses ({@code java.security.Signature} "Ed25519", the SunEC
 * provider), {@code BC} is BouncyCastle's lightweight {@link Ed25519Signer} (bcprov-jdk18on, here
 * only for the comparison). Both produce the same signatures (Ed25519 is deterministic), which
 * {@link #setUp} checks. Scores are microseconds per operation. Run:
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
  /** Which implementation signs and verifies. */
  public enum Impl {
    JDK,
    BC
  }

  @Param({"JDK", "BC"})
  public Impl impl;

  private final byte[] message = new byte[200];
  private KeyPair jdkKeys;
  private Ed25519PrivateKeyParameters bcPrivate;
  private Ed25519PublicKeyParameters bcPublic;
  private byte[] signature;

  @Setup
  public void setUp() throws GeneralSecurityException {
    new Random(42).nextBytes(message);
    byte[] seed = new byte[32];
    new Random(7).nextBytes(seed);
    bcPrivate = new Ed25519PrivateKeyParameters(seed, 0);
    bcPublic = bcPrivate.generatePublicKey();
    // The same key for both: the JDK generator draws its 32-byte seed from this "random".
    KeyPairGenerator g = KeyPairGenerator.getInstance("Ed25519");
    g.initialize(255, new FixedSeed(seed));
    jdkKeys = g.generateKeyPair();
    byte[] jdk = signJdk();
    byte[] bc = signBc();
    if (!java.util.Arrays.equals(jdk, bc)) {
      throw new IllegalStateException("JDK and BouncyCastle signatures differ for one key");
    }
    signature = jdk;
  }

  @Benchmark
  public byte[] sign() throws GeneralSecurityException {
    return impl == Impl.JDK ? signJdk() : signBc();
  }

  @Benchmark
  public boolean verify() throws GeneralSecurityException {
    boolean ok;
    if (impl == Impl.JDK) {
      Signature verifier = Signature.getInstance("Ed25519");
      verifier.initVerify(jdkKeys.getPublic());
      verifier.update(message);
      ok = verifier.verify(signature);
    } else {
      Ed25519Signer verifier = new Ed25519Signer();
      verifier.init(false, bcPublic);
      verifier.update(message, 0, message.length);
      ok = verifier.verifySignature(signature);
    }
    if (!ok) {
      throw new IllegalStateException("signature did not verify");
    }
    return ok;
  }

  private byte[] signJdk() throws GeneralSecurityException {
    Signature signer = Signature.getInstance("Ed25519");
    signer.initSign(jdkKeys.getPrivate());
    signer.update(message);
    return signer.sign();
  }

  private byte[] signBc() {
    Ed25519Signer signer = new Ed25519Signer();
    signer.init(true, bcPrivate);
    signer.update(message, 0, message.length);
    return signer.generateSignature();
  }

  /** A "random" source that returns one fixed seed, so both implementations get one key. */
  private static final class FixedSeed extends SecureRandom {
    private static final long serialVersionUID = 1L;
    private final byte[] seed;

    FixedSeed(byte[] seed) {
      this.seed = seed.clone();
    }

    @Override
    public void nextBytes(byte[] bytes) {
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = seed[i % seed.length];
      }
    }
  }
}
