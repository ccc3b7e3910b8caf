package io.rafestore;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link RafeStore.Builder#closeGrace}: close() waits, up to the grace, for the log puts a
 * completed write left running to the cloud beyond its quorum, and no longer.
 */
class CloseGraceTest {
  /** A cloud whose puts wait until {@link #release} completes. */
  static final class HeldPuts extends ForwardingCloud {
    final CompletableFuture<Void> release = new CompletableFuture<>();

    HeldPuts(CloudDriver delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
      return release.thenCompose(v -> super.put(key, data));
    }
  }

  private final MemoryCloud slowMemory = new MemoryCloud("c3");
  private final HeldPuts slow = new HeldPuts(slowMemory);

  private RafeStore store(Duration grace) {
    RafeStore.Builder b = RafeStore.builder().writer("alice", SigningKeys.generate());
    for (int i = 0; i < 3; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    // Metadata only, so the write's data never waits for it: only writeM's put to it is held.
    b.cloud(slow, CloudRole.METADATA_ONLY);
    return b.closeGrace(grace).build();
  }

  private static void write(RafeStore s) throws Exception {
    s.blocking().write("k", "v".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void closeWaitsForTheLogToReachTheLastCloud() throws Exception {
    RafeStore s = store(Duration.ofSeconds(30));
    write(s); // completed on c0..c2; c3's put is held
    assertThat(slowMemory.size()).isZero();
    CompletableFuture<Void> closed = CompletableFuture.runAsync(s::close);
    Thread.sleep(200);
    assertThat(closed).as("close waits while c3's put runs").isNotDone();
    slow.release.complete(null);
    closed.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(slowMemory.size()).as("c3 received the log before close returned").isPositive();
  }

  @Test
  void withoutAGraceCloseDoesNotWait() throws Exception {
    RafeStore s = store(Duration.ZERO);
    write(s);
    long start = System.nanoTime();
    s.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    slow.release.complete(null);
    assertThat(slowMemory.size()).as("the held put reached a closed cloud").isZero();
  }

  @Test
  void closeWaitsNoLongerThanTheGrace() throws Exception {
    RafeStore s = store(Duration.ofMillis(300));
    write(s);
    long start = System.nanoTime();
    s.close(); // c3's put never completes
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(took).isLessThan(Duration.ofSeconds(10));
    assertThat(slowMemory.size()).isZero();
  }
}
