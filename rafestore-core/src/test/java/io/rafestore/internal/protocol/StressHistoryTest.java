package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.HistoryPage;
import io.rafestore.KeyNotFoundException;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.RetentionPolicy;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionCollectedException;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many writers, keys and readers at once for a bounded time on in-memory clouds, one of which
 * (chosen by the seed) misbehaves in a randomly changing way: crashes, hangs, slowness, corrupt or
 * stale answers, garbled metadata, dropped writes. Every operation is recorded with its invocation
 * and completion times, and afterwards checked against a model of the writes:
 *
 * <ul>
 *   <li>every read returns exactly the bytes of a write of that key, under that write's version
 *       (never garbage, never another key's value);
 *   <li>regularity: no read returns a version older than the newest write to its key that completed
 *       before the read started;
 *   <li>no lost versions: every completed write is in the final history exactly once, unless it is
 *       at or below the key's collection watermark (the GC variant); the history lists nothing that
 *       was not written.
 * </ul>
 *
 * Runs for {@code -Drafestore.stress.seconds} (default 5 per variant in CI); the seed is printed
 * and can be replayed with {@code -Drafestore.stress.seed} (thread timing still varies).
 */
class StressHistoryTest {
  static final int WRITERS = 3;
  static final int READERS = 4;
  static final int KEYS = 4;

  record Write(String key, String value, long invoked, long completed, Version version) {}

  record Read(String key, long invoked, long completed, Version version, String value) {}

  @ParameterizedTest(name = "gc={0}")
  @ValueSource(booleans = {false, true})
  void concurrentHistoryIsRegularAndComplete(boolean gc) throws Exception {
    long seconds = Long.getLong("rafestore.stress.seconds", 5);
    long seed = Long.getLong("rafestore.stress.seed", System.nanoTime());
    System.out.println("StressHistoryTest gc=" + gc + " seed=" + seed + " seconds=" + seconds);
    SplittableRandom random = new SplittableRandom(seed);
    int n = 4;
    int bad = random.nextInt(n);
    List<MemoryCloud> stores = new ArrayList<>();
    List<CloudDriver> drivers = new ArrayList<>();
    ByzantineCloud byzantine = null;
    FaultyCloud faulty = null;
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    Scheduler scheduler = Scheduler.of(timer);
    for (int i = 0; i < n; i++) {
      MemoryCloud m = new MemoryCloud("p" + i);
      stores.add(m);
      if (i == bad) {
        byzantine = new ByzantineCloud(m, seed);
        faulty = new FaultyCloud(byzantine, scheduler, seed);
        drivers.add(faulty);
      } else {
        drivers.add(m);
      }
    }
    List<String> ids = new ArrayList<>();
    List<KeyPair> keys = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      ids.add("w" + w);
      keys.add(SigningKeys.generate());
    }
    ExecutorService cpu = Executors.newFixedThreadPool(2);
    List<RafeStore> clients = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .executor(cpu)
              .scheduler(scheduler)
              .closeDrivers(false)
              .operationTimeout(Duration.ofSeconds(20))
              .listener(RafeStoreListener.NONE)
              .writer(ids.get(w), keys.get(w));
      for (CloudDriver d : drivers) {
        b.cloud(d, CloudRole.DATA_AND_METADATA);
      }
      for (int o = 0; o < WRITERS; o++) {
        if (o != w) {
          b.trustWriter(ids.get(o), keys.get(o).getPublic());
        }
      }
      clients.add(b.build());
    }

    ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Write> failedWrites = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService threads = Executors.newCachedThreadPool();
    List<Future<?>> tasks = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      RafeStore c = clients.get(w);
      String id = ids.get(w);
      SplittableRandom r = random.split();
      tasks.add(
          threads.submit(
              () -> {
                for (int i = 0; !stop.get(); i++) {
                  String key = "key" + r.nextInt(KEYS);
                  String value = id + ":" + key + ":" + i + ":" + r.nextLong();
                  long t0 = System.nanoTime();
                  try {
                    WriteReceipt rc = c.blocking().write(key, utf8(value));
                    writes.add(new Write(key, value, t0, System.nanoTime(), rc.version()));
                  } catch (Exception e) {
                    failedWrites.add(new Write(key, value, t0, System.nanoTime(), null));
                    failures.add("write " + key + ": " + e);
                  }
                }
                return null;
              }));
    }
    for (int k = 0; k < READERS; k++) {
      RafeStore c = clients.get(k % WRITERS);
      SplittableRandom r = random.split();
      tasks.add(
          threads.submit(
              () -> {
                while (!stop.get()) {
                  String key = "key" + r.nextInt(KEYS);
                  long t0 = System.nanoTime();
                  try {
                    StoredValue v = c.blocking().read(key);
                    reads.add(
                        new Read(
                            key,
                            t0,
                            System.nanoTime(),
                            v.version(),
                            new String(v.value(), StandardCharsets.UTF_8)));
                  } catch (KeyNotFoundException e) {
                    reads.add(new Read(key, t0, System.nanoTime(), null, null));
                  } catch (VersionCollectedException e) {
                    // Collected twice during one read: allowed, and not a wrong read.
                  } catch (Exception e) {
                    failures.add("read " + key + ": " + e);
                  }
                }
                return null;
              }));
    }
    if (gc) {
      RafeStore c = clients.get(0);
      SplittableRandom r = random.split();
      tasks.add(
          threads.submit(
              () -> {
                while (!stop.get()) {
                  String key = "key" + r.nextInt(KEYS);
                  try {
                    c.blocking().collect(key, RetentionPolicy.keepLast(1 + r.nextInt(4)));
                  } catch (Exception e) {
                    failures.add("collect " + key + ": " + e);
                  }
                  Thread.sleep(20);
                }
                return null;
              }));
    }
    // Chaos: the one bad cloud changes behaviour every 100 ms.
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      faulty.heal();
      byzantine.honest();
      switch (random.nextInt(8)) {
        case 0 -> faulty.crash();
        case 1 -> faulty.hang();
        case 2 -> faulty.slowDown(Duration.ofMillis(30));
        case 3 -> byzantine.behave(ByzantineCloud.Behaviour.CORRUPT);
        case 4 -> byzantine.behave(ByzantineCloud.Behaviour.STALE);
        case 5 -> byzantine.behave(ByzantineCloud.Behaviour.GARBLE);
        case 6 -> byzantine.behave(ByzantineCloud.Behaviour.DROP_WRITES);
        default -> {}
      }
      Thread.sleep(100);
    }
    stop.set(true);
    for (Future<?> t : tasks) {
      t.get(60, TimeUnit.SECONDS);
    }
    faulty.heal();
    byzantine.honest();
    threads.shutdown();

    assertThat(failures).as("operations that failed with at most f faulty clouds").isEmpty();
    assertThat(writes).as("writes completed").isNotEmpty();
    assertThat(reads).as("reads completed").isNotEmpty();

    Map<String, Write> byValue = new HashMap<>();
    Map<String, String> invokedKeyOfValue = new HashMap<>();
    for (Write w : writes) {
      byValue.put(w.value, w);
      invokedKeyOfValue.put(w.value, w.key);
    }
    for (Write w : failedWrites) {
      invokedKeyOfValue.put(w.value, w.key);
    }
    int checked = 0;
    int collected = 0;
    for (Read r : reads) {
      Version newestBefore = null;
      for (Write w : writes) {
        if (w.key.equals(r.key) && w.completed < r.invoked) {
          if (newestBefore == null || w.version.compareTo(newestBefore) > 0) {
            newestBefore = w.version;
          }
        }
      }
      if (r.version == null) {
        assertThat(newestBefore)
            .as("read of %s found nothing after a completed write", r.key)
            .isNull();
        continue;
      }
      assertThat(invokedKeyOfValue.get(r.value))
          .as("read of %s returned a value never written to it: %s", r.key, r.value)
          .isEqualTo(r.key);
      Write w = byValue.get(r.value);
      if (w != null) {
        assertThat(r.version).as("version of %s", r.value).isEqualTo(w.version);
      }
      if (newestBefore != null) {
        assertThat(r.version)
            .as("regularity: read of %s started after %s completed", r.key, newestBefore)
            .isGreaterThanOrEqualTo(newestBefore);
      }
      checked++;
    }

    RafeStore probe = clients.get(1);
    for (int k = 0; k < KEYS; k++) {
      String key = "key" + k;
      List<VersionInfo> history = new ArrayList<>();
      Optional<Version> before = Optional.empty();
      do {
        HistoryPage page = probe.blocking().history(key, before, 1000);
        history.addAll(page.versions());
        before = page.nextBefore();
      } while (before.isPresent());
      Set<Version> listed = new HashSet<>();
      for (VersionInfo v : history) {
        assertThat(listed.add(v.version())).as("%s listed twice", v.version()).isTrue();
      }
      Version oldestListed = history.isEmpty() ? null : history.get(history.size() - 1).version();
      for (Write w : writes) {
        if (!w.key.equals(key) || listed.contains(w.version)) {
          continue;
        }
        // Not listed: it must have been collected (a signed watermark covers it, and collection
        // only removes a prefix of the history), never silently lost.
        assertThat(collectedThrough(probe, key, w.version))
            .as("completed write %s of %s is lost", w.version, key)
            .isNotNull();
        if (oldestListed != null) {
          assertThat(w.version).isLessThan(oldestListed);
        }
        collected++;
      }
    }
    System.out.printf(
        "StressHistoryTest gc=%s: %d writes (%d failed, %d collected), %d reads checked, bad cloud"
            + " p%d%n",
        gc, writes.size(), failedWrites.size(), collected, checked, bad);
    if (!gc) {
      assertThat(collected).isZero();
    }
    for (RafeStore c : clients) {
      c.close();
    }
    cpu.shutdown();
    timer.shutdown();
  }

  /** The watermark a read of {@code version} reports as covering it, or null if none does. */
  private static Version collectedThrough(RafeStore probe, String key, Version version)
      throws Exception {
    try {
      probe.blocking().read(key, version);
      return null;
    } catch (VersionCollectedException e) {
      assertThat(version).isLessThanOrEqualTo(e.collectedThrough());
      return e.collectedThrough();
    } catch (io.rafestore.VersionNotFoundException e) {
      return null;
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
