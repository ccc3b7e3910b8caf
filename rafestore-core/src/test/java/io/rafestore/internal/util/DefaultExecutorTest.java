package io.rafestore.internal.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DefaultExecutorTest {
  @Test
  void isBoundedDaemonAndAtLeastTwoWide() {
    assertThat(DefaultExecutor.get().getParallelism()).isGreaterThanOrEqualTo(2);
    Thread[] seen = new Thread[1];
    DefaultExecutor.get().submit(() -> seen[0] = Thread.currentThread()).join();
    assertThat(seen[0].isDaemon()).isTrue();
    assertThat(seen[0].getName()).startsWith("rafestore-worker-");
  }

  /**
   * Hundreds of operations in flight on a client with the default executor: the threads created
   * stay bounded by the pool, not one per task (what the common pool's fallback did on two CPUs).
   */
  @Test
  void manyOperationsInFlightCreateBoundedThreads() throws Exception {
    RafeStore.Builder b = RafeStore.builder().writer("w", SigningKeys.generate());
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("m" + i));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (RafeStore store = b.build()) {
      store.blocking().write("warm-up", new byte[10]);
      long startedBefore = threads.getTotalStartedThreadCount();
      List<CompletableFuture<?>> ops = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        ops.add(store.write("k" + i, new byte[100]));
      }
      CompletableFuture.allOf(ops.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
      long started = threads.getTotalStartedThreadCount() - startedBefore;
      assertThat(started)
          .as("threads started for 500 concurrent writes")
          .isLessThanOrEqualTo(DefaultExecutor.get().getParallelism() + 8L);
    }
  }
}
