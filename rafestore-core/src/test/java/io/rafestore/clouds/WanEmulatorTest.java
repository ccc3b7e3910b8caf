package io.rafestore.clouds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.rafestore.clouds.WanEmulator.EmulatedCloud;
import io.rafestore.clouds.WanEmulator.Link;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class WanEmulatorTest {
  private static final int MB = 1_000_000;
  private static final long MBIT = 1_000_000;
  private static final ObjectKey KEY = ObjectKey.of("k");

  private final VirtualScheduler clock = new VirtualScheduler();

  /** Seconds of virtual time at which {@code f} completed, filled in when it does. */
  private static final class Done {
    double seconds = Double.NaN;
  }

  private Done timed(CompletableFuture<?> f) {
    Done d = new Done();
    f.whenComplete((r, e) -> d.seconds = clock.elapsed().toNanos() / 1e9);
    return d;
  }

  @Test
  void tenConcurrentUploadsShareTheClientUplink() {
    WanEmulator net = WanEmulator.builder(clock).uplinkBitsPerSecond(100 * MBIT).build();
    List<MemoryCloud> clouds = new ArrayList<>();
    List<Done> done = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      MemoryCloud mem = new MemoryCloud("p" + i);
      clouds.add(mem);
      CloudDriver cloud =
          net.wrap(mem, Link.rtt(Duration.ofMillis(20)).bandwidthBitsPerSecond(1000 * MBIT));
      done.add(timed(cloud.put(KEY, new byte[MB])));
    }

    clock.runUntilIdle();

    // 10 x 8 Mbit through 100 Mbit/s: 0.8 s, plus one round trip; each cloud alone would be 8 ms.
    for (Done d : done) {
      assertThat(d.seconds).isCloseTo(0.82, within(1e-6));
    }
    for (MemoryCloud mem : clouds) {
      assertThat(mem.storedBytes()).isEqualTo(MB);
    }
    assertThat(net.activeFlows()).isZero();
    assertThat(clock.pending()).isZero();
  }

  @Test
  void twoConcurrentUploadsTakeTwiceAsLongAsOne() {
    WanEmulator net = WanEmulator.builder(clock).uplinkBitsPerSecond(8 * MBIT).build();
    CloudDriver a = net.wrap(new MemoryCloud("a"), Link.local());
    CloudDriver b = net.wrap(new MemoryCloud("b"), Link.local());

    Done alone = timed(a.put(KEY, new byte[MB]));
    clock.runUntilIdle();
    double start = clock.elapsed().toNanos() / 1e9;
    Done first = timed(a.put(KEY, new byte[MB]));
    Done second = timed(b.put(KEY, new byte[MB]));
    clock.runUntilIdle();

    assertThat(alone.seconds).isCloseTo(1.0, within(1e-6));
    assertThat(first.seconds - start).isCloseTo(2.0, within(1e-6));
    assertThat(second.seconds - start).isCloseTo(2.0, within(1e-6));
  }

  @Test
  void getOfOneMegabyteOverEightMegabitLinkTakesOneSecondPlusRtt() throws Exception {
    WanEmulator net = WanEmulator.builder(clock).build();
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(KEY, new byte[MB]).join();
    CloudDriver cloud =
        net.wrap(mem, Link.rtt(Duration.ofMillis(100)).bandwidthBitsPerSecond(8 * MBIT));

    CompletableFuture<byte[]> get = cloud.get(KEY);
    Done d = timed(get);
    byte[] bytes = clock.runUntilDone(get);

    assertThat(bytes).hasSize(MB);
    assertThat(d.seconds).isCloseTo(1.1, within(1e-6));
  }

  @Test
  void rangedGetPaysOnlyForTheRange() throws Exception {
    WanEmulator net = WanEmulator.builder(clock).downlinkBitsPerSecond(8 * MBIT).build();
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(KEY, new byte[MB]).join();
    CloudDriver cloud = net.wrap(mem, Link.local());

    CompletableFuture<byte[]> get = cloud.get(KEY, Optional.of(ByteRange.of(0, MB / 4)));
    Done d = timed(get);
    clock.runUntilDone(get);

    assertThat(d.seconds).isCloseTo(0.25, within(1e-6));
  }

  @Test
  void oneBytePutTakesAboutOneRoundTrip() throws Exception {
    WanEmulator net = WanEmulator.builder(clock).uplinkBitsPerSecond(100 * MBIT).build();
    CloudDriver cloud = net.wrap(new MemoryCloud("p1"), Link.rtt(Duration.ofMillis(315)));

    CompletableFuture<Void> put = cloud.put(KEY, new byte[1]);
    Done d = timed(put);
    clock.advance(Duration.ofMillis(314));
    assertThat(put).isNotDone();
    clock.runUntilDone(put);

    assertThat(d.seconds).isCloseTo(0.315, within(1e-6));
  }

  @Test
  void deleteAndListTakeOneRoundTripAndReachTheCloud() throws Exception {
    WanEmulator net = WanEmulator.builder(clock).build();
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(ObjectKey.of("a"), new byte[3]).join();
    mem.put(ObjectKey.of("b"), new byte[4]).join();
    CloudDriver cloud = net.wrap(mem, Link.rtt(Duration.ofMillis(50)));

    CompletableFuture<Void> delete = cloud.delete(ObjectKey.of("a"));
    clock.advance(Duration.ofMillis(49));
    assertThat(delete).isNotDone();
    clock.advance(Duration.ofMillis(1));
    assertThat(delete).isDone();
    CompletableFuture<List<ObjectInfo>> list = cloud.list("");

    assertThat(clock.runUntilDone(list)).containsExactly(new ObjectInfo(ObjectKey.of("b"), 4));
    assertThat(clock.elapsed()).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void bandwidthIsRedividedWhenAFlowJoins() {
    WanEmulator net = WanEmulator.builder(clock).uplinkBitsPerSecond(8 * MBIT).build();
    CloudDriver a = net.wrap(new MemoryCloud("a"), Link.local());
    CloudDriver b = net.wrap(new MemoryCloud("b"), Link.local());

    Done first = timed(a.put(KEY, new byte[MB]));
    clock.advance(Duration.ofMillis(500));
    Done second = timed(b.put(KEY, new byte[MB]));
    clock.runUntilIdle();

    // a: 4 Mbit alone, then 4 Mbit at half rate (1 s); b: 4 Mbit shared, then 4 Mbit alone.
    assertThat(first.seconds).isCloseTo(1.5, within(1e-6));
    assertThat(second.seconds).isCloseTo(2.0, within(1e-6));
  }

  @Test
  void sharingIsMaxMinFair() {
    WanEmulator net = WanEmulator.builder(clock).uplinkBitsPerSecond(10 * MBIT).build();
    CloudDriver narrow =
        net.wrap(new MemoryCloud("narrow"), Link.local().bandwidthBitsPerSecond(2 * MBIT));
    CloudDriver wide = net.wrap(new MemoryCloud("wide"), Link.local());

    Done slow = timed(narrow.put(KEY, new byte[MB]));
    Done fast = timed(wide.put(KEY, new byte[MB]));
    clock.runUntilIdle();

    // narrow is capped at 2 Mbit/s; wide gets the other 8 Mbit/s, not an equal 5.
    assertThat(fast.seconds).isCloseTo(1.0, within(1e-6));
    assertThat(slow.seconds).isCloseTo(4.0, within(1e-6));
  }

  @Test
  void uploadsAndDownloadsUseSeparateDirections() throws Exception {
    WanEmulator net =
        WanEmulator.builder(clock)
            .uplinkBitsPerSecond(8 * MBIT)
            .downlinkBitsPerSecond(8 * MBIT)
            .build();
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(ObjectKey.of("down"), new byte[MB]).join();
    CloudDriver cloud = net.wrap(mem, Link.local());

    Done up = timed(cloud.put(KEY, new byte[MB]));
    Done down = timed(cloud.get(ObjectKey.of("down")));
    clock.runUntilIdle();

    assertThat(up.seconds).isCloseTo(1.0, within(1e-6));
    assertThat(down.seconds).isCloseTo(1.0, within(1e-6));
  }

  @Test
  void slowingACloudMidFlightTakesEffectAtOnce() {
    WanEmulator net = WanEmulator.builder(clock).build();
    EmulatedCloud cloud =
        net.wrap(new MemoryCloud("p0"), Link.rtt(Duration.ZERO).bandwidthBitsPerSecond(8 * MBIT));

    Done d = timed(cloud.put(KEY, new byte[MB]));
    clock.advance(Duration.ofMillis(500));
    cloud.setLink(cloud.link().slowerBy(2));
    clock.runUntilIdle();

    assertThat(cloud.link().bandwidth()).hasValue(4 * MBIT);
    assertThat(d.seconds).isCloseTo(1.5, within(1e-6));
  }

  @Test
  void newRoundTripAppliesToLaterRequests() {
    WanEmulator net = WanEmulator.builder(clock).build();
    EmulatedCloud cloud = net.wrap(new MemoryCloud("p0"), Link.rtt(Duration.ofMillis(100)));

    cloud.setLink(cloud.link().slowerBy(10));
    Done d = timed(cloud.put(KEY, new byte[1]));
    clock.runUntilIdle();

    assertThat(cloud.link().roundTripTime()).isEqualTo(Duration.ofSeconds(1));
    assertThat(d.seconds).isCloseTo(1.0, within(1e-6));
  }

  @Test
  void cancellingAnUploadFreesItsBandwidthAndItsTimers() {
    WanEmulator net = WanEmulator.builder(clock).uplinkBitsPerSecond(8 * MBIT).build();
    MemoryCloud cancelledCloud = new MemoryCloud("a");
    CloudDriver a = net.wrap(cancelledCloud, Link.local());
    CloudDriver b = net.wrap(new MemoryCloud("b"), Link.local());

    CompletableFuture<Void> doomed = a.put(KEY, new byte[MB]);
    Done survivor = timed(b.put(KEY, new byte[MB]));
    clock.advance(Duration.ofMillis(500));
    assertThat(net.activeFlows()).isEqualTo(2);
    doomed.cancel(true);
    assertThat(net.activeFlows()).isEqualTo(1);
    clock.runUntilIdle();

    // 2 Mbit each by 0.5 s, then b's 6 Mbit alone at 8 Mbit/s.
    assertThat(survivor.seconds).isCloseTo(1.25, within(1e-6));
    assertThat(doomed).isCancelled();
    assertThat(cancelledCloud.size()).isZero();
    assertThat(net.activeFlows()).isZero();
    assertThat(clock.pending()).isZero();
  }

  @Test
  void cancellingDuringTheRoundTripNeverCallsTheCloud() {
    WanEmulator net = WanEmulator.builder(clock).build();
    MemoryCloud mem = new MemoryCloud("p0");
    CloudDriver cloud = net.wrap(mem, Link.rtt(Duration.ofMillis(200)));

    CompletableFuture<Void> put = cloud.put(KEY, new byte[10]);
    clock.advance(Duration.ofMillis(50));
    put.cancel(true);

    assertThat(clock.pending()).isZero();
    clock.runUntilIdle();
    assertThat(mem.size()).isZero();
  }

  @Test
  void cancellingWhileTheCloudWorksCancelsTheCloudsFuture() {
    WanEmulator net = WanEmulator.builder(clock).build();
    PendingCloud pending = new PendingCloud();
    CloudDriver cloud = net.wrap(pending, Link.rtt(Duration.ofMillis(100)));

    CompletableFuture<byte[]> get = cloud.get(KEY);
    clock.advance(Duration.ofMillis(60));
    assertThat(pending.calls).hasSize(1);
    get.cancel(true);

    assertThat(pending.calls.get(0)).isCancelled();
    assertThat(clock.pending()).isZero();
  }

  @Test
  void errorsOfTheCloudArriveAfterTheRoundTrip() {
    WanEmulator net = WanEmulator.builder(clock).build();
    CloudDriver cloud = net.wrap(new MemoryCloud("p3"), Link.rtt(Duration.ofMillis(80)));

    CompletableFuture<byte[]> get = cloud.get(ObjectKey.of("missing"));

    assertThatThrownBy(() -> clock.runUntilDone(get))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            CloudException.class,
            e -> assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND));
    assertThat(clock.elapsed()).isEqualTo(Duration.ofMillis(80));
  }

  @Test
  void jitterStaysWithinBoundsAndRepeatsUnderTheSameSeed() {
    List<Double> first = roundTrips(42);
    List<Double> again = roundTrips(42);
    List<Double> other = roundTrips(43);

    assertThat(first).allSatisfy(s -> assertThat(s).isBetween(0.08, 0.12));
    assertThat(first.stream().distinct().count()).isGreaterThan(40);
    assertThat(again).isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
  }

  private static List<Double> roundTrips(long seed) {
    VirtualScheduler vs = new VirtualScheduler();
    WanEmulator net = WanEmulator.builder(vs).seed(seed).build();
    CloudDriver cloud =
        net.wrap(new MemoryCloud("p0"), Link.rtt(Duration.ofMillis(100)).jitter(0.2));
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      long start = vs.nanoTime();
      CompletableFuture<Void> put = cloud.put(KEY, new byte[1]);
      vs.runUntilIdle();
      assertThat(put).isCompleted();
      out.add((vs.nanoTime() - start) / 1e9);
    }
    return out;
  }

  // ---- concurrency bound (Link.maxConcurrent) --------------------------------------------------

  private static MemoryCloud cloudWithKeys(int n) {
    MemoryCloud mem = new MemoryCloud("p0");
    for (int i = 0; i < n; i++) {
      mem.put(ObjectKey.of("k" + i), new byte[] {(byte) i}).join();
    }
    return mem;
  }

  @Test
  void aBoundedLinkServesAtMostThatManyAtOnceTheRestFirstInFirstOut() {
    WanEmulator net = WanEmulator.builder(clock).build();
    EmulatedCloud cloud =
        net.wrap(cloudWithKeys(5), Link.rtt(Duration.ofMillis(100)).maxConcurrent(2));

    List<Done> done = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      done.add(timed(cloud.get(ObjectKey.of("k" + i))));
    }
    assertThat(cloud.serving()).isEqualTo(2);
    assertThat(cloud.waiting()).isEqualTo(3);
    clock.runUntilIdle();

    // Two at a time, in the order asked: 0.1, 0.1, 0.2, 0.2, 0.3 s (unbounded: all at 0.1 s).
    assertThat(done.stream().map(d -> d.seconds).toList()).containsExactly(0.1, 0.1, 0.2, 0.2, 0.3);
    assertThat(cloud.serving()).isZero();
    assertThat(cloud.waiting()).isZero();
    assertThat(clock.pending()).isZero();
  }

  @Test
  void aSlotIsHeldWhileThePayloadFlows() {
    // 1 MB over 8 Mbit/s takes 1 s: the second put starts only when the first has answered.
    WanEmulator net = WanEmulator.builder(clock).build();
    EmulatedCloud cloud =
        net.wrap(
            new MemoryCloud("p0"),
            Link.rtt(Duration.ofMillis(100)).bandwidthBitsPerSecond(8 * MBIT).maxConcurrent(1));
    Done first = timed(cloud.put(ObjectKey.of("a"), new byte[MB]));
    Done second = timed(cloud.put(ObjectKey.of("b"), new byte[MB]));
    clock.runUntilIdle();

    assertThat(first.seconds).isCloseTo(1.1, within(1e-6));
    assertThat(second.seconds).isCloseTo(2.2, within(1e-6));
  }

  @Test
  void cancellingAWaitingRequestTakesItOutOfTheQueue() {
    WanEmulator net = WanEmulator.builder(clock).build();
    MemoryCloud mem = new MemoryCloud("p0");
    EmulatedCloud cloud = net.wrap(mem, Link.rtt(Duration.ofMillis(100)).maxConcurrent(1));

    Done first = timed(cloud.put(ObjectKey.of("a"), new byte[1]));
    CompletableFuture<Void> doomed = cloud.put(ObjectKey.of("b"), new byte[1]);
    Done third = timed(cloud.put(ObjectKey.of("c"), new byte[1]));
    assertThat(cloud.waiting()).isEqualTo(2);
    doomed.cancel(true);
    assertThat(cloud.waiting()).isEqualTo(1);
    clock.runUntilIdle();

    assertThat(first.seconds).isCloseTo(0.1, within(1e-9));
    assertThat(third.seconds).isCloseTo(0.2, within(1e-9)); // not 0.3: b no longer ahead of it
    assertThat(mem.size()).isEqualTo(2); // b never reached the cloud
    assertThat(cloud.serving()).isZero();
  }

  @Test
  void cancellingAServedRequestFreesItsSlotForTheNext() {
    WanEmulator net = WanEmulator.builder(clock).build();
    EmulatedCloud cloud =
        net.wrap(cloudWithKeys(2), Link.rtt(Duration.ofMillis(100)).maxConcurrent(1));

    CompletableFuture<byte[]> doomed = cloud.get(ObjectKey.of("k0"));
    Done next = timed(cloud.get(ObjectKey.of("k1")));
    clock.advance(Duration.ofMillis(30));
    doomed.cancel(true);
    assertThat(cloud.serving()).isEqualTo(1);
    assertThat(cloud.waiting()).isZero();
    clock.runUntilIdle();

    assertThat(next.seconds).isCloseTo(0.13, within(1e-9));
  }

  @Test
  void raisingTheBoundStartsWaitingRequestsAtOnce() {
    WanEmulator net = WanEmulator.builder(clock).build();
    Link one = Link.rtt(Duration.ofMillis(100)).maxConcurrent(1);
    EmulatedCloud cloud = net.wrap(cloudWithKeys(3), one);
    List<Done> done = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      done.add(timed(cloud.get(ObjectKey.of("k" + i))));
    }
    clock.advance(Duration.ofMillis(50));
    cloud.setLink(one.unboundedConcurrency());
    assertThat(cloud.serving()).isEqualTo(3);
    clock.runUntilIdle();

    assertThat(done.stream().map(d -> d.seconds).toList()).containsExactly(0.1, 0.15, 0.15);
  }

  @Test
  void aLongQueueOfInstantRequestsDrainsWithoutDeepRecursion() {
    // Zero round trips and a cloud that answers at once: when the one slow request ends, the
    // 50,000 behind it each complete inside the previous one's start. They must run in a loop.
    CompletableFuture<byte[]> gate = new CompletableFuture<>();
    MemoryCloud mem = cloudWithKeys(1);
    CloudDriver gated =
        new io.rafestore.spi.ForwardingCloud(mem) {
          boolean first = true;

          @Override
          public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
            if (first) {
              first = false;
              return gate;
            }
            return super.get(key, range);
          }
        };
    WanEmulator net = WanEmulator.builder(clock).build();
    EmulatedCloud cloud = net.wrap(gated, Link.local().maxConcurrent(1));
    CompletableFuture<byte[]> slow = cloud.get(ObjectKey.of("k0"));
    List<CompletableFuture<byte[]>> rest = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      rest.add(cloud.get(ObjectKey.of("k0")));
    }
    assertThat(cloud.waiting()).isEqualTo(50_000);

    gate.complete(new byte[] {7});

    assertThat(slow).isCompleted();
    assertThat(rest).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
    assertThat(cloud.serving()).isZero();
    assertThat(cloud.waiting()).isZero();
  }

  @Test
  void settingsAreValidatedWithClearMessages() {
    assertThatThrownBy(() -> Link.local().maxConcurrent(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxConcurrent must be >= 1");
    assertThat(Link.local().maxConcurrent(3).jitter(0.1).concurrencyLimit()).hasValue(3);
    assertThat(Link.local().concurrencyLimit()).isEmpty();
    assertThatThrownBy(() -> Link.rtt(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rtt must be >= 0");
    assertThatThrownBy(() -> Link.local().bandwidthBitsPerSecond(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bandwidthBitsPerSecond must be > 0");
    assertThatThrownBy(() -> Link.local().jitter(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jitter must be in [0, 1]");
    assertThatThrownBy(() -> Link.local().jitter(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Link.local().slowerBy(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slowdown factor");
    assertThatThrownBy(() -> WanEmulator.builder(clock).uplinkBitsPerSecond(-5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uplinkBitsPerSecond must be > 0");
    assertThatThrownBy(() -> WanEmulator.builder(clock).downlinkBitsPerSecond(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("downlinkBitsPerSecond must be > 0");
  }
}
