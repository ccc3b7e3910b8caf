package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 9's bounded resources with the real drivers: 10,000 operations (half writes, half reads, 64
 * in flight) through one client over the four emulators. Threads, open sockets and retained heap
 * are measured after a warm-up and again at the end; each may grow only by a fixed allowance, not
 * with the number of operations. (The same property on in-memory clouds with a cloud that never
 * answers is {@code BoundedResourcesTest} in rafestore-core.)
 */
class BoundedResourcesEmulatorsTest {
  private static final KeyPair KEYS = SigningKeys.generate();
  private static final int OPERATIONS = 10_000;
  private static final int IN_FLIGHT = 64;

  /** Open sockets of this process (Linux: links to "socket:[...]" under /proc/self/fd). */
  private static long openSockets() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(
              p -> {
                try {
                  return Files.readSymbolicLink(p).toString().startsWith("socket:");
                } catch (IOException e) {
                  return false; // closed while listing
                }
              })
          .count();
    }
  }

  private static long heapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  private static void run(RafeStore store, int from, int to, byte[][] values) throws Exception {
    Semaphore slots = new Semaphore(IN_FLIGHT);
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (int i = from; i < to; i++) {
      slots.acquire();
      String key = "res/" + (i % IN_FLIGHT);
      CompletableFuture<?> op;
      if (i % 2 == 0) {
        op = store.write(key, values[i % values.length]);
      } else {
        op =
            store
                .read(key)
                .handle(
                    (StoredValue v, Throwable e) -> {
                      // A read may run before the first write of its key: not found is fine.
                      return null;
                    });
      }
      op.whenComplete((r, e) -> slots.release());
      pending.add(op);
      if (pending.size() >= 1024) {
        CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]))
            .get(5, TimeUnit.MINUTES);
        pending.clear();
      }
    }
    CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).get(5, TimeUnit.MINUTES);
  }

  @Test
  void tenThousandOperationsKeepThreadsSocketsAndHeapBounded() throws Exception {
    byte[][] values = new byte[8][];
    for (int i = 0; i < values.length; i++) {
      values[i] = new byte[512 + 97 * i];
      values[i][0] = (byte) i;
    }
    RafeStore.Builder b = RafeStore.builder().faultsTolerated(1).writer("res", KEYS);
    b.cloud(Emulators.s3("minio"));
    b.cloud(Emulators.azure("azurite"));
    b.cloud(Emulators.gcs("fakegcs"));
    b.cloud(Emulators.redis("redis"));
    try (RafeStore store = b.build()) {
      // Warm-up, then two equal halves: pools fill during the first half; what a leak would add
      // per operation shows as growth during the second.
      int warmUp = 1_000;
      int middle = (warmUp + OPERATIONS) / 2;
      run(store, 0, warmUp, values);
      int threadsStart = ManagementFactory.getThreadMXBean().getThreadCount();
      run(store, warmUp, middle, values);
      int threadsMiddle = ManagementFactory.getThreadMXBean().getThreadCount();
      long socketsMiddle = openSockets();
      long heapMiddle = heapAfterGc();
      run(store, middle, OPERATIONS, values);
      int threadsEnd = ManagementFactory.getThreadMXBean().getThreadCount();
      long socketsEnd = openSockets();
      long heapEnd = heapAfterGc();
      System.out.printf(
          "bounded resources over %d operations: threads %d -> %d -> %d, sockets %d -> %d,"
              + " heap %d -> %d KiB%n",
          OPERATIONS,
          threadsStart,
          threadsMiddle,
          threadsEnd,
          socketsMiddle,
          socketsEnd,
          heapMiddle / 1024,
          heapEnd / 1024);
      // Pools, not per-request resources: fixed allowances, whatever the number of operations.
      assertThat(threadsEnd).as("live threads").isLessThanOrEqualTo(threadsStart + 16);
      // A leak of one connection per request would add thousands over the 4,500 operations of
      // the second half; the pools move by tens (seen: +37 and -28 in two runs).
      assertThat(socketsEnd)
          .as("open sockets, second half")
          .isLessThanOrEqualTo(socketsMiddle + 128);
      assertThat(heapEnd)
          .as("retained heap, second half")
          .isLessThan(heapMiddle + 32L * 1024 * 1024);
      assertThat(store.blocking().history("res/0", java.util.Optional.empty(), 10).versions())
          .isNotEmpty();
    }
  }
}
