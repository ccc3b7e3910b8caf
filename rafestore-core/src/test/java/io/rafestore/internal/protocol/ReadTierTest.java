package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CacheEvent;
import io.rafestore.CloudStats;
import io.rafestore.KeyNotFoundException;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.ReadReceipt;
import io.rafestore.ReadTierStats;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.WriteReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The read tier's cache on virtual time with the paper's Table 1 RTTs: a warm read of a known
 * version costs no cloud request, a warm read of the latest version is one readM round trip with no
 * data get, a cache that lies is never believed, and under concurrent writers no cached entry ever
 * answers for another version.
 */
class ReadTierTest {
  static final String KEY = "feed/item";
  static final Duration QUORUM_RTT = Duration.ofMillis(750);

  static long total(RafeStore store, ToLongFunction<CloudStats> counter) {
    return store.stats().values().stream().mapToLong(counter).sum();
  }

  static long requests(RafeStore store) {
    return total(store, CloudStats::requests);
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void aWarmReadOfAKnownVersionCostsNoCloudRequest(ProtocolMode mode) throws Exception {
    Harness h = AnticipatedReadTest.table1();
    List<ReadReceipt> receipts = new CopyOnWriteArrayList<>();
    MapValueCache cache = new MapValueCache(1 << 20);
    try (RafeStore store =
        h.builder(mode)
            .valueCache(cache)
            .listener(
                new RafeStoreListener() {
                  @Override
                  public void readCompleted(ReadReceipt r) {
                    receipts.add(r);
                  }
                })
            .build()) {
      byte[] value = PartsTest.random(4096, 1);
      WriteReceipt w = h.run(store.write(KEY, value));
      // Write-through: the writer's own version is cached; a cold cache fetches it once.
      cache.clear();
      StoredValue cold = h.run(store.read(KEY));
      assertThat(cold.fromCache()).isFalse();
      h.scheduler.advance(Duration.ofSeconds(5));

      long before = requests(store);
      long start = h.scheduler.nanoTime();
      StoredValue warm = h.run(store.read(KEY, w.version()));
      assertThat(h.scheduler.nanoTime() - start).isZero();
      assertThat(requests(store)).isEqualTo(before);
      assertThat(warm.value()).isEqualTo(value);
      assertThat(warm.version()).isEqualTo(w.version());
      assertThat(warm.servedBy()).isEqualTo(StoredValue.FROM_CACHE);
      assertThat(receipts.get(receipts.size() - 1).fromCache()).isTrue();
      // A range of it too.
      byte[] range = h.run(store.read(KEY, w.version(), 100, 50));
      assertThat(range).isEqualTo(Arrays.copyOfRange(value, 100, 150));
      assertThat(requests(store)).isEqualTo(before);
      ReadTierStats stats = store.readTierStats();
      assertThat(stats.hits()).isEqualTo(2);
      assertThat(stats.misses()).isEqualTo(1);
      assertThat(stats.cloudFreeReads()).isEqualTo(2);
      assertThat(stats.bytesSaved()).isEqualTo(2 * 4096);
      assertThat(stats.dollarsSaved()).isPositive();
      assertThat(stats.cachedBytes()).isEqualTo(4096);
    }
  }

  @Test
  void aWarmReadOfTheLatestIsOneReadMRoundTripWithNoDataGet() throws Exception {
    Harness h = AnticipatedReadTest.table1();
    MapValueCache cache = new MapValueCache(1 << 20);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).valueCache(cache).build()) {
      byte[] value = PartsTest.random(64 * 1024, 2);
      h.run(store.write(KEY, value));
      cache.clear();
      assertThat(h.run(store.read(KEY)).fromCache()).isFalse();
      h.scheduler.advance(Duration.ofSeconds(5));

      long gets = total(store, CloudStats::gets);
      long down = total(store, CloudStats::bytesDown);
      long speculations = total(store, CloudStats::speculations);
      CompletableFuture<StoredValue> read = store.read(KEY);
      Duration took = AnticipatedReadTest.timed(h, read);
      assertThat(read.get().value()).isEqualTo(value);
      assertThat(read.get().fromCache()).isTrue();
      // readM: one log get per cloud; no data get, no anticipated fetch.
      assertThat(total(store, CloudStats::gets) - gets).isEqualTo(4);
      assertThat(total(store, CloudStats::speculations)).isEqualTo(speculations);
      assertThat(total(store, CloudStats::bytesDown) - down).isLessThan(value.length);
      assertThat(took).isGreaterThanOrEqualTo(QUORUM_RTT);
      assertThat(took.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.05));
    }
  }

  @Test
  void aNewerVersionIsFetchedAndTheOldEntryNeverAnswersForIt() throws Exception {
    Harness h = AnticipatedReadTest.table1();
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER).valueCache(new MapValueCache(1 << 20)).build()) {
      byte[] one = PartsTest.random(1000, 3);
      byte[] two = PartsTest.random(1000, 4);
      WriteReceipt w1 = h.run(store.write(KEY, one));
      h.run(store.read(KEY));
      WriteReceipt w2 = h.run(store.write(KEY, two));
      StoredValue latest = h.run(store.read(KEY));
      assertThat(latest.version()).isEqualTo(w2.version());
      assertThat(latest.value()).isEqualTo(two);
      assertThat(h.run(store.read(KEY, w1.version())).value()).isEqualTo(one);
    }
  }

  @Test
  void aCacheThatLiesIsNeverBelievedAndIsReported() throws Exception {
    Harness h = AnticipatedReadTest.table1();
    List<CacheEvent> events = new CopyOnWriteArrayList<>();
    MapValueCache cache = new MapValueCache(1 << 20);
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .valueCache(cache)
            .listener(
                new RafeStoreListener() {
                  @Override
                  public void cacheEvent(CacheEvent e) {
                    events.add(e);
                  }
                })
            .build()) {
      byte[] value = PartsTest.random(2048, 5);
      WriteReceipt w = h.run(store.write(KEY, value));
      cache.tamper(
          b -> {
            b[7] ^= 1;
            return b;
          });
      StoredValue v = h.run(store.read(KEY, w.version()));
      assertThat(v.value()).isEqualTo(value);
      assertThat(v.fromCache()).isFalse();
      assertThat(events).extracting(CacheEvent::kind).containsExactly(CacheEvent.Kind.CORRUPT);
      assertThat(store.readTierStats().discarded()).isEqualTo(1);
      // A truncated answer too.
      cache.tamper(b -> Arrays.copyOf(b, b.length - 1));
      assertThat(h.run(store.read(KEY)).value()).isEqualTo(value);
      assertThat(events).hasSize(2);
    }
  }

  @Test
  void valuesInPartsAreCachedPerPartAndRangesUseThem() throws Exception {
    Harness h = AnticipatedReadTest.table1();
    MapValueCache cache = new MapValueCache(1 << 20);
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER).partSize(16 * 1024).valueCache(cache).build()) {
      byte[] value = PartsTest.random(100 * 1024, 6);
      WriteReceipt w = h.run(store.write(KEY, value));
      assertThat(cache.size()).isEqualTo(7);
      cache.clear();
      byte[] first = h.run(store.read(KEY, w.version(), 0, 20_000));
      assertThat(first).isEqualTo(Arrays.copyOf(value, 20_000));
      long before = requests(store);
      // Parts 0 and 1 are cached now: a range within them asks no cloud.
      assertThat(h.run(store.read(KEY, w.version(), 17_000, 10_000)))
          .isEqualTo(Arrays.copyOfRange(value, 17_000, 27_000));
      assertThat(requests(store)).isEqualTo(before);
      StoredValue whole = h.run(store.read(KEY));
      assertThat(whole.value()).isEqualTo(value);
      assertThat(whole.fromCache()).isFalse();
      before = requests(store);
      StoredValue again = h.run(store.read(KEY, w.version()));
      assertThat(again.value()).isEqualTo(value);
      assertThat(again.fromCache()).isTrue();
      assertThat(requests(store)).isEqualTo(before);
    }
  }

  @Test
  void aBoundedStalenessReadAnswersFromVerifiedMetadataAndOnlyWithinItsBound() throws Exception {
    Harness h = AnticipatedReadTest.table1();
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .valueCache(new MapValueCache(1 << 20))
            .maxStaleness(Duration.ofSeconds(30))
            .build()) {
      byte[] one = PartsTest.random(1000, 7);
      h.run(store.write(KEY, one));
      h.run(store.read(KEY));
      long before = requests(store);
      StoredValue stale = h.run(store.read(KEY));
      assertThat(stale.value()).isEqualTo(one);
      assertThat(requests(store)).isEqualTo(before);
      assertThat(store.readTierStats().staleReads()).isEqualTo(1);
      // Regular when asked for: readM runs.
      h.run(store.read(KEY, Duration.ZERO));
      assertThat(requests(store)).isGreaterThan(before);
      // Past the bound: readM again.
      h.scheduler.advance(Duration.ofSeconds(31));
      before = requests(store);
      h.run(store.read(KEY));
      assertThat(requests(store)).isGreaterThan(before);
    }
  }

  @Test
  void aDeleteByThisClientIsNeverHiddenByItsCache() throws Exception {
    Harness h = AnticipatedReadTest.table1();
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .valueCache(new MapValueCache(1 << 20))
            .maxStaleness(Duration.ofSeconds(30))
            .build()) {
      WriteReceipt w = h.run(store.write(KEY, PartsTest.random(1000, 8)));
      h.run(store.read(KEY));
      h.run(store.delete(KEY));
      assertThatThrownBy(() -> h.run(store.read(KEY)))
          .hasCauseInstanceOf(KeyNotFoundException.class);
      assertThatThrownBy(() -> h.run(store.read(KEY, w.version())))
          .isInstanceOf(ExecutionException.class);
    }
  }

  /**
   * Three writers with clients of their own write one key concurrently while two readers with
   * caches (one regular, one also reading known versions) read it: every value a reader gets is
   * exactly the bytes written under the version it names, and a regular read returns a version at
   * least as new as the last write completed before it started.
   */
  @Test
  void noCachedEntryAnswersForAnotherVersionUnderConcurrentWriters() throws Exception {
    Harness h = AnticipatedReadTest.table1();
    String[] writers = {"alice", "bob", "carol"};
    java.security.KeyPair[] keys = {Harness.ALICE, Harness.BOB, Harness.MALLORY};
    List<RafeStore> clients = new ArrayList<>();
    for (int i = 0; i < writers.length; i++) {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .mode(ProtocolMode.PAPER)
              .executor(Runnable::run)
              .scheduler(h.scheduler)
              .closeDrivers(false)
              .inlineThreshold(0)
              .writer(writers[i], keys[i]);
      for (int j = 0; j < writers.length; j++) {
        if (j != i) {
          b.trustWriter(writers[j], keys[j].getPublic());
        }
      }
      for (TestCloud c : h.clouds) {
        b.cloud(c, io.rafestore.CloudRole.DATA_AND_METADATA, c.rtt());
      }
      clients.add(b.build());
    }
    RafeStore.Builder rb =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(ProtocolMode.PAPER)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .valueCache(new MapValueCache(64 * 1024));
    for (int j = 0; j < writers.length; j++) {
      rb.trustWriter(writers[j], keys[j].getPublic());
    }
    for (TestCloud c : h.clouds) {
      rb.cloud(c, io.rafestore.CloudRole.DATA_AND_METADATA, c.rtt());
    }
    RafeStore reader = rb.build();
    Map<Version, byte[]> written = new ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicReference<Version> lastCompleted =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
    List<CompletableFuture<?>> all = new ArrayList<>();
    List<String> problems = new CopyOnWriteArrayList<>();
    for (int round = 0; round < 40; round++) {
      for (int i = 0; i < clients.size(); i++) {
        if (rnd.nextInt(3) == 0) {
          continue;
        }
        // Values of one of two sizes, often equal between writers: only the version tells them
        // apart.
        byte[] value = PartsTest.random(rnd.nextBoolean() ? 1000 : 3000, rnd.nextInt(4));
        CompletableFuture<WriteReceipt> w = clients.get(i).write(KEY, value);
        w.thenAccept(
            r -> {
              written.put(r.version(), value);
              lastCompleted.accumulateAndGet(
                  r.version(), (a, b) -> a == null || b.compareTo(a) > 0 ? b : a);
            });
        all.add(w);
      }
      Version floor = lastCompleted.get();
      CompletableFuture<StoredValue> r = reader.read(KEY);
      r.whenComplete(
          (v, e) -> {
            if (v == null) {
              return;
            }
            byte[] expect = written.get(v.version());
            if (expect != null && !Arrays.equals(expect, v.value())) {
              problems.add("read of " + v.version() + " returned another version's bytes");
            }
            if (floor != null && v.version().compareTo(floor) < 0) {
              problems.add("read returned " + v.version() + " older than " + floor);
            }
          });
      all.add(r);
      if (!written.isEmpty()) {
        List<Version> known = new ArrayList<>(written.keySet());
        Version pick = known.get(rnd.nextInt(known.size()));
        CompletableFuture<StoredValue> rv = reader.read(KEY, pick);
        rv.whenComplete(
            (v, e) -> {
              if (v != null
                  && (!v.version().equals(pick) || !Arrays.equals(written.get(pick), v.value()))) {
                problems.add("read of " + pick + " returned " + v.version() + "'s bytes");
              }
            });
        all.add(rv);
      }
      h.scheduler.advance(Duration.ofMillis(rnd.nextInt(1500)));
    }
    h.run(
        CompletableFuture.allOf(
            all.stream().map(f -> f.handle((x, e) -> null)).toArray(CompletableFuture[]::new)));
    // Every version once more, from a warm cache where it is still cached.
    for (Map.Entry<Version, byte[]> e : written.entrySet()) {
      StoredValue v = h.run(reader.read(KEY, e.getKey()));
      assertThat(v.version()).isEqualTo(e.getKey());
      assertThat(v.value()).isEqualTo(e.getValue());
    }
    assertThat(problems).isEmpty();
    assertThat(reader.readTierStats().hits()).isPositive();
    reader.close();
    for (RafeStore c : clients) {
      c.close();
    }
  }

  @Test
  void theBuilderRefusesACacheInTheBaselinesAndPrefetchWithoutACache() {
    Harness h = AnticipatedReadTest.table1();
    assertThatThrownBy(
            () -> h.builder(ProtocolMode.DEPSKY_A).valueCache(new MapValueCache(1024)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("valueCache: only the RafeStore modes");
    assertThatThrownBy(
            () ->
                h.builder(ProtocolMode.PAPER)
                    .prefetch(io.rafestore.Prefetch.of(io.rafestore.Prefetch.Mode.SEQUENTIAL))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs a valueCache");
    assertThatThrownBy(
            () -> h.builder(ProtocolMode.PAPER).maxStaleness(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxStaleness must be zero");
    MapValueCache shared = new MapValueCache(1024);
    h.builder(ProtocolMode.PAPER).valueCache(shared).build().close();
    assertThatThrownBy(() -> h.builder(ProtocolMode.PAPER).valueCache(shared).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("valueCache: this cache serves another client");
  }
}
