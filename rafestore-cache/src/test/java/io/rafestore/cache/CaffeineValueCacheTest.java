package io.rafestore.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CacheEvent;
import io.rafestore.CloudStats;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.ValueCache.Unit;
import io.rafestore.Version;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Caffeine cache on its own (the byte bound, scan resistance, the directory across a restart,
 * damaged files dropped and reported) and behind a client on in-memory clouds on virtual time (a
 * tampered or truncated file is never served, and the listener hears of it).
 */
class CaffeineValueCacheTest {
  static final KeyPair ALICE = SigningKeys.generate();

  @TempDir Path dir;

  static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  static Unit unit(String key, long ts, byte[] bytes) throws Exception {
    return new Unit(
        key,
        new Version(ts, "alice", 7),
        Unit.WHOLE,
        MessageDigest.getInstance("SHA-256").digest(bytes),
        bytes.length);
  }

  @Test
  void evictionKeepsTheByteBoundAfterEveryPut() throws Exception {
    CaffeineValueCache c = CaffeineValueCache.builder().maximumBytes(100_000).build();
    SplittableRandom rnd = new SplittableRandom(1);
    for (int i = 0; i < 2_000; i++) {
      byte[] b = random(1 + rnd.nextInt(9_000), i);
      c.put(unit("k" + rnd.nextInt(500), i + 1, b), b);
      assertThat(c.memoryBytes()).isLessThanOrEqualTo(100_000);
      assertThat(c.weightedBytes()).isLessThanOrEqualTo(100_000);
    }
    assertThat(c.memoryBytes()).isGreaterThan(50_000);
  }

  @Test
  void protectedUnitsAreNotDisplacedByOthersAndTheBoundHolds() throws Exception {
    // 100 units of 1 KiB fit; a quarter is the protected share. Ten units put protected (as the
    // read tier puts a unit a read fetched again after an eviction) and ten moved there on a hit
    // (protect) stay through 2,000 other puts, each read twice so that frequency would favour
    // them; without the share (0) the same sequence evicts most of the twenty.
    for (double share : new double[] {0.25, 0}) {
      CaffeineValueCache c =
          CaffeineValueCache.builder().maximumBytes(100 * 1024).protectedShare(share).build();
      List<Unit> kept = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        byte[] b = random(1024, 10_000 + i);
        Unit u = unit("p" + i, 1, b);
        kept.add(u);
        if (i < 10) {
          c.putProtected(u, b);
        } else {
          c.put(u, b);
          c.protect(u);
        }
      }
      for (int i = 0; i < 2_000; i++) {
        byte[] b = random(1024, i);
        Unit u = unit("o" + i, 1, b);
        c.put(u, b);
        c.get(u);
        c.get(u);
        assertThat(c.memoryBytes()).isLessThanOrEqualTo(100 * 1024);
      }
      long held = kept.stream().filter(c::contains).count();
      if (share > 0) {
        assertThat(held).isEqualTo(20);
        for (Unit u : kept) {
          assertThat(c.get(u)).isPresent();
        }
      } else {
        assertThat(held).isLessThan(10);
      }
    }
  }

  @Test
  void theProtectedShareIsBoundedAndLeavesTheRestToOtherUnits() throws Exception {
    // More protected units than the share holds: the share evicts among them and never takes more
    // than its bytes; the other units get the rest of the bound, and all of it while the share is
    // empty.
    CaffeineValueCache c =
        CaffeineValueCache.builder().maximumBytes(100 * 1024).protectedShare(0.2).build();
    for (int i = 0; i < 100; i++) {
      byte[] b = random(1024, i);
      c.put(unit("o" + i, 1, b), b);
    }
    assertThat(c.memoryBytes()).isGreaterThan(90 * 1024);
    for (int i = 0; i < 200; i++) {
      byte[] b = random(1024, 1_000 + i);
      c.putProtected(unit("p" + i, 1, b), b);
      assertThat(c.memoryBytes()).isLessThanOrEqualTo(100 * 1024);
    }
    long protectedHeld =
        java.util.stream.IntStream.range(0, 200)
            .filter(
                i -> {
                  try {
                    byte[] b = random(1024, 1_000 + i);
                    return c.contains(unit("p" + i, 1, b));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                })
            .count();
    assertThat(protectedHeld).isBetween(1L, 20L);
    assertThat(c.memoryBytes()).isGreaterThan(90 * 1024);
    assertThatThrownBy(() -> CaffeineValueCache.builder().protectedShare(0.95).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("protectedShare");
  }

  @Test
  void aScanOfValuesReadOnceDoesNotFlushTheOnesReadAgain() throws Exception {
    // 1,024 units of 1 KiB fit. A hot set of 256 units is read again once per cache-full of a
    // scan 20 times the cache (each scanned unit written, then read once). Between two reads of a
    // hot unit come 1,279 other units, more than the cache holds, so recency alone (LRU) keeps
    // none of them; a frequency-aware policy keeps them. (TinyLFU ages frequencies over about ten
    // cache-fulls of accesses, so a hot set never touched during a long scan is rightly let go.)
    CaffeineValueCache c = CaffeineValueCache.builder().maximumBytes(1024 * 1024).build();
    List<Unit> hot = new ArrayList<>();
    List<byte[]> hotBytes = new ArrayList<>();
    for (int i = 0; i < 256; i++) {
      byte[] b = random(1024, i);
      Unit u = unit("hot" + i, 1, b);
      hot.add(u);
      hotBytes.add(b);
      c.put(u, b);
    }
    int hits = 0;
    int reads = 0;
    for (int i = 0; i < 20_480; i++) {
      byte[] b = random(1024, 10_000 + i);
      Unit u = unit("scan" + i, 1, b);
      c.put(u, b);
      c.get(u);
      if (i % 4 == 3) {
        int h = (i / 4) % hot.size();
        reads++;
        if (c.get(hot.get(h)).isPresent()) {
          hits++;
        } else {
          c.put(hot.get(h), hotBytes.get(h));
        }
      }
      assertThat(c.weightedBytes()).isLessThanOrEqualTo(1024 * 1024);
    }
    long kept = hot.stream().filter(c::contains).count();
    assertThat(kept).as("hot units kept through a scan 20 times the cache").isGreaterThan(230);
    assertThat((double) hits / reads).as("hit ratio of the hot set's reads").isGreaterThan(0.9);
  }

  @Test
  void unitsSurviveARestartAndDamagedFilesAreDroppedAndReported() throws Exception {
    byte[] good = random(5000, 1);
    byte[] flipped = random(5000, 2);
    byte[] cut = random(5000, 3);
    Unit ug = unit("good", 1, good);
    Unit uf = unit("flipped", 1, flipped);
    Unit uc = unit("cut", 1, cut);
    try (CaffeineValueCache c =
        CaffeineValueCache.builder().maximumBytes(1 << 20).directory(dir, 1 << 20).build()) {
      c.put(ug, good);
      c.put(uf, flipped);
      c.put(uc, cut);
      c.flush(Duration.ofSeconds(10));
      assertThat(c.diskBytes()).isGreaterThan(15_000);
    }
    // Damage two files and add a foreign one.
    Path pf = UnitFile.path(dir, uf);
    byte[] bytes = Files.readAllBytes(pf);
    bytes[bytes.length - 10] ^= 0x40;
    Files.write(pf, bytes);
    Path pc = UnitFile.path(dir, uc);
    byte[] c2 = Files.readAllBytes(pc);
    Files.write(pc, java.util.Arrays.copyOf(c2, c2.length - 100));
    Files.write(dir.resolve("0000.unit"), random(300, 9));
    // A valid file of one unit under another unit's name.
    Files.copy(UnitFile.path(dir, ug), dir.resolve("ffff.unit"));

    List<CacheEvent> events = new CopyOnWriteArrayList<>();
    try (CaffeineValueCache c =
        CaffeineValueCache.builder().maximumBytes(1 << 20).directory(dir, 1 << 20).build()) {
      c.bind(events::add);
      // Found when the directory was indexed: the truncated and both foreign files.
      assertThat(events)
          .extracting(CacheEvent::kind)
          .containsExactlyInAnyOrder(
              CacheEvent.Kind.TRUNCATED, CacheEvent.Kind.FOREIGN, CacheEvent.Kind.FOREIGN);
      assertThat(c.get(ug)).hasValueSatisfying(b -> assertThat(b).isEqualTo(good));
      assertThat(c.get(uc)).isEmpty();
      // The flipped byte is found when the unit is loaded.
      assertThat(c.contains(uf)).isTrue();
      assertThat(c.get(uf)).isEmpty();
      assertThat(events).extracting(CacheEvent::kind).contains(CacheEvent.Kind.CORRUPT);
      assertThat(c.contains(uf)).isFalse();
      assertThat(Files.exists(pf)).isFalse();
      assertThat(Files.exists(pc)).isFalse();
      try (Stream<Path> left = Files.list(dir)) {
        assertThat(left.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder(".lock", UnitFile.path(dir, ug).getFileName().toString());
      }
    }
  }

  @Test
  void theDirectoryServesOneCacheAndTheBuilderChecksItsBounds() throws Exception {
    try (CaffeineValueCache c =
        CaffeineValueCache.builder().maximumBytes(4096).directory(dir, 4096).build()) {
      assertThatThrownBy(
              () -> CaffeineValueCache.builder().maximumBytes(4096).directory(dir, 4096).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("in use by another cache");
      c.bind(e -> {});
      assertThatThrownBy(() -> c.bind(e -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("serves another client");
    }
    assertThatThrownBy(() -> CaffeineValueCache.builder().maximumBytes(10).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maximumBytes must be at least 1024");
  }

  /** Four in-memory clouds, f = 1, on virtual time, with this cache. */
  static RafeStore store(
      VirtualScheduler s,
      List<MemoryCloud> clouds,
      CaffeineValueCache cache,
      RafeStoreListener listener) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .executor(Runnable::run)
            .scheduler(s)
            .closeDrivers(false)
            .inlineThreshold(0)
            .writer("alice", ALICE)
            .valueCache(cache)
            .listener(listener);
    for (MemoryCloud c : clouds) {
      b.cloud(c);
    }
    return b.build();
  }

  static long requests(RafeStore store) {
    return store.stats().values().stream().mapToLong(CloudStats::requests).sum();
  }

  @Test
  void aTamperedOrTruncatedCacheFileIsNeverServedAndIsReported() throws Exception {
    VirtualScheduler s = new VirtualScheduler();
    List<MemoryCloud> clouds =
        List.of(
            new MemoryCloud("p0"),
            new MemoryCloud("p1"),
            new MemoryCloud("p2"),
            new MemoryCloud("p3"));
    byte[] a = random(10_000, 1);
    byte[] b = random(10_000, 2);
    WriteReceipt wa;
    WriteReceipt wb;
    try (CaffeineValueCache cache =
        CaffeineValueCache.builder().maximumBytes(1 << 20).directory(dir, 1 << 20).build()) {
      try (RafeStore store = store(s, clouds, cache, RafeStoreListener.NONE)) {
        wa = s.runUntilDone(store.write("a", a));
        wb = s.runUntilDone(store.write("b", b));
        s.runUntilDone(store.read("a"));
        s.runUntilDone(store.read("b"));
      }
      cache.flush(Duration.ofSeconds(10));
    }
    // Tamper with a's file (one byte of the value) and truncate b's.
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(p -> p.toString().endsWith(".unit")).toList();
    }
    assertThat(files).hasSize(2);
    for (Path p : files) {
      byte[] bytes = Files.readAllBytes(p);
      if (new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1)
          .contains("\u0000\u0001a")) {
        bytes[bytes.length - 1] ^= 1;
        Files.write(p, bytes);
      } else {
        Files.write(p, java.util.Arrays.copyOf(bytes, bytes.length - 1));
      }
    }
    List<CacheEvent> events = new CopyOnWriteArrayList<>();
    try (CaffeineValueCache cache =
            CaffeineValueCache.builder().maximumBytes(1 << 20).directory(dir, 1 << 20).build();
        RafeStore store =
            store(
                s,
                clouds,
                cache,
                new RafeStoreListener() {
                  @Override
                  public void cacheEvent(CacheEvent e) {
                    events.add(e);
                  }
                })) {
      StoredValue ra = s.runUntilDone(store.read("a", wa.version()));
      StoredValue rb = s.runUntilDone(store.read("b", wb.version()));
      assertThat(ra.value()).isEqualTo(a);
      assertThat(rb.value()).isEqualTo(b);
      assertThat(ra.fromCache()).isFalse();
      assertThat(rb.fromCache()).isFalse();
      assertThat(events)
          .extracting(CacheEvent::kind)
          .containsExactlyInAnyOrder(CacheEvent.Kind.CORRUPT, CacheEvent.Kind.TRUNCATED);
      assertThat(store.readTierStats().discarded()).isEqualTo(2);
      // Fetched again and cached right: the next reads touch no cloud.
      long before = requests(store);
      assertThat(s.runUntilDone(store.read("a", wa.version())).value()).isEqualTo(a);
      assertThat(requests(store)).isEqualTo(before);
    }
  }

  @Test
  void aRestartedClientReadsItsDiskCacheAfterOneReadM() throws Exception {
    VirtualScheduler s = new VirtualScheduler();
    List<MemoryCloud> clouds =
        List.of(
            new MemoryCloud("p0"),
            new MemoryCloud("p1"),
            new MemoryCloud("p2"),
            new MemoryCloud("p3"));
    byte[] a = random(20_000, 4);
    try (CaffeineValueCache cache =
            CaffeineValueCache.builder().maximumBytes(1 << 20).directory(dir, 1 << 20).build();
        RafeStore store = store(s, clouds, cache, RafeStoreListener.NONE)) {
      s.runUntilDone(store.write("a", a));
      s.runUntilDone(store.read("a"));
      cache.flush(Duration.ofSeconds(10));
    }
    try (CaffeineValueCache cache =
            CaffeineValueCache.builder().maximumBytes(1 << 20).directory(dir, 1 << 20).build();
        RafeStore store = store(s, clouds, cache, RafeStoreListener.NONE)) {
      long gets = store.stats().values().stream().mapToLong(CloudStats::gets).sum();
      StoredValue v = s.runUntilDone(store.read("a"));
      assertThat(v.value()).isEqualTo(a);
      assertThat(v.fromCache()).isTrue();
      s.runUntilIdle();
      // readM only: at most one log get per cloud, at least the n - f it needs; no data get.
      assertThat(store.stats().values().stream().mapToLong(CloudStats::gets).sum() - gets)
          .isBetween(3L, 4L);
      assertThat(Optional.of(store.readTierStats().hits())).contains(1L);
    }
  }
}
