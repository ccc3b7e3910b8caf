package io.rafestore.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CancelledRequestTest {
  private static final long LIMIT = 1024;

  private static CancelledRequest started(long bytes, AtomicInteger aborts) {
    CancelledRequest r = new CancelledRequest(LIMIT, bytes);
    r.started(aborts::incrementAndGet);
    return r;
  }

  @Test
  void smallKnownRequestFinishesLargeOneIsAborted() {
    AtomicInteger aborts = new AtomicInteger();
    started(LIMIT, aborts).cancel();
    assertThat(aborts).hasValue(0);
    started(LIMIT + 1, aborts).cancel();
    assertThat(aborts).hasValue(1);
  }

  @Test
  void zeroLimitAbortsEveryCancelledRequestWithABody() {
    AtomicInteger aborts = new AtomicInteger();
    CancelledRequest r = new CancelledRequest(0, 1);
    r.started(aborts::incrementAndGet);
    r.cancel();
    assertThat(aborts).hasValue(1);
  }

  @Test
  void unboundedRequestIsAlwaysAborted() {
    AtomicInteger aborts = new AtomicInteger();
    started(CancelledRequest.UNBOUNDED, aborts).cancel();
    assertThat(aborts).hasValue(1);
  }

  @Test
  void cancelBeforeStartAbortsWhenStarted() {
    AtomicInteger aborts = new AtomicInteger();
    CancelledRequest large = new CancelledRequest(LIMIT, LIMIT * 10);
    large.cancel();
    assertThat(aborts).hasValue(0);
    large.started(aborts::incrementAndGet);
    assertThat(aborts).hasValue(1);
    CancelledRequest small = new CancelledRequest(LIMIT, 10);
    small.cancel();
    small.started(aborts::incrementAndGet);
    assertThat(aborts).hasValue(1);
  }

  @Test
  void unknownSizeWaitsForTheHeadersToDecide() {
    AtomicInteger aborts = new AtomicInteger();
    CancelledRequest small = started(CancelledRequest.UNKNOWN, aborts);
    small.cancel();
    assertThat(aborts).as("no abort before the size is known").hasValue(0);
    assertThat(small.learned(100)).as("small body: finish it").isTrue();

    CancelledRequest large = started(CancelledRequest.UNKNOWN, aborts);
    large.cancel();
    assertThat(large.learned(LIMIT + 1)).as("large body: the caller stops it").isFalse();

    CancelledRequest noLength = started(CancelledRequest.UNKNOWN, aborts);
    noLength.cancel();
    assertThat(noLength.learned(CancelledRequest.UNBOUNDED)).isFalse();
    assertThat(aborts).hasValue(0);
  }

  @Test
  void learnedSizeDecidesALaterCancel() {
    AtomicInteger aborts = new AtomicInteger();
    CancelledRequest large = started(CancelledRequest.UNKNOWN, aborts);
    assertThat(large.learned(LIMIT * 4)).as("not cancelled: go on").isTrue();
    large.cancel();
    assertThat(aborts).hasValue(1);
    CancelledRequest small = started(CancelledRequest.UNKNOWN, aborts);
    assertThat(small.learned(3)).isTrue();
    small.cancel();
    assertThat(aborts).hasValue(1);
  }

  @Test
  void rangeIsACapNotTheSize() {
    assertThat(CancelledRequest.forRange(LIMIT, LIMIT)).isEqualTo(LIMIT);
    assertThat(CancelledRequest.forRange(LIMIT, LIMIT + 1)).isEqualTo(CancelledRequest.UNKNOWN);
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> new CancelledRequest(-1, 0)).hasMessageContaining("limit");
    assertThatThrownBy(() -> new CancelledRequest(0, -2)).hasMessageContaining("bytes");
    assertThatThrownBy(() -> new CancelledRequest(0, 0).learned(-1)).hasMessageContaining("size");
  }
}
