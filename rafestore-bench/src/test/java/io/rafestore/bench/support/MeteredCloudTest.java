package io.rafestore.bench.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The two meters PaperBench puts on each cloud's path, on virtual time. */
class MeteredCloudTest {

  @Test
  void conditionalPutsAreOfferedAsTheDelegatesAndCountedInFlightAsPuts() {
    CompletableFuture<Boolean> answer = new CompletableFuture<>();
    List<Optional<String>> asked = new ArrayList<>();
    MeteredCloud metered =
        new MeteredCloud(
            new ForwardingCloud(new MemoryCloud("c")) {
              @Override
              public boolean conditionalPuts() {
                return true;
              }

              @Override
              public CompletableFuture<Boolean> putIfMatch(
                  ObjectKey key, byte[] data, Optional<String> ifMatch) {
                asked.add(ifMatch);
                return answer;
              }
            });
    assertThat(metered.conditionalPuts()).isTrue();
    CompletableFuture<Boolean> put =
        metered.putIfMatch(ObjectKey.of("m/k/w"), new byte[10], Optional.of("t"));
    assertThat(asked).containsExactly(Optional.of("t"));
    assertThat(metered.inFlight()).isEqualTo(1);
    answer.complete(false);
    assertThat(put.join()).isFalse();
    assertThat(metered.inFlight()).isZero();
    assertThat(metered.getsServed()).isZero();

    // Over a driver without them (a decorator that keeps the default), none are offered.
    assertThat(new MeteredCloud(new ForwardingCloud(new MemoryCloud("plain")) {}).conditionalPuts())
        .isFalse();
  }

  @Test
  void egressCountsWhatTheCloudSentEvenIfTheClientCancelledOnTheWay() {
    VirtualScheduler clock = new VirtualScheduler();
    WanEmulator wan = WanEmulator.builder(clock).build();
    MeteredCloud atCloud = new MeteredCloud(new MemoryCloud("c"));
    MeteredCloud atClient =
        new MeteredCloud(
            wan.wrap(
                atCloud,
                WanEmulator.Link.rtt(Duration.ofMillis(100)).bandwidthBitsPerSecond(8_000_000)));
    ObjectKey key = ObjectKey.of("m/k/w");
    CompletableFuture<Void> put = atClient.put(key, new byte[100_000]);
    assertThat(atClient.inFlight()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(1));
    assertThat(put).isCompleted();
    assertThat(atClient.inFlight()).isZero();

    // Reached the cloud at 50 ms; its 100 kB take 100 ms to come down: cancelled at 60 ms, the
    // cloud has served it all the same.
    CompletableFuture<byte[]> late = atClient.get(key, Optional.empty());
    clock.advance(Duration.ofMillis(60));
    late.cancel(true);
    assertThat(atClient.inFlight()).isZero();
    assertThat(atCloud.bytesServed()).isEqualTo(100_000);
    assertThat(atCloud.getsServed()).isEqualTo(1);

    // Cancelled at 20 ms, before it reached the cloud: nothing was sent.
    CompletableFuture<byte[]> early = atClient.get(key, Optional.empty());
    clock.advance(Duration.ofMillis(20));
    early.cancel(true);
    clock.advance(Duration.ofSeconds(1));
    assertThat(atCloud.bytesServed()).isEqualTo(100_000);

    // Answered: counted once more.
    CompletableFuture<byte[]> ok = atClient.get(key, Optional.empty());
    clock.advance(Duration.ofSeconds(1));
    assertThat(ok.join()).hasSize(100_000);
    assertThat(atCloud.bytesServed()).isEqualTo(200_000);
    assertThat(atClient.inFlight()).isZero();
  }
}
