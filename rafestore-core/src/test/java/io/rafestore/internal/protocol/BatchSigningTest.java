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
            .writer(id, keys);
    if (trusted != null) {
      b.trustWriter("alice", trusted.getPublic());
    }
    for (io.rafestore.spi.CloudDriver d : drivers) {
      b.cloud(d, CloudRole.DATA_AND_METADATA);
    }
    return b.build();
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(Arrays.copyOf(bytes, prefix.length), prefix);
  }
}
