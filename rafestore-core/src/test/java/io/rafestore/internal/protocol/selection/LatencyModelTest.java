package io.rafestore.internal.protocol.selection;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.internal.protocol.config.Settings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The latency model alone, on virtual time: EWMA, percentiles, size awareness, decay. */
class LatencyModelTest {
  final VirtualScheduler time = new VirtualScheduler();

  LatencyModel model(long... hintsMillis) {
    List<Settings.CloudSetting> clouds = new java.util.ArrayList<>();
    for (int i = 0; i < hintsMillis.length; i++) {
      clouds.add(
          new Settings.CloudSetting(
              new MemoryCloud("p" + i),
              CloudRole.DATA_AND_METADATA,
              Duration.ofMillis(hintsMillis[i])));
    }
    return new LatencyModel(time, clouds);
  }

  static long ms(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }

  @Test
  void ewmaMovesByAlphaPerSample() {
    LatencyModel m = model(10);
    m.record("p0", 10, ms(100)); // the first sample replaces the hint
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(100));
    m.record("p0", 10, ms(200)); // 0.7 * 100 + 0.3 * 200
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(130));
  }

  @Test
  void percentilesComeFromTheRecentWindow() {
    LatencyModel m = model(10);
    for (int i = 1; i <= 10; i++) {
      m.record("p0", 16, ms(i * 10L));
    }
    LatencyModel.Snapshot s = m.snapshot("p0");
    assertThat(s.rttMedian()).isEqualTo(Duration.ofMillis(50));
    assertThat(s.rttP90()).isEqualTo(Duration.ofMillis(90));
    // Only the last WINDOW samples count: old outliers leave the window.
    for (int i = 0; i < LatencyModel.WINDOW; i++) {
      m.record("p0", 16, ms(7));
    }
    assertThat(m.snapshot("p0").rttP90()).isEqualTo(Duration.ofMillis(7));
  }

  @Test
  void orderDependsOnSize() {
    // p0: near but thin (5 ms, 1 MB/s); p1: far but fat (100 ms, 100 MB/s).
    LatencyModel m = model(5, 100);
    m.record("p0", 16, ms(5));
    m.record("p1", 16, ms(100));
    m.record("p0", 1_000_000, ms(5 + 1000));
    m.record("p1", 1_000_000, ms(100 + 10));
    assertThat(m.fastestFirst(List.of("p0", "p1"), 1024)).containsExactly("p0", "p1");
    assertThat(m.fastestFirst(List.of("p0", "p1"), 4_000_000)).containsExactly("p1", "p0");
    // Predicted completion = RTT + size / bandwidth.
    assertThat(m.predict("p0", 2_000_000)).isEqualTo(Duration.ofMillis(2005));
    assertThat(m.snapshot("p0").bytesPerSecond()).isEqualTo(1e6);
  }

  @Test
  void staleEstimatesDriftBackToThePrior() {
    LatencyModel m = model(50);
    m.record("p0", 16, ms(500));
    m.record("p0", 1 << 20, ms(500) + 1_000_000_000L); // 1 MiB/s
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(500));
    time.advance(LatencyModel.STALE_AFTER); // still trusted
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(500));
    time.advance(LatencyModel.HALF_LIFE); // half way back to the 50 ms hint
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(275));
    double halfBw = (m.snapshot("p0").bytesPerSecond());
    assertThat(halfBw)
        .isCloseTo(
            ((1 << 20) + LatencyModel.DEFAULT_BYTES_PER_NANO * 1e9) / 2,
            org.assertj.core.data.Offset.offset(1.0));
    time.advance(LatencyModel.HALF_LIFE.multipliedBy(20)); // forgotten
    assertThat(m.predict("p0", 0).toMillis()).isEqualTo(50);
    // A fresh sample is trusted at once again (blended with the decayed value).
    m.record("p0", 16, ms(500));
    assertThat(m.predict("p0", 0).toMillis()).isEqualTo(185);
  }

  @Test
  void partsBelow64KiBMeasureTheBandwidthNotTheRoundTrip() {
    // A 315 ms cloud at 2 Mbit/s (250,000 B/s): a 16 KiB part takes 315 + 65.5 ms. Before, every
    // request below 64 KiB was a round-trip sample: the bandwidth stayed the default 100 Mbit/s and
    // the round trip took the transfer in.
    LatencyModel m = model(315);
    for (int i = 0; i < 5; i++) {
      m.record("p0", 500, ms(315)); // log reads: round trips
    }
    long part = 16 * 1024;
    for (int i = 0; i < 5; i++) {
      time.advance(Duration.ofSeconds(1));
      m.record("p0", part, ms(315) + part * 4_000L); // 4 us per byte = 250,000 B/s
    }
    LatencyModel.Snapshot s = m.snapshot("p0");
    assertThat(s.rtt()).isEqualTo(Duration.ofMillis(315));
    assertThat(s.bytesPerSecond())
        .isCloseTo(250_000, org.assertj.core.data.Percentage.withPercentage(1));
  }

  @Test
  void transfersThatSharedTheLinkMeasureTheLinkNotTheirShare() {
    // Eight 16 KiB parts sent together to a 2 Mbit/s link share it and all end 8 x 65.5 ms after
    // the round trip: each got an eighth of the link. Taken one by one (bytes over their time
    // beyond the round trip) they measured 250 kbit/s; as one busy period, 2 Mbit/s.
    LatencyModel m = model(315);
    m.record("p0", 500, ms(315));
    long part = 16 * 1024;
    for (int i = 0; i < 8; i++) {
      m.sent("p0", part);
    }
    time.advance(Duration.ofNanos(ms(315) + 8 * part * 4_000L));
    for (int i = 0; i < 8; i++) {
      m.ended("p0", part);
      m.record("p0", part, ms(315) + 8 * part * 4_000L);
    }
    assertThat(m.snapshot("p0").bytesPerSecond())
        .isCloseTo(250_000, org.assertj.core.data.Percentage.withPercentage(1));
  }

  @Test
  void queueAwarePredictionAddsTheBytesInFlight() {
    LatencyModel m = model(5);
    m.record("p0", 16, ms(5));
    m.record("p0", 1_000_000, ms(5 + 1000)); // 1 MB/s
    // Idle: the same as predict.
    assertThat(m.predictQueued("p0", 1000)).isEqualTo(m.predict("p0", 1000));
    m.sent("p0", 2_000_000);
    m.sent("p0", 16);
    assertThat(m.requestsInFlight("p0")).isEqualTo(2);
    assertThat(m.bytesInFlight("p0")).isEqualTo(2_000_016);
    // RTT + (bytes ahead + mine) / bandwidth = 5 ms + (2,000,016 + 1,000) B / (1 MB/s).
    assertThat(m.predictQueued("p0", 1000).toNanos()).isEqualTo(ms(5) + 2_001_016_000L);
    // The plain prediction (writes, layouts) ignores the queue.
    assertThat(m.predict("p0", 1000).toNanos()).isEqualTo(ms(5) + 1_000_000L);
    m.ended("p0", 2_000_000);
    m.ended("p0", 16);
    assertThat(m.requestsInFlight("p0")).isZero();
    assertThat(m.predictQueued("p0", 1000)).isEqualTo(m.predict("p0", 1000));
  }

  @Test
  void requestsWaitingInTheFairQueueAreAheadToo() {
    LatencyModel m = model(5);
    m.record("p0", 16, ms(5));
    m.record("p0", 1_000_000, ms(5 + 1000)); // 1 MB/s
    io.rafestore.internal.protocol.fairness.FairQueue q =
        new io.rafestore.internal.protocol.fairness.FairQueue(
            io.rafestore.Fairness.on().withCloudConcurrency(1),
            t -> io.rafestore.TenantShare.DEFAULT,
            time,
            (t, n) -> {},
            (r, b) -> m.waiting("p0", r, b));
    java.util.concurrent.CompletableFuture<Void> first =
        new java.util.concurrent.CompletableFuture<>();
    q.submit("a", 16, 16, () -> first, r -> 0);
    // Dispatched at once: nothing waits.
    assertThat(m.requestsWaiting("p0")).isZero();
    assertThat(m.predictQueued("p0", 1000)).isEqualTo(m.predict("p0", 1000));
    q.submit(
        "b",
        2_000_000,
        2_000_000,
        () -> new java.util.concurrent.CompletableFuture<Void>(),
        r -> 0);
    assertThat(m.requestsWaiting("p0")).isEqualTo(1);
    assertThat(m.predictQueued("p0", 1000).toNanos()).isEqualTo(ms(5) + 2_001_000_000L);
    first.complete(null); // b is dispatched: no longer waiting
    assertThat(m.requestsWaiting("p0")).isZero();
    assertThat(m.predictQueued("p0", 1000)).isEqualTo(m.predict("p0", 1000));
  }

  /** A driver whose every get and put returns the next future the test hands it, or throws. */
  static final class Controlled extends io.rafestore.spi.ForwardingCloud {
    final java.util.ArrayDeque<java.util.concurrent.CompletableFuture<?>> answers =
        new java.util.ArrayDeque<>();
    boolean throwNext;

    Controlled() {
      super(new MemoryCloud("p0"));
    }

    @SuppressWarnings("unchecked")
    private <T> java.util.concurrent.CompletableFuture<T> next() {
      if (throwNext) {
        throwNext = false;
        throw new IllegalStateException("driver threw");
      }
      return (java.util.concurrent.CompletableFuture<T>) answers.removeFirst();
    }

    @Override
    public java.util.concurrent.CompletableFuture<byte[]> get(
        io.rafestore.spi.ObjectKey key, java.util.Optional<io.rafestore.spi.ByteRange> range) {
      return next();
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> put(
        io.rafestore.spi.ObjectKey key, byte[] data) {
      return next();
    }
  }

  @Test
  void requestsInFlightAreCountedUntilAnsweredFailedOrCancelledWithoutLeaks() {
    LatencyModel m = model(5);
    Controlled driver = new Controlled();
    MeasuredCloud cloud = new MeasuredCloud(driver, m);
    io.rafestore.spi.ObjectKey k = io.rafestore.spi.ObjectKey.of("d/x");
    var ok = new java.util.concurrent.CompletableFuture<byte[]>();
    var failing = new java.util.concurrent.CompletableFuture<byte[]>();
    var hanging = new java.util.concurrent.CompletableFuture<byte[]>();
    var putting = new java.util.concurrent.CompletableFuture<Void>();
    driver.answers.add(ok);
    driver.answers.add(failing);
    driver.answers.add(hanging);
    driver.answers.add(putting);

    var a = MeasuredCloud.get(cloud, k, java.util.Optional.empty(), 1000);
    var b = cloud.get(k, java.util.Optional.of(io.rafestore.spi.ByteRange.of(0, 300)));
    var c = MeasuredCloud.get(cloud, k, java.util.Optional.empty(), 5000);
    var d = cloud.put(k, new byte[70]);
    assertThat(m.requestsInFlight("p0")).isEqualTo(4);
    assertThat(m.bytesInFlight("p0")).isEqualTo(1000 + 300 + 5000 + 70);

    ok.complete(new byte[1000]);
    assertThat(m.requestsInFlight("p0")).isEqualTo(3);
    failing.completeExceptionally(new RuntimeException("500"));
    assertThat(m.requestsInFlight("p0")).isEqualTo(2);
    assertThat(m.bytesInFlight("p0")).isEqualTo(5070);
    c.cancel(true); // the caller gives up: counted out at once, and the driver's request cancelled
    assertThat(hanging).isCancelled();
    assertThat(m.requestsInFlight("p0")).isEqualTo(1);
    d.cancel(true);
    assertThat(m.requestsInFlight("p0")).isZero();
    assertThat(m.bytesInFlight("p0")).isZero();
    assertThat(a).isCompleted();
    assertThat(b).isCompletedExceptionally();

    // A driver that throws instead of returning a future leaves nothing counted.
    driver.throwNext = true;
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> MeasuredCloud.get(cloud, k, java.util.Optional.empty(), 9))
        .isInstanceOf(IllegalStateException.class);
    driver.throwNext = true;
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> cloud.put(k, new byte[9]))
        .isInstanceOf(IllegalStateException.class);
    assertThat(m.requestsInFlight("p0")).isZero();
    assertThat(m.bytesInFlight("p0")).isZero();
  }

  @Test
  void aDecoratorAboveTheMeasurementStillPassesTheExpectedSize() {
    LatencyModel m = model(5);
    Controlled driver = new Controlled();
    MeasuredCloud cloud = new MeasuredCloud(driver, m);
    var hanging = new java.util.concurrent.CompletableFuture<byte[]>();
    driver.answers.add(hanging);
    io.rafestore.spi.CloudDriver above = new io.rafestore.spi.ForwardingCloud(cloud) {};
    var f =
        MeasuredCloud.get(
            above, io.rafestore.spi.ObjectKey.of("d/x"), java.util.Optional.empty(), 4096);
    assertThat(m.bytesInFlight("p0")).isEqualTo(4096);
    f.cancel(true);
    assertThat(m.bytesInFlight("p0")).isZero();
    assertThat(m.requestsInFlight("p0")).isZero();
  }
}
