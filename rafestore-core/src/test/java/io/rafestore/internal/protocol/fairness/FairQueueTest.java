package io.rafestore.internal.protocol.fairness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rafestore.Fairness;
import io.rafestore.TenantShare;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The fair queue on virtual time: shares by weight, reservations, limits, no banked credit, the
 * byte bounds, oversize requests and cancellation. Requests are served by a fake cloud that takes a
 * fixed time per request (or never answers, for the bounds).
 */
class FairQueueTest {
  private final VirtualScheduler clock = new VirtualScheduler();
  private final Map<String, TenantShare> shares = new HashMap<>();
  private final Map<String, AtomicInteger> started = new HashMap<>();

  private FairQueue queue(Fairness fairness) {
    return new FairQueue(
        fairness, t -> shares.getOrDefault(t, TenantShare.DEFAULT), clock, (t, n) -> {});
  }

  private int started(String tenant) {
    return started.computeIfAbsent(tenant, t -> new AtomicInteger()).get();
  }

  /** Queues {@code count} requests of {@code tenant}, each served in {@code service}. */
  private void backlog(FairQueue q, String tenant, int count, long bytes, Duration service) {
    for (int i = 0; i < count; i++) {
      q.submit(
          tenant,
          bytes,
          bytes,
          () -> {
            started.computeIfAbsent(tenant, t -> new AtomicInteger()).incrementAndGet();
            CompletableFuture<Void> f = new CompletableFuture<>();
            clock.schedule(service, () -> f.complete(null));
            return f;
          },
          r -> bytes);
    }
  }

  /** A request that never ends unless the test completes it. */
  private CompletableFuture<Void> hold(
      FairQueue q, String tenant, long bytes, List<CompletableFuture<Void>> inner) {
    return q.submit(
        tenant,
        bytes,
        bytes,
        () -> {
          started.computeIfAbsent(tenant, t -> new AtomicInteger()).incrementAndGet();
          CompletableFuture<Void> f = new CompletableFuture<>();
          inner.add(f);
          return f;
        },
        r -> bytes);
  }

  private static final Duration MS = Duration.ofMillis(1);

  @Test
  void largeRequestsLeaveRoomForSmallOnes() {
    // Eight places, large requests (1 MiB) in at most half of them: a large writer with 20 parts
    // queued holds four places; a small read that arrives then goes at once, not after a part.
    FairQueue q = queue(Fairness.on().withCloudConcurrency(8));
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      hold(q, "writer", 1 << 20, parts);
    }
    assertEquals(4, started("writer"));
    assertEquals(4, q.largeInFlight());
    List<CompletableFuture<Void>> small = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      hold(q, "reader", 1024, small);
    }
    assertEquals(4, started("reader"), "small reads go at once into the places kept for them");
    // All eight places are taken: a fifth small read waits. The place a small read frees goes to
    // it, not to the writer (whose head is large, and four large are in flight).
    hold(q, "reader", 1024, small);
    assertEquals(4, started("reader"));
    small.get(0).complete(null);
    assertEquals(5, started("reader"));
    assertEquals(4, started("writer"));
    // A part that ends frees a large place: the writer's next part goes.
    parts.get(0).complete(null);
    assertEquals(5, started("writer"));
    assertEquals(4, q.largeInFlight());
  }

  @Test
  void aShareOfOneKeepsNoRoomAndAtLeastOnePlaceIsLarge() {
    FairQueue all = queue(Fairness.on().withCloudConcurrency(8).withLargeRequests(256 << 10, 1));
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      hold(all, "writer", 1 << 20, parts);
    }
    assertEquals(8, started("writer"));
    started.clear();
    FairQueue one = queue(Fairness.on().withCloudConcurrency(1).withLargeRequests(256 << 10, 0.5));
    hold(one, "writer", 1 << 20, new ArrayList<>());
    assertEquals(1, started("writer"), "max(1, floor(1 x 0.5)): a large request still goes");
    // Below the threshold a request is small, whatever its size.
    started.clear();
    FairQueue high = queue(Fairness.on().withCloudConcurrency(8).withLargeRequests(2 << 20, 0.5));
    for (int i = 0; i < 10; i++) {
      hold(high, "writer", 1 << 20, new ArrayList<>());
    }
    assertEquals(8, started("writer"));
    assertEquals(0, high.largeInFlight());
  }

  @Test
  void equalWeightsSplitOneToOne() {
    FairQueue q = queue(Fairness.on().withCloudConcurrency(4));
    backlog(q, "a", 2000, 0, MS);
    backlog(q, "b", 2000, 0, MS);
    clock.advance(Duration.ofMillis(200));
    double ratio = (double) started("a") / started("b");
    assertTrue(started("a") > 300, "a ran " + started("a"));
    assertTrue(Math.abs(ratio - 1) <= 0.05, "a:b = " + started("a") + ":" + started("b"));
  }

  @Test
  void weightsTwoToOneGiveTwoToOneWhenBothBacklogged() {
    shares.put("a", TenantShare.weight(2));
    FairQueue q = queue(Fairness.on().withCloudConcurrency(4));
    backlog(q, "a", 2000, 0, MS);
    backlog(q, "b", 2000, 0, MS);
    clock.advance(Duration.ofMillis(200));
    double ratio = (double) started("a") / started("b");
    assertTrue(Math.abs(ratio - 2) <= 0.2, "a:b = " + started("a") + ":" + started("b"));
  }

  @Test
  void weightsCountBytes() {
    // Equal weights, but a's requests are 3 cost units each (128 KiB at 64 KiB units): b gets 3
    // requests for each of a's.
    FairQueue q = queue(Fairness.on().withCloudConcurrency(4));
    backlog(q, "a", 2000, 128 << 10, MS);
    backlog(q, "b", 2000, 0, MS);
    clock.advance(Duration.ofMillis(200));
    double ratio = (double) started("b") / started("a");
    assertTrue(Math.abs(ratio - 3) <= 0.3, "b:a = " + started("b") + ":" + started("a"));
  }

  @Test
  void reservationIsMetWhileTheCloudHasCapacity() {
    // One request at a time, 1 ms each: 1,000 per second. By weight alone a would get 1/101 of
    // it (about 10 per second); its reservation of 100 per second comes first.
    shares.put("a", TenantShare.weight(1).withReservation(100));
    shares.put("b", TenantShare.weight(100));
    FairQueue q = queue(Fairness.on().withCloudConcurrency(1));
    backlog(q, "a", 5000, 0, MS);
    backlog(q, "b", 5000, 0, MS);
    clock.advance(Duration.ofSeconds(1));
    assertTrue(started("a") >= 95, "a got " + started("a") + " of its reserved 100");
    assertTrue(started("a") <= 120, "a got " + started("a") + ", far beyond its reservation");
    assertTrue(started("b") >= 850, "b got " + started("b"));
  }

  @Test
  void limitIsEnforcedEvenWhenTheCloudIsIdle() {
    shares.put("a", TenantShare.weight(1).withLimit(50));
    FairQueue q = queue(Fairness.on().withCloudConcurrency(4));
    backlog(q, "a", 1000, 0, MS);
    clock.advance(Duration.ofSeconds(1));
    assertTrue(started("a") <= 51, "a got " + started("a") + " past its limit of 50 per second");
    assertTrue(started("a") >= 45, "a got only " + started("a") + " of its 50 per second");
  }

  @Test
  void anIdleTenantBanksNoCredit() {
    FairQueue q = queue(Fairness.on().withCloudConcurrency(1));
    backlog(q, "a", 5000, 0, MS);
    backlog(q, "b", 20, 0, MS);
    // b is served early, then idle for a long while; a runs alone.
    clock.advance(Duration.ofMillis(500));
    int a0 = started("a");
    int b0 = started("b");
    assertEquals(20, b0);
    // b comes back with a backlog: it gets its half from now, not the 480 ms it missed.
    backlog(q, "b", 5000, 0, MS);
    clock.advance(Duration.ofMillis(100));
    int a = started("a") - a0;
    int b = started("b") - b0;
    assertTrue(b <= 55 && a >= 45, "after b's idle spell a:b = " + a + ":" + b);
  }

  @Test
  void bytesInFlightAreBoundedPerTenant() {
    FairQueue q = queue(Fairness.on().withCloudConcurrency(16).withTenantBytesInFlight(1 << 20));
    List<CompletableFuture<Void>> inner = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      hold(q, "a", 512 << 10, inner);
    }
    hold(q, "b", 512 << 10, inner);
    assertEquals(2, started("a"), "a's bytes in flight must stay within 1 MiB");
    assertEquals(1, started("b"), "b is not held back by a's bound");
    inner.get(0).complete(null);
    assertEquals(3, started("a"));
  }

  @Test
  void bytesInFlightAreBoundedPerCloud() {
    FairQueue q =
        queue(
            Fairness.on()
                .withCloudConcurrency(16)
                .withCloudBytesInFlight(1 << 20)
                .withTenantBytesInFlight(1 << 20));
    List<CompletableFuture<Void>> inner = new ArrayList<>();
    hold(q, "a", 512 << 10, inner);
    hold(q, "b", 512 << 10, inner);
    hold(q, "c", 512 << 10, inner);
    assertEquals(2, q.inFlight());
    assertEquals(1 << 20, q.bytesInFlight());
    assertEquals(0, started("c"));
    inner.get(0).complete(null);
    assertEquals(1, started("c"));
  }

  @Test
  void anOversizeRequestStillRunsAlone() {
    FairQueue q =
        queue(Fairness.on().withCloudBytesInFlight(2 << 20).withTenantBytesInFlight(1 << 20));
    List<CompletableFuture<Void>> inner = new ArrayList<>();
    hold(q, "a", 4 << 20, inner);
    assertEquals(1, started("a"), "a request over both bounds runs when nothing else does");
    hold(q, "a", 4 << 20, inner);
    assertEquals(1, started("a"), "but not beside another of its tenant's");
    inner.get(0).complete(null);
    assertEquals(2, started("a"));
  }

  @Test
  void cancellingAQueuedRequestRemovesItWithoutStartingIt() {
    FairQueue q = queue(Fairness.on().withCloudConcurrency(1));
    List<CompletableFuture<Void>> inner = new ArrayList<>();
    hold(q, "a", 0, inner);
    AtomicInteger secondStarted = new AtomicInteger();
    CompletableFuture<Void> second =
        q.submit(
            "a",
            0,
            0,
            () -> {
              secondStarted.incrementAndGet();
              return new CompletableFuture<>();
            },
            r -> 0);
    hold(q, "a", 0, inner);
    assertEquals(2, q.queued());
    assertTrue(second.cancel(true));
    assertEquals(1, q.queued());
    inner.get(0).complete(null);
    assertEquals(0, secondStarted.get(), "a cancelled request is never sent");
    assertEquals(2, started("a"));
    assertEquals(1, q.inFlight());
  }

  @Test
  void cancellingAStartedRequestCancelsTheCloudsRequest() {
    FairQueue q = queue(Fairness.on());
    List<CompletableFuture<Void>> inner = new ArrayList<>();
    CompletableFuture<Void> out = hold(q, "a", 0, inner);
    out.cancel(true);
    assertTrue(inner.get(0).isCancelled());
    assertEquals(0, q.inFlight());
  }

  @Test
  void metadataGetsOfCappedRangeAreNotChargedTheirCap() {
    // readM asks for a log with a range that is only a cap (maxMetadataBytes + 1): the door must
    // not hold the cap against the tenant's bytes, or one metadata get per cloud at a time.
    Fairness fairness = Fairness.on().withTenantBytesInFlight(16L << 20);
    Tenancy tenancy = new Tenancy(fairness, t -> TenantShare.DEFAULT, clock);
    List<CompletableFuture<byte[]>> inner = new ArrayList<>();
    io.rafestore.spi.CloudDriver never =
        new io.rafestore.spi.ForwardingCloud(new io.rafestore.clouds.MemoryCloud("p0")) {
          @Override
          public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
            CompletableFuture<byte[]> f = new CompletableFuture<>();
            inner.add(f);
            return f;
          }
        };
    TenantDoor door = TenantDoor.of(never, tenancy, "a");
    for (int i = 0; i < 10; i++) {
      door.get(ObjectKey.of("m/k" + i + "/w"), Optional.of(ByteRange.of(0, (8 << 20) + 1)));
    }
    assertEquals(10, inner.size(), "capped metadata gets run side by side");
    // An exact ranged read of a data object is charged its length.
    List<CompletableFuture<byte[]>> before = new ArrayList<>(inner);
    door.get(ObjectKey.of("d/k/w-1"), Optional.of(ByteRange.of(0, 16L << 20)));
    assertEquals(before.size(), inner.size(), "16 MiB of data waits for the tenant's bytes");
    assertFalse(tenancy.queue("p0").queued() == 0);
  }

  @Test
  void largeWholeValuesDoNotMakeMetadataGetsLookLarge() {
    Fairness fairness = Fairness.on().withTenantBytesInFlight(16L << 20);
    Tenancy tenancy = new Tenancy(fairness, t -> TenantShare.DEFAULT, clock);
    List<CompletableFuture<byte[]>> held = new ArrayList<>();
    io.rafestore.spi.CloudDriver cloud =
        new io.rafestore.spi.ForwardingCloud(new io.rafestore.clouds.MemoryCloud("p0")) {
          @Override
          public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
            if (key.value().startsWith("d/")) {
              return CompletableFuture.completedFuture(new byte[8 << 20]);
            }
            CompletableFuture<byte[]> f = new CompletableFuture<>();
            held.add(f);
            return f;
          }
        };
    TenantDoor door = TenantDoor.of(cloud, tenancy, "a");
    for (int i = 0; i < 20; i++) {
      door.get(ObjectKey.of("d/k/w-" + i), Optional.empty()).join();
    }
    for (int i = 0; i < 10; i++) {
      door.get(ObjectKey.of("m/k" + i + "/w"), Optional.of(ByteRange.of(0, (8 << 20) + 1)));
    }
    assertEquals(10, held.size(), "metadata gets are estimated apart from whole values");
  }
}
