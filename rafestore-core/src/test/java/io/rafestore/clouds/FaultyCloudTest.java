package io.rafestore.clouds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.FaultyCloud.Operation;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class FaultyCloudTest {
  private static final ObjectKey KEY = ObjectKey.of("k");
  private static final byte[] VALUE = "value".getBytes(StandardCharsets.UTF_8);

  private final VirtualScheduler clock = new VirtualScheduler();
  private final MemoryCloud mem = new MemoryCloud("p2");
  private final FaultyCloud cloud = new FaultyCloud(mem, clock, 7);

  private static CloudException failure(CompletableFuture<?> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.join();
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(CloudException.class);
      return (CloudException) e.getCause();
    }
    throw new AssertionError("not failed");
  }

  @Test
  void healthyCloudPassesCallsThrough() {
    cloud.put(KEY, VALUE).join();

    assertThat(cloud.get(KEY).join()).isEqualTo(VALUE);
    assertThat(cloud.mode()).isEqualTo(FaultyCloud.Mode.HEALTHY);
    assertThat(cloud.id()).isEqualTo("p2");
  }

  @Test
  void crashedCloudFailsEveryCallUnavailableWithoutReachingTheCloud() {
    cloud.crash();

    CloudException e = failure(cloud.put(KEY, VALUE));
    assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
    assertThat(e.cloudId()).isEqualTo("p2");
    assertThat(e.isRetryable()).isTrue();
    assertThat(failure(cloud.get(KEY)).kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
    assertThat(failure(cloud.delete(KEY)).kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
    assertThat(failure(cloud.list("")).kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
    assertThat(mem.size()).isZero();
  }

  @Test
  void healingRestoresService() {
    cloud.crash();
    failure(cloud.put(KEY, VALUE));
    cloud.heal();

    cloud.put(KEY, VALUE).join();
    assertThat(cloud.get(KEY).join()).isEqualTo(VALUE);
  }

  @Test
  void flakyCloudFailsAboutTheGivenFractionRepeatably() {
    List<Boolean> first = outcomes(11);
    List<Boolean> again = outcomes(11);
    List<Boolean> other = outcomes(12);

    long failures = first.stream().filter(failed -> failed).count();
    assertThat(failures).isBetween(200L, 400L); // p = 0.3 of 1000, with room for chance
    assertThat(again).isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
  }

  private static List<Boolean> outcomes(long seed) {
    FaultyCloud flaky = new FaultyCloud(new MemoryCloud("f"), new VirtualScheduler(), seed);
    flaky.failFraction(0.3);
    List<Boolean> out = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      out.add(flaky.put(KEY, VALUE).isCompletedExceptionally());
    }
    return out;
  }

  @Test
  void failFractionExtremesAndValidation() {
    cloud.failFraction(0);
    for (int i = 0; i < 100; i++) {
      cloud.put(KEY, VALUE).join();
    }
    cloud.failFraction(1);
    for (int i = 0; i < 100; i++) {
      failure(cloud.get(KEY));
    }
    assertThatThrownBy(() -> cloud.failFraction(1.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("failure fraction must be in [0, 1]");
  }

  @Test
  void hungCallNeverCompletesUntilCancelledAndThenReleasesEverything() {
    cloud.hang();

    CompletableFuture<Void> put = cloud.put(KEY, VALUE);
    clock.advance(Duration.ofDays(365));
    assertThat(put).isNotDone();
    assertThat(cloud.hangingCalls()).isEqualTo(1);

    put.cancel(true);

    assertThat(put).isCancelled();
    assertThat(cloud.hangingCalls()).isZero();
    assertThat(clock.pending()).isZero();
    assertThat(mem.size()).isZero();
  }

  @Test
  void healingDoesNotReleaseHungCallsButCloseFailsThem() {
    cloud.hang();
    CompletableFuture<byte[]> get = cloud.get(KEY);
    cloud.heal();
    assertThat(get).isNotDone();

    cloud.close();

    assertThat(failure(get).kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
    assertThat(cloud.hangingCalls()).isZero();
  }

  @Test
  void slowCloudAnswersAfterTheExtraDelay() {
    cloud.slowDown(Duration.ofSeconds(2));

    CompletableFuture<Void> put = cloud.put(KEY, VALUE);
    clock.advance(Duration.ofMillis(1999));
    assertThat(put).isNotDone();
    assertThat(mem.size()).isZero();
    clock.advance(Duration.ofMillis(1));

    assertThat(put).isCompleted();
    assertThat(mem.size()).isEqualTo(1);
  }

  @Test
  void slowPutSendsTheBytesGivenAtCallTime() {
    cloud.slowDown(Duration.ofSeconds(1));
    byte[] data = VALUE.clone();

    CompletableFuture<Void> put = cloud.put(KEY, data);
    data[0] = 'X';
    clock.runUntilIdle();

    assertThat(put).isCompleted();
    assertThat(mem.get(KEY).join()).isEqualTo(VALUE);
  }

  @Test
  void cancellingASlowCallCancelsItsTimer() {
    cloud.slowDown(Duration.ofSeconds(5));

    CompletableFuture<Void> put = cloud.put(KEY, VALUE);
    put.cancel(true);
    clock.runUntilIdle();

    assertThat(clock.pending()).isZero();
    assertThat(mem.size()).isZero();
  }

  @Test
  void faultsCanBeLimitedToSomeOperations() {
    cloud.affecting(Operation.GET, Operation.LIST).crash();

    cloud.put(KEY, VALUE).join();
    failure(cloud.get(KEY));
    failure(cloud.list(""));
    cloud.delete(KEY).join();
    assertThat(mem.size()).isZero();

    cloud.affectingAll();
    failure(cloud.put(KEY, VALUE));
  }

  @Test
  void modeChangesApplyToLaterCallsOnly() {
    cloud.slowDown(Duration.ofSeconds(1));
    CompletableFuture<Void> inFlight = cloud.put(KEY, VALUE);
    cloud.crash();
    clock.runUntilIdle();

    assertThat(inFlight).isCompleted();
    failure(cloud.get(KEY));
  }

  @Test
  void cancellingASlowCallThatHasStartedCancelsTheCloudsFuture() {
    PendingCloud pending = new PendingCloud();
    FaultyCloud slow = new FaultyCloud(pending, clock, 1).slowDown(Duration.ofSeconds(1));

    CompletableFuture<byte[]> get = slow.get(KEY);
    clock.runUntilIdle();
    assertThat(pending.calls).hasSize(1);
    get.cancel(true);

    assertThat(pending.calls.get(0)).isCancelled();
  }

  @Test
  void healthyCallsRelayCancellationToTheCloud() {
    PendingCloud pending = new PendingCloud();
    FaultyCloud healthy = new FaultyCloud(pending, clock, 1);

    healthy.list("").cancel(true);

    assertThat(pending.calls.get(0)).isCancelled();
  }
}
