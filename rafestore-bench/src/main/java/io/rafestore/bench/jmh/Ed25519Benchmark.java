package io.rafestore.bench.jmh;

import io.rafestore.internal.codec.Signatures;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
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
 * every write signs one and every read verifies each distinct log it receives. Four
 * implementations, all producing the same signatures (Ed25519 is deterministic), which {@link
 * #setUp} checks:
 *
 * <ul>
 *   <li>{@code DEFAULT}: what RafeStore uses unless given a provider ({@code
 *       internal.codec.Signatures.fast()}): BouncyCastle's low-level Ed25519 on raw keys, each key
 *       decoded once;
 *   <li>{@code BC}: BouncyCastle's lightweight {@link Ed25519Signer}, a new signer per call (it
 *       buffers the message);
 *   <li>{@code BC_JCA}: BouncyCastle's JCA provider through {@code java.security.Signature}, as
 *       {@code Builder.signatureProvider(new BouncyCastleProvider())} uses it;
 *   <li>{@code JDK}: the JDK's own (SunEC) through {@code java.security.Signature}, as {@code
 *       Builder.signatureProvider(Security.getProvider("SunEC"))} uses it.
 * </ul>
 *
 * Scores are microseconds per operation. Run:
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
    DEFAULT,
    BC,
    BC_JCA,
    JDK
  }

  @Param({"DEFAULT", "BC", "BC_JCA", "JDK"})
  public Impl impl;

  private final byte[] message = new byte[200];
  private KeyPair jdkKeys;
  private KeyPair bcJcaKeys;
  private final Provider bcProvider = new BouncyCastleProvider();
  private final Signatures fast = Signatures.fast();
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
    KeyFactory bcFactory = KeyFactory.getInstance("Ed25519", bcProvider);
    bcJcaKeys =
        new KeyPair(
            bcFactory.generatePublic(new X509EncodedKeySpec(jdkKeys.getPublic().getEncoded())),
            bcFactory.generatePrivate(new PKCS8EncodedKeySpec(jdkKeys.getPrivate().getEncoded())));
    byte[] jdk = signJca(SUN_EC, jdkKeys);
    for (Impl i : Impl.values()) {
      if (!java.util.Arrays.equals(jdk, sign(i))) {
        throw new IllegalStateException(i + " and the JDK sign differently with one key");
      }
    }
    signature = jdk;
  }

  private static final Provider SUN_EC = java.security.Security.getProvider("SunEC");

  @Benchmark
  public byte[] sign() throws GeneralSecurityException {
    return sign(impl);
  }

  private byte[] sign(Impl i) throws GeneralSecurityException {
    switch (i) {
      case DEFAULT:
        return fast.sign(message, message.length, jdkKeys.getPrivate());
      case BC:
        return signBc();
      case BC_JCA:
        return signJca(bcProvider, bcJcaKeys);
      default:
        return signJca(SUN_EC, jdkKeys);
    }
  }

  @Benchmark
  public boolean verify() throws GeneralSecurityException {
    boolean ok;
    switch (impl) {
      case DEFAULT:
        ok = fast.verify(message, message.length, signature, jdkKeys.getPublic());
        break;
      case BC:
        Ed25519Signer verifier = new Ed25519Signer();
        verifier.init(false, bcPublic);
        verifier.update(message, 0, message.length);
        ok = verifier.verifySignature(signature);
        break;
      case BC_JCA:
        ok = verifyJca(bcProvider, bcJcaKeys);
        break;
      default:
        ok = verifyJca(SUN_EC, jdkKeys);
    }
    if (!ok) {
      throw new IllegalStateException("signature did not verify");
    }
    return ok;
  }

  private boolean verifyJca(Provider provider, KeyPair keys) throws GeneralSecurityException {
    Signature verifier = Signature.getInstance("Ed25519", provider);
    verifier.initVerify(keys.getPublic());
    verifier.update(message);
    return verifier.verify(signature);
  }

  private byte[] signJca(Provider provider, KeyPair keys) throws GeneralSecurityException {
    Signature signer = Signature.getInstance("Ed25519", provider);
    signer.initSign(keys.getPrivate());
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
