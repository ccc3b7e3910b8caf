package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RetentionPolicy;
import io.rafestore.Version;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 10,000 operations through one client while one cloud hangs forever (its requests never complete):
 * every operation completes, and afterwards no request to the hung cloud is still held, no timer is
 * pending, no thread was added and the retained heap is back near where it started. Runs on virtual
 * time so the 30 s linger of metadata puts passes at once. PAPER and DEPSKY_CA (the two write paths
 * and the coded read path); FAST and DEPSKY_A share their code.
 */
class BoundedResourcesTest {
  static final int OPERATIONS = Integer.getInteger("rafestore.bounded.operations", 10_000);

  /** A cloud that accepts every request and never answers; counts what is still held. */
  static final class BlackHole implements CloudDriver {
    final Set<CompletableFuture<?>> held = ConcurrentHashMap.newKeySet();
    final AtomicLong requests = new AtomicLong();

    private <T> CompletableFuture<T> hold() {
      requests.incrementAndGet();
      CompletableFuture<T> f = new CompletableFuture<>();
      held.add(f);
      f.whenComplete((r, e) -> held.remove(f));
      return f;
    }

    @Override
    public String id() {
      return "hole";
    }

    @Override
    public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
      return hold();
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      return hold();
    }

    @Override
    public CompletableFuture<Void> delete(ObjectKey key) {
      return hold();
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return hold();
    }

    @Override
    public void close() {}
  }

  static long retainedHeap(MemoryMXBean memory) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "DEPSKY_CA"})
  void aHungCloudNeverBlocksAndNothingAccumulates(ProtocolMode mode) throws Exception {
    VirtualScheduler scheduler = new VirtualScheduler();
    BlackHole hole = new BlackHole();
    List<CloudDriver> clouds = new ArrayList<>();
    clouds.add(hole);
    for (int i = 1; i < 4; i++) {
      clouds.add(new MemoryCloud("p" + i));
    }
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(scheduler)
            .writer("alice", Harness.ALICE);
    for (CloudDriver c : clouds) {
      b.cloud(c, CloudRole.DATA_AND_METADATA);
    }
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    int threadsBefore = Thread.activeCount();
    try (RafeStore store = b.build()) {
      // Warm up (class loading, caches), then measure.
      runOps(store, scheduler, 200);
      scheduler.advance(Duration.ofMinutes(1));
      long heapBefore = retainedHeap(memory);

      // DepSky-CA does 4x the CPU work per operation; its path is covered by fewer.
      int count = mode == ProtocolMode.DEPSKY_CA ? OPERATIONS / 4 : OPERATIONS;
      runOps(store, scheduler, count);
      scheduler.advance(Duration.ofMinutes(1));

      assertThat(hole.requests.get()).as("the hung cloud was asked").isPositive();
      assertThat(hole.held).as("requests to the hung cloud still held").isEmpty();
      assertThat(scheduler.pending()).as("timers still pending").isZero();
      assertThat(Thread.activeCount()).isLessThanOrEqualTo(threadsBefore + 2);
      long heapAfter = retainedHeap(memory);
      assertThat(heapAfter - heapBefore)
          .as("heap retained after %d operations", count)
          .isLessThan(32L << 20);
    }
  }

  /** Writes, reads (latest and by version), history and a collection now and then, on 20 keys. */
  private static void runOps(RafeStore store, VirtualScheduler scheduler, int count)
      throws Exception {
    List<Version> written = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String key = "key" + (i / 5 % 20); // five operations per key in a row, writes first
      CompletableFuture<?> op;
      switch (i % 5) {
        case 0, 1 -> {
          CompletableFuture<io.rafestore.WriteReceipt> w = store.write(key, new byte[100 + i % 50]);
          written.add(scheduler.runUntilDone(w).version());
          continue;
        }
        case 2 -> op = store.read(key);
        case 3 -> op = store.history(key, Optional.empty(), 10);
        default ->
            op =
                (i / 5) % 7 == 0
                    ? store.collect(key, RetentionPolicy.keepLast(3))
                    : store.read(key);
      }
      scheduler.runUntilDone(op);
    }
    assertThat(written).isNotEmpty();
  }
}
