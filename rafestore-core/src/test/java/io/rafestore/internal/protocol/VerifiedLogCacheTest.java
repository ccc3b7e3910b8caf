package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.InvalidParameterException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyFactorySpi;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.KeySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.Test;

/**
 * The verified-log cache is each client's own: a client reading a log that another client in the
 * same JVM has just signed (or verified) verifies it itself, once, and then recognises it by its
 * hash. Found 2026-11-27: with one cache for the JVM, the reader of {@code
 * ClientCpuBenchmark.readAfterChange} found the log its writer had just signed and verified
 * nothing. Each client signs and verifies through a provider of its own that counts verifications.
 */
class VerifiedLogCacheTest {
  private final VirtualScheduler clock = new VirtualScheduler();
  private final List<MemoryCloud> clouds = new ArrayList<>();

  VerifiedLogCacheTest() {
    for (int i = 0; i < 4; i++) {
      clouds.add(new MemoryCloud("c" + i));
    }
  }

  private RafeStore.Builder builder(Provider provider) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .scheduler(clock)
            .executor(Runnable::run)
            .closeDrivers(false)
            .signatureProvider(provider);
    for (MemoryCloud c : clouds) {
      b.cloud(c);
    }
    return b;
  }

  private <T> T run(CompletableFuture<T> op) throws Exception {
    return clock.runUntilDone(op);
  }

  @Test
  void aSecondClientReadingALogTheFirstJustSignedVerifiesItOnce() throws Exception {
    KeyPair alice = SigningKeys.generate();
    CountingEd25519 writerSigner = new CountingEd25519();
    CountingEd25519 readerSigner = new CountingEd25519();
    try (RafeStore writer = builder(writerSigner).writer("alice", alice).build();
        RafeStore reader = builder(readerSigner).trustWriter("alice", alice.getPublic()).build()) {
      byte[] v1 = "one".getBytes(StandardCharsets.UTF_8);
      run(writer.write("k", v1));
      assertThat(writerSigner.signs()).isEqualTo(1);

      StoredValue first = run(reader.read("k"));
      assertThat(first.value()).isEqualTo(v1);
      // Four clouds answered with the same bytes: one verification, not none and not four.
      assertThat(readerSigner.verifies()).as("verifications by the reader").isEqualTo(1);

      // Unchanged: recognised by its hash, nothing verified.
      assertThat(run(reader.read("k")).value()).isEqualTo(v1);
      assertThat(readerSigner.verifies()).isEqualTo(1);

      // Changed by the other client: the new log is verified once.
      byte[] v2 = "two".getBytes(StandardCharsets.UTF_8);
      run(writer.write("k", v2));
      assertThat(run(reader.read("k")).value()).isEqualTo(v2);
      assertThat(readerSigner.verifies()).isEqualTo(2);

      // The writer reading its own log back knows the bytes it signed: nothing verified.
      assertThat(run(writer.read("k")).value()).isEqualTo(v2);
      assertThat(writerSigner.verifies()).as("verifications by the writer").isZero();
    }
  }

  @Test
  void aLogOneClientVerifiedIsVerifiedAgainByAnother() throws Exception {
    KeyPair alice = SigningKeys.generate();
    try (RafeStore writer = builder(null).writer("alice", alice).build()) {
      byte[] v = "shared".getBytes(StandardCharsets.UTF_8);
      run(writer.write("k", v));
      for (int i = 0; i < 2; i++) {
        CountingEd25519 counted = new CountingEd25519();
        try (RafeStore reader = builder(counted).trustWriter("alice", alice.getPublic()).build()) {
          assertThat(run(reader.read("k")).value()).isEqualTo(v);
          assertThat(counted.verifies()).as("reader %d", i).isEqualTo(1);
        }
      }
    }
  }

  /**
   * BouncyCastle's JCA Ed25519 behind a provider of its own, which counts the signatures it makes
   * and verifies. Only Signature and KeyFactory (all the client asks a provider for).
   */
  static final class CountingEd25519 extends Provider {
    private static final long serialVersionUID = 1L;
    private static final Provider BC = new BouncyCastleProvider();
    private final transient AtomicInteger signs = new AtomicInteger();
    private final transient AtomicInteger verifies = new AtomicInteger();

    CountingEd25519() {
      super("CountingEd25519", "1", "BouncyCastle's Ed25519, its signatures counted");
      putService(
          new Service(this, "KeyFactory", "Ed25519", Keys.class.getName(), null, null) {
            @Override
            public Object newInstance(Object parameter) {
              return new Keys();
            }
          });
      putService(
          new Service(this, "Signature", "Ed25519", Counted.class.getName(), null, null) {
            @Override
            public Object newInstance(Object parameter) {
              return new Counted(signs, verifies);
            }
          });
    }

    int signs() {
      return signs.get();
    }

    int verifies() {
      return verifies.get();
    }

    private static final class Keys extends KeyFactorySpi {
      private final KeyFactory inner;

      Keys() {
        try {
          inner = KeyFactory.getInstance("Ed25519", BC);
        } catch (GeneralSecurityException e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      protected PublicKey engineGeneratePublic(KeySpec spec) throws InvalidKeySpecException {
        return inner.generatePublic(spec);
      }

      @Override
      protected PrivateKey engineGeneratePrivate(KeySpec spec) throws InvalidKeySpecException {
        return inner.generatePrivate(spec);
      }

      @Override
      protected <T extends KeySpec> T engineGetKeySpec(Key key, Class<T> spec)
          throws InvalidKeySpecException {
        return inner.getKeySpec(key, spec);
      }

      @Override
      protected Key engineTranslateKey(Key key) throws InvalidKeyException {
        return inner.translateKey(key);
      }
    }

    private static final class Counted extends SignatureSpi {
      private final Signature inner;
      private final AtomicInteger signs;
      private final AtomicInteger verifies;

      Counted(AtomicInteger signs, AtomicInteger verifies) {
        this.signs = signs;
        this.verifies = verifies;
        try {
          inner = Signature.getInstance("Ed25519", BC);
        } catch (GeneralSecurityException e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
        inner.initVerify(key);
      }

      @Override
      protected void engineInitSign(PrivateKey key) throws InvalidKeyException {
        inner.initSign(key);
      }

      @Override
      protected void engineUpdate(byte b) throws SignatureException {
        inner.update(b);
      }

      @Override
      protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
        inner.update(b, off, len);
      }

      @Override
      protected byte[] engineSign() throws SignatureException {
        signs.incrementAndGet();
        return inner.sign();
      }

      @Override
      protected boolean engineVerify(byte[] sig) throws SignatureException {
        verifies.incrementAndGet();
        return inner.verify(sig);
      }

      @Override
      @Deprecated
      protected void engineSetParameter(String param, Object value) {
        throw new InvalidParameterException("no parameters");
      }

      @Override
      @Deprecated
      protected Object engineGetParameter(String param) {
        throw new InvalidParameterException("no parameters");
      }
    }
  }
}
