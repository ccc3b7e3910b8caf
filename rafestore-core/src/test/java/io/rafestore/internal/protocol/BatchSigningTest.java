package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.internal.protocol.metadata.BatchSignerTest;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.spi.ObjectInfo;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes of many keys at once, on real threads: the logs that wait for the client's signer share
 * one signature (signature algorithm 3), and every value reads back exactly from another client,
 * with one of the four clouds Byzantine.
 */
class BatchSigningTest {

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void concurrentWritesOfManyKeysShareSignaturesAndReadBackExactly(ProtocolMode mode)
      throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    ExecutorService cpu = Executors.newFixedThreadPool(2);
    ExecutorService io = Executors.newFixedThreadPool(2);
    try {
      Scheduler scheduler = Scheduler.of(timer);
      WanEmulator wan = WanEmulator.builder(scheduler).seed(7).callbackExecutor(io).build();
      List<MemoryCloud> stores = new ArrayList<>();
      List<io.rafestore.spi.CloudDriver> drivers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        MemoryCloud m = new MemoryCloud("p" + i);
        stores.add(m);
        io.rafestore.spi.CloudDriver d = i == 3 ? new ByzantineCloud(m, 11) : m;
        drivers.add(wan.wrap(d, WanEmulator.Link.rtt(Duration.ofMillis(5)).jitter(0.2)));
      }
      KeyPair alice = SigningKeys.generate();
      KeyPair bob = SigningKeys.generate();
      RafeStore writer = client(mode, drivers, scheduler, cpu, "alice", alice, null);
      RafeStore reader = client(mode, drivers, scheduler, cpu, "bob", bob, alice);
      try {
        Random random = new Random(3);
        int keys = 300;
        byte[][] values = new byte[keys][];
        List<CompletableFuture<?>> writes = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
          values[k] = new byte[1 + random.nextInt(3000)];
          random.nextBytes(values[k]);
          writes.add(writer.write("batch/" + k, values[k]));
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        for (int k = 0; k < keys; k++) {
          assertThat(reader.read("batch/" + k).get(30, TimeUnit.SECONDS).value())
              .as("key %d", k)
              .isEqualTo(values[k]);
        }
        // The correct clouds' logs: some signed in a batch, fewer signatures than such logs.
        int batched = 0;
        Set<String> signatures = new HashSet<>();
        for (MemoryCloud m : stores.subList(0, 3)) {
          for (ObjectInfo info : m.list("").get(10, TimeUnit.SECONDS)) {
            byte[] stored = m.get(info.key()).get(10, TimeUnit.SECONDS);
            if (!startsWith(stored, MetadataCodec.magic())) {
              continue;
            }
            int at = BatchSignerTest.batchSignatureAt(stored);
            if (at >= 0) {
              batched++;
              signatures.add(Arrays.toString(Arrays.copyOfRange(stored, at + 2, at + 66)));
            }
          }
        }
        assertThat(batched).as("logs signed in a batch").isPositive();
        assertThat(signatures.size()).isLessThan(batched);
      } finally {
        writer.close();
        reader.close();
      }
    } finally {
      cpu.shutdownNow();
      io.shutdownNow();
      timer.shutdownNow();
    }
  }

  private static RafeStore client(
      ProtocolMode mode,
      List<io.rafestore.spi.CloudDriver> drivers,
      Scheduler scheduler,
      ExecutorService cpu,
      String id,
      KeyPair keys,
      KeyPair trusted) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(mode)
            .executor(cpu)
            .scheduler(scheduler)
            .closeDrivers(false)
            .listener(RafeStoreListener.NONE)
            .signatureProvider(new SlowSignatures())
            .writer(id, keys);
    if (trusted != null) {
      b.trustWriter("alice", trusted.getPublic());
    }
    for (io.rafestore.spi.CloudDriver d : drivers) {
      b.cloud(d, CloudRole.DATA_AND_METADATA);
    }
    return b.build();
  }

  /**
   * The JDK's Ed25519 (SunEC), each signature taking 2 ms of wall time more (a sleep, no CPU), so
   * that logs arrive while a signature is being made and wait for the next round however the
   * machine schedules the test's threads. With BouncyCastle's 30 us signatures on a machine shared
   * with another test fork, two threads seldom signed at the same moment and a CI run found no
   * batch at all (2026-11-29, beside StressHistoryTest). Logs are byte-identical whichever signer
   * made them, and verification is not slowed.
   */
  static final class SlowSignatures extends java.security.Provider {
    private static final long serialVersionUID = 1L;

    SlowSignatures() {
      super("RafeStoreSlowEd25519", "1", "SunEC's Ed25519, 2 ms more per signature");
      // Keys as SunEC makes them (a client translates its keys with the provider's factory).
      Service keys =
          java.security.Security.getProvider("SunEC").getService("KeyFactory", "Ed25519");
      putService(
          new Service(this, "KeyFactory", "Ed25519", keys.getClassName(), null, null) {
            @Override
            public Object newInstance(Object parameter)
                throws java.security.NoSuchAlgorithmException {
              return keys.newInstance(parameter);
            }
          });
      putService(
          new Service(this, "Signature", "Ed25519", SlowSpi.class.getName(), null, null) {
            @Override
            public Object newInstance(Object parameter)
                throws java.security.NoSuchAlgorithmException {
              return new SlowSpi();
            }
          });
    }
  }

  /** SunEC's Ed25519 signature, slowed by a sleep before each signing. */
  static final class SlowSpi extends java.security.SignatureSpi {
    private final java.security.Signature d;

    SlowSpi() throws java.security.NoSuchAlgorithmException {
      try {
        d = java.security.Signature.getInstance("Ed25519", "SunEC");
      } catch (java.security.NoSuchProviderException e) {
        throw new java.security.NoSuchAlgorithmException("no SunEC provider: " + e, e);
      }
    }

    @Override
    protected void engineInitVerify(java.security.PublicKey key)
        throws java.security.InvalidKeyException {
      d.initVerify(key);
    }

    @Override
    protected void engineInitSign(java.security.PrivateKey key)
        throws java.security.InvalidKeyException {
      d.initSign(key);
    }

    @Override
    protected void engineUpdate(byte b) throws java.security.SignatureException {
      d.update(b);
    }

    @Override
    protected void engineUpdate(byte[] b, int off, int len)
        throws java.security.SignatureException {
      d.update(b, off, len);
    }

    @Override
    protected byte[] engineSign() throws java.security.SignatureException {
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.security.SignatureException("interrupted", e);
      }
      return d.sign();
    }

    @Override
    protected boolean engineVerify(byte[] signature) throws java.security.SignatureException {
      return d.verify(signature);
    }

    @Override
    @Deprecated
    protected void engineSetParameter(String param, Object value) {
      throw new java.security.InvalidParameterException("no parameters");
    }

    @Override
    @Deprecated
    protected Object engineGetParameter(String param) {
      throw new java.security.InvalidParameterException("no parameters");
    }
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(Arrays.copyOf(bytes, prefix.length), prefix);
  }
}
