package io.rafestore.internal.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudStats;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class AccountingCloudTest {
  private static final ObjectKey KEY = ObjectKey.of("k");

  private final VirtualScheduler clock = new VirtualScheduler();
  private final MemoryCloud mem = new MemoryCloud("p0");
  private final FaultyCloud faulty = new FaultyCloud(mem, clock, 1);
  private final AccountingCloud cloud = new AccountingCloud(faulty);

  @Test
  void countsRequestsByKindAndPayloadBytes() {
    cloud.put(KEY, new byte[100]).join();
    cloud.put(ObjectKey.of("k2"), new byte[7]).join();
    cloud.get(KEY).join();
    cloud.get(KEY, Optional.of(ByteRange.of(90, 50))).join();
    cloud.list("").join();
    cloud.delete(KEY).join();

    assertThat(cloud.snapshot()).isEqualTo(new CloudStats("p0", 2, 2, 1, 1, 107, 110, 0, 0));
    assertThat(cloud.snapshot().requests()).isEqualTo(6);
  }

  @Test
  void failuresCountAsErrors() {
    cloud.get(KEY); // NOT_FOUND
    faulty.crash();
    cloud.put(KEY, new byte[5]);
    cloud.list("");

    CloudStats s = cloud.snapshot();
    assertThat(s.errors()).isEqualTo(3);
    assertThat(s.cancelled()).isZero();
    assertThat(s.puts()).isEqualTo(1);
    assertThat(s.bytesUp()).isEqualTo(5); // sent, even if the cloud failed
    assertThat(s.bytesDown()).isZero();
  }

  @Test
  void cancellationIsCountedAndReachesTheDriver() {
    faulty.hang();
    CompletableFuture<byte[]> get = cloud.get(KEY);
    assertThat(faulty.hangingCalls()).isEqualTo(1);

    get.cancel(true);

    assertThat(faulty.hangingCalls()).isZero();
    CloudStats s = cloud.snapshot();
    assertThat(s.cancelled()).isEqualTo(1);
    assertThat(s.errors()).isZero();
    assertThat(s.gets()).isEqualTo(1);
  }

  @Test
  void cancellingASlowGetStopsItBeforeAnyBytesArrive() {
    mem.put(KEY, new byte[1000]).join();
    WanEmulator net = WanEmulator.builder(clock).build();
    AccountingCloud wan =
        new AccountingCloud(net.wrap(mem, WanEmulator.Link.rtt(Duration.ofMillis(100))));

    CompletableFuture<byte[]> get = wan.get(KEY);
    clock.advance(Duration.ofMillis(10));
    get.cancel(true);
    clock.runUntilIdle();

    assertThat(wan.snapshot()).isEqualTo(new CloudStats("p0", 0, 1, 0, 0, 0, 0, 1, 0));
  }

  @Test
  void bytesDownAreCountedWhenTheAnswerArrives() {
    mem.put(KEY, new byte[42]).join();
    faulty.slowDown(Duration.ofSeconds(1));

    CompletableFuture<byte[]> get = cloud.get(KEY);
    assertThat(cloud.snapshot().bytesDown()).isZero();
    clock.runUntilIdle();

    assertThat(get).isCompleted();
    assertThat(cloud.snapshot().bytesDown()).isEqualTo(42);
  }

  @Test
  void idAndCloseReachTheDriver() {
    assertThat(cloud.id()).isEqualTo("p0");
    cloud.close();

    assertThat(mem.put(KEY, new byte[1])).isCompletedExceptionally();
  }
}
