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
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many writers, keys and readers at once for a bounded time on in-memory clouds, f of which (chosen
 * by the seed; f = 1 of four clouds, or 2 of seven) misbehave, each in its own randomly changing
 * way: crashes, hangs, slowness, corrupt or stale answers, garbled metadata, dropped writes. Every
 * operation is recorded with its invocation and completion times, and afterwards checked against a
 * model of the writes:
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
 * <p>One write in four is a burst of two or three concurrent writes of one key from one client
 * (group commit for inline values). One operation in 128 deletes the key instead: a write the
 * delete may hide (one that began before the delete completed; for a delete cut by a crash, one
 * whose version is at or below the tombstone the dying process sent, whenever that tombstone
 * surfaces) may be missing, and a read that finds nothing must find only such writes before it; a
 * write the delete surely hides (completed before the delete began, the delete completed before the
 * read began) must never be read or listed. One read in four is a stream; one in eight reads a
 * completed write's version (whole, a range, or streamed) and must return exactly its bytes, unless
 * it was collected or may be deleted. A repairer repairs a random key every 50 ms as well
 * (design.md section 12, "Repair beside writers"; {@code -Drafestore.stress.repair=false} leaves it
 * out).
 *
 * <p>Writers also crash and restart: about one write in eight arms a kill switch that ends the
 * writer's "process" after a random number (0 to 11) of its requests have landed (nothing it sends
 * afterwards leaves it, nothing it awaits completes), at any point of any phase; one delete in
 * eight likewise, after up to as many requests as a delete makes (its readM of every writer's log
 * on every cloud, then its log on every cloud), so that some tombstones of crashed deletes reach a
 * few clouds; the writer then restarts as a new client with the same writer id and key pair and
 * goes on. A crashed write may be read (it may take effect), but only under a version no completed
 * write has, and it must never hide a completed write: the checks above hold for every completed
 * write of every incarnation. The collector of the GC variant has a writer id of its own.
 *
 * <p>Each variant runs with and without the collector, on one of the value shapes of {@link Shape}:
 * small values inline in the signed log (the default), whole copies on f+1 data clouds, fragments
 * (k = 2), the paper's mode, and the layout chosen per value; so the data paths (anticipated
 * fetches from a holder that may be the bad cloud, fragments rebuilt around it, sealed values and
 * their key shares, values in parts, collection of data objects) run under the same chaos as the
 * logs. A value above the inline threshold is its name followed by a filler derived from the name,
 * so a read's bytes are checked whole and only the name is kept.
 *
 * <p>Runs for {@code -Drafestore.stress.seconds} (default 5 per variant in CI); the seed is printed
 * and can be replayed with {@code -Drafestore.stress.seed} (thread timing still varies).
 */
class StressHistoryTest {
  static final int WRITERS = 3;
  static final int READERS = 4;
  static final int KEYS = 4;

  /** How the writers lay out their values, and how large the values are. */
  enum Shape {
    /** The defaults: values of a few dozen bytes, inline in the signed log, packed later. */
    INLINE(0, 0),
    /** Whole copies on f+1 data clouds (inline off), 2 to 4 KB. */
    WHOLE(2_000, 2_000),
    /** Fragments: k = 2 data and f parity on three data clouds (inline off), 3 to 6 KB. */
    CODED(3_000, 3_000),
    /** The paper's mode (anticipated readM, writeDf), whole copies, 1.5 to 2.5 KB. */
    PAPER(1_500, 1_000),
    /** The layout chosen per value (inline, whole or coded), 0 to 8 KB. */
    AUTO(0, 8_000),
    /** Sealed values (AES-GCM, key shares in the envelopes): inline up to 1 KiB, whole above. */
    SEALED(0, 3_000),
    /** Whole copies in parts of 1 KiB (inline off), 1.5 to 5.5 KB: two to six parts a value. */
    PARTED(1_500, 4_000);

    final int minFiller;
    final int spread;

    Shape(int minFiller, int spread) {
      this.minFiller = minFiller;
      this.spread = spread;
    }

    RafeStore.Builder configure(RafeStore.Builder b) {
      return switch (this) {
        case INLINE -> b;
        case WHOLE -> b.inlineThreshold(0);
        case CODED -> b.inlineThreshold(0).erasureCoding(2);
        case PAPER -> b.mode(io.rafestore.ProtocolMode.PAPER).inlineThreshold(0);
        case AUTO -> b.layout(io.rafestore.Layout.AUTO);
        case SEALED -> b.encryptValues(true).inlineThreshold(1024);
        case PARTED -> b.inlineThreshold(0).partSize(1024);
      };
    }

    /** The filler length of a new value. */
    int filler(SplittableRandom r) {
      return spread == 0 ? minFiller : minFiller + r.nextInt(spread);
    }
  }

  /**
   * A value's bytes: its name, and if {@code filler} > 0, "|" and that many letters derived from
   * the name. The name ends with the filler length, so {@link #nameOf} can check the bytes whole.
   */
  static byte[] valueBytes(String name, int filler) {
    if (filler == 0) {
      return utf8(name);
    }
    byte[] head = utf8(name + "|");
    byte[] out = java.util.Arrays.copyOf(head, head.length + filler);
    int h = name.hashCode();
    for (int j = 0; j < filler; j++) {
      out[head.length + j] = (byte) ('a' + Math.floorMod(h + 31 * j, 26));
    }
    return out;
  }

  /**
   * The name of a value whose bytes are exactly {@link #valueBytes} of it, else a description of
   * bytes no write wrote (which the checks then report as such).
   */
  static String nameOf(byte[] bytes) {
    String all = new String(bytes, StandardCharsets.UTF_8);
    int bar = all.indexOf('|');
    String name = bar < 0 ? all : all.substring(0, bar);
    int filler;
    try {
      filler = Integer.parseInt(name.substring(name.lastIndexOf(':') + 1));
    } catch (RuntimeException e) {
      filler = -1;
    }
    if (filler < 0 || !java.util.Arrays.equals(bytes, valueBytes(name, filler))) {
      return "bytes no write wrote ("
          + bytes.length
          + " bytes): "
          + all.substring(0, Math.min(all.length(), 80));
    }
    return name;
  }

  record Write(String key, String value, long invoked, long completed, Version version) {}

  /**
   * A delete of {@code key}, recorded when it is invoked; {@code completed} stays {@link
   * Long#MAX_VALUE} until it completes, and for good if its writer crashed during it.
   */
  static final class Delete {
    final String key;
    final long invoked;

    /** When it completed. */
    volatile long completed = Long.MAX_VALUE;

    /** Whether it completed (so it surely took effect). */
    volatile boolean succeeded;

    /** Whether its writer's process died during it (it may take effect at any later time). */
    volatile boolean crashed;

    /**
     * The newest tombstone in a log of its key that its writer's process sent to a cloud while it
     * ran (null while none left the process). A crashed delete's tombstone is fixed when it is
     * signed, one timestamp above what its readM saw, and hides exactly the versions at or below
     * it, whenever it surfaces: a reader that merges the dead incarnation's partial log, or repair
     * copying it. Its restarted writer may miss that log and write at the same timestamp, ordered
     * against the tombstone by incarnation (design.md section 4, "Incarnations"), so no moment
     * after which it hides nothing exists; its version bounds it instead.
     */
    volatile Version tombstone;

    Delete(String key, long invoked) {
      this.key = key;
      this.invoked = invoked;
    }

    /** Records the tombstones of {@code log}, a log of this delete's key its process sent. */
    synchronized void sent(io.rafestore.internal.protocol.metadata.MetadataLog log) {
      for (io.rafestore.internal.protocol.metadata.LogEntry e : log.entries()) {
        if (e.kind() == io.rafestore.internal.protocol.metadata.LogEntry.Kind.TOMBSTONE) {
          Version v = e.version(log.writer());
          if (tombstone == null || v.compareTo(tombstone) > 0) {
            tombstone = v;
          }
        }
      }
    }
  }

  /**
   * Whether a delete of {@code w}'s key may hide it from an operation that ended at {@code before}:
   * one invoked before that which had not completed when w began, or one cut by a crash whose
   * tombstone is at or above w's version.
   */
  static boolean mayBeDeleted(Write w, long before, java.util.Collection<Delete> deletes) {
    for (Delete d : deletes) {
      if (!d.key.equals(w.key) || d.invoked >= before) {
        continue;
      }
      if (d.crashed) {
        Version tombstone = d.tombstone;
        if (tombstone != null && w.version.compareTo(tombstone) <= 0) {
          return true;
        }
      } else if (d.completed > w.invoked) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a delete of {@code w}'s key surely hides it from an operation that began at {@code t}:
   * one invoked after w completed (its readM saw w, and its tombstone is above every version seen)
   * that completed before {@code t}.
   */
  static boolean surelyDeleted(Write w, long t, java.util.Collection<Delete> deletes) {
    for (Delete d : deletes) {
      if (d.key.equals(w.key) && d.succeeded && d.invoked > w.completed && d.completed < t) {
        return true;
      }
    }
    return false;
  }

  /**
   * A read; a stream read ({@code streamed}) has no version of its own (a stream gives only bytes):
   * its value names the write it read.
   */
  record Read(
      String key, long invoked, long completed, Version version, String value, boolean streamed) {}

  /**
   * A writer's process: every request goes through it; once killed, nothing more leaves it and
   * nothing it awaits completes, as if the machine had died.
   */
  static final class Process {
    final String writer;
    final java.security.PublicKey writerKey;
    final io.rafestore.internal.protocol.metadata.MetadataCodec codec =
        new io.rafestore.internal.protocol.metadata.MetadataCodec();

    /** The delete this process is running, whose tombstones its puts are searched for. */
    volatile Delete deleting;

    Process(String writer, java.security.PublicKey writerKey) {
      this.writer = writer;
      this.writerKey = writerKey;
    }

    final java.util.concurrent.atomic.AtomicInteger countdown =
        new java.util.concurrent.atomic.AtomicInteger(-1);
    final java.util.concurrent.CompletableFuture<Void> died =
        new java.util.concurrent.CompletableFuture<>();

    boolean dead() {
      return died.isDone();
    }

    /** Kills the process once {@code requests} more of its requests have landed. */
    void killAfter(int requests) {
      countdown.set(requests);
      if (requests == 0) {
        died.complete(null);
      }
    }

    CloudDriver wrap(CloudDriver d) {
      return new CloudDriver() {
        @Override
        public String id() {
          return d.id();
        }

        private <T> java.util.concurrent.CompletableFuture<T> call(
            java.util.function.Supplier<java.util.concurrent.CompletableFuture<T>> send) {
          if (dead()) {
            return new java.util.concurrent.CompletableFuture<>();
          }
          java.util.concurrent.CompletableFuture<T> out =
              new java.util.concurrent.CompletableFuture<>();
          java.util.concurrent.CompletableFuture<T> inner = send.get();
          out.whenComplete(
              (r, e) -> {
                if (out.isCancelled()) {
                  inner.cancel(true);
                }
              });
          inner.whenComplete(
              (r, e) -> {
                if (countdown.get() > 0 && countdown.decrementAndGet() == 0) {
                  died.complete(null);
                }
                if (!dead()) {
                  io.rafestore.spi.support.Futures.completer(out).accept(r, e);
                }
              });
          return out;
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> put(
            io.rafestore.spi.ObjectKey key, byte[] data) {
          Delete running = deleting;
          if (running != null && !dead()) {
            // What may leave the process; data objects and other keys' logs do not decode.
            try {
              running.sent(
                  codec
                      .decodeEnvelope(data, running.key, writer, writerKey, Integer.MAX_VALUE)
                      .log());
            } catch (io.rafestore.internal.protocol.metadata.MalformedMetadataException e) {
              // Not a log of the deleted key.
            }
          }
          return call(() -> d.put(key, data));
        }

        @Override
        public java.util.concurrent.CompletableFuture<byte[]> get(
            io.rafestore.spi.ObjectKey key, Optional<io.rafestore.spi.ByteRange> range) {
          return call(() -> d.get(key, range));
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> delete(io.rafestore.spi.ObjectKey key) {
          return call(() -> d.delete(key));
        }

        @Override
        public java.util.concurrent.CompletableFuture<List<io.rafestore.spi.ObjectInfo>> list(
            String prefix) {
          return call(() -> d.list(prefix));
        }

        @Override
        public java.util.concurrent.CompletableFuture<io.rafestore.spi.ListPage> list(
            String prefix, String startAfter, int limit) {
          return call(() -> d.list(prefix, startAfter, limit));
        }

        @Override
        public void close() {}
      };
    }
  }

  /**
   * Every shape with f = 1 (four clouds, one bad); inline and whole with f = 2 (seven, two bad).
   */
  static java.util.stream.Stream<Arguments> variants() {
    List<Arguments> out = new ArrayList<>();
    for (Shape shape : Shape.values()) {
      for (boolean gc : new boolean[] {false, true}) {
        out.add(Arguments.of(1, gc, shape));
      }
    }
    for (Shape shape : List.of(Shape.INLINE, Shape.WHOLE)) {
      for (boolean gc : new boolean[] {false, true}) {
        out.add(Arguments.of(2, gc, shape));
      }
    }
    // -Drafestore.stress.shapes=SEALED,PARTED runs only those shapes (to replay a failure).
    String only = System.getProperty("rafestore.stress.shapes");
    if (only != null && !only.isBlank()) {
      List<String> names = List.of(only.toUpperCase(java.util.Locale.ROOT).split("\\s*,\\s*"));
      out.removeIf(a -> !names.contains(((Shape) a.get()[2]).name()));
    }
    return out.stream();
  }

  /**
   * The checker's rule for a delete cut by a crash: its tombstone's version bounds what it may
   * hide, at any time, including a tie with the restarted incarnation's first write.
   */
  @org.junit.jupiter.api.Test
  void aCrashedDeleteMayHideOnlyVersionsAtOrBelowTheTombstoneItSent() throws Exception {
    java.security.KeyPair pair = SigningKeys.generate();
    Delete d = new Delete("k", 100);
    d.crashed = true;
    Write tiedBelow = new Write("k", "a", 200, 300, new Version(5, "w0", 0x10));
    Write tiedAbove = new Write("k", "b", 200, 300, new Version(5, "w0", 0x30));
    Write higher = new Write("k", "c", 200, 300, new Version(6, "w1", 0));
    Write older = new Write("k", "d", 10, 20, new Version(3, "w2", 0));
    Write otherKey = new Write("j", "e", 10, 20, new Version(1, "w2", 0));
    List<Delete> deletes = List.of(d);
    // No tombstone left the process: the delete cannot take effect.
    for (Write w : List.of(tiedBelow, tiedAbove, higher, older)) {
      assertThat(mayBeDeleted(w, Long.MAX_VALUE, deletes)).as("%s", w.version()).isFalse();
    }
    // The process sent its log with the tombstone 5@w0 of incarnation 0x20.
    io.rafestore.internal.protocol.metadata.MetadataLog log =
        new io.rafestore.internal.protocol.metadata.MetadataLog(
            "k",
            "w0",
            2,
            0x20,
            List.of(
                io.rafestore.internal.protocol.metadata.LogEntry.tombstone(5, 0)
                    .withIncarnation(0x20)));
    byte[] bytes =
        new io.rafestore.internal.protocol.metadata.MetadataCodec().encode(log, pair.getPrivate());
    Process process = new Process("w0", pair.getPublic());
    process.deleting = d;
    MemoryCloud cloud = new MemoryCloud("p0");
    process.wrap(cloud).put(io.rafestore.spi.ObjectKey.of("some-log"), bytes).get();
    process.wrap(cloud).put(io.rafestore.spi.ObjectKey.of("some-data"), new byte[] {9, 9}).get();
    assertThat(d.tombstone).isEqualTo(new Version(5, "w0", 0x20));
    assertThat(mayBeDeleted(tiedBelow, Long.MAX_VALUE, deletes)).isTrue();
    assertThat(mayBeDeleted(older, Long.MAX_VALUE, deletes)).isTrue();
    assertThat(mayBeDeleted(tiedAbove, Long.MAX_VALUE, deletes)).isFalse();
    assertThat(mayBeDeleted(higher, Long.MAX_VALUE, deletes)).isFalse();
    assertThat(mayBeDeleted(otherKey, Long.MAX_VALUE, deletes)).isFalse();
    // Only for operations that ended after the delete was invoked.
    assertThat(mayBeDeleted(tiedBelow, 50, deletes)).isFalse();
  }

  @ParameterizedTest(name = "f={0} gc={1} {2}")
  @MethodSource("variants")
  void concurrentHistoryIsRegularAndComplete(int f, boolean gc, Shape shape) throws Exception {
    long seconds = Long.getLong("rafestore.stress.seconds", 5);
    long seed = Long.getLong("rafestore.stress.seed", System.nanoTime());
    System.out.println(
        "StressHistoryTest f="
            + f
            + " gc="
            + gc
            + " "
            + shape
            + " seed="
            + seed
            + " seconds="
            + seconds);
    SplittableRandom random = new SplittableRandom(seed);
    int n = 3 * f + 1;
    // f distinct bad clouds, each changing its behaviour on its own.
    List<Integer> bad = new ArrayList<>();
    while (bad.size() < f) {
      int b = random.nextInt(n);
      if (!bad.contains(b)) {
        bad.add(b);
      }
    }
    List<MemoryCloud> stores = new ArrayList<>();
    List<CloudDriver> drivers = new ArrayList<>();
    List<ByzantineCloud> byzantine = new ArrayList<>();
    List<FaultyCloud> faulty = new ArrayList<>();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    Scheduler scheduler = Scheduler.of(timer);
    for (int i = 0; i < n; i++) {
      MemoryCloud m = new MemoryCloud("p" + i);
      stores.add(m);
      if (bad.contains(i)) {
        ByzantineCloud liar = new ByzantineCloud(m, seed + i);
        FaultyCloud flaky = new FaultyCloud(liar, scheduler, seed + i);
        byzantine.add(liar);
        faulty.add(flaky);
        drivers.add(flaky);
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
    // The collector of the GC variant: a writer id of its own, never crashed.
    ids.add("gc");
    keys.add(SigningKeys.generate());
    ExecutorService cpu = Executors.newFixedThreadPool(2);
    java.util.function.BiFunction<Integer, Process, RafeStore> newClient =
        (w, process) -> {
          RafeStore.Builder b =
              RafeStore.builder()
                  .faultsTolerated(f)
                  .executor(cpu)
                  .scheduler(scheduler)
                  .closeDrivers(false)
                  .operationTimeout(Duration.ofSeconds(20))
                  .listener(RafeStoreListener.NONE)
                  .writer(ids.get(w), keys.get(w));
          for (CloudDriver d : drivers) {
            b.cloud(process == null ? d : process.wrap(d), CloudRole.DATA_AND_METADATA);
          }
          for (int o = 0; o < ids.size(); o++) {
            if (o != w) {
              b.trustWriter(ids.get(o), keys.get(o).getPublic());
            }
          }
          return shape.configure(b).build();
        };
    List<RafeStore> clients = new ArrayList<>();
    for (int w = 0; w <= WRITERS; w++) {
      clients.add(newClient.apply(w, null));
    }

    ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Write> failedWrites = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Write> crashedWrites = new ConcurrentLinkedQueue<>();
    java.util.concurrent.atomic.AtomicInteger restarts =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger deleted =
        new java.util.concurrent.atomic.AtomicInteger();
    ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Delete> deletes = new ConcurrentLinkedQueue<>();
    // Completed writes per key, for reads of a given version while the run goes on.
    Map<String, List<Write>> completedOf = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicInteger versionReads =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger versionReadsCollected =
        new java.util.concurrent.atomic.AtomicInteger();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService threads = Executors.newCachedThreadPool();
    List<Future<?>> tasks = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      String id = ids.get(w);
      SplittableRandom r = random.split();
      tasks.add(
          threads.submit(
              () -> {
                // A new process of this writer (its first, and each restart's).
                java.util.function.Supplier<Process> start =
                    () -> new Process(id, keys.get(writer).getPublic());
                Process process = start.get();
                RafeStore c = newClient.apply(writer, process);
                for (int i = 0; !stop.get(); i++) {
                  String key = "key" + r.nextInt(KEYS);
                  if (r.nextInt(128) == 0) {
                    // One operation in 128 deletes the key (a signed tombstone above every version
                    // its readM saw), with the same chance of a crash in the middle as a write.
                    Delete d = new Delete(key, System.nanoTime());
                    deletes.add(d);
                    if (r.nextInt(8) == 0) {
                      process.killAfter(r.nextInt(ids.size() * n + n));
                    }
                    process.deleting = d;
                    java.util.concurrent.CompletableFuture<Void> p = c.delete(key);
                    io.rafestore.spi.support.Futures.onEnd(
                        p,
                        (x, e) -> {
                          if (e == null) {
                            d.succeeded = true;
                            d.completed = System.nanoTime();
                          }
                        });
                    try {
                      java.util.concurrent.CompletableFuture.anyOf(p, process.died)
                          .get(60, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                      // Seen below.
                    }
                    process.deleting = null;
                    if (process.dead()) {
                      if (!d.succeeded) {
                        d.crashed = true;
                      }
                      c.close();
                      process = start.get();
                      c = newClient.apply(writer, process);
                      restarts.incrementAndGet();
                    } else {
                      process.countdown.set(-1);
                      try {
                        p.join();
                        d.succeeded = true;
                        if (d.completed == Long.MAX_VALUE) {
                          d.completed = System.nanoTime();
                        }
                        deleted.incrementAndGet();
                      } catch (Exception e) {
                        failures.add("delete " + key + ": " + e);
                      }
                    }
                    continue;
                  }
                  // One write in four is a burst of two or three concurrent writes of the key
                  // from this client (group commit for inline values, the key's queue otherwise).
                  int burst = r.nextInt(4) == 0 ? 2 + r.nextInt(2) : 1;
                  List<String> values = new ArrayList<>();
                  List<java.util.concurrent.CompletableFuture<WriteReceipt>> pending =
                      new ArrayList<>();
                  // When each write completed (stamped by a callback, so never before it did).
                  java.util.concurrent.atomic.AtomicLongArray done =
                      new java.util.concurrent.atomic.AtomicLongArray(burst);
                  long t0 = System.nanoTime();
                  boolean crash = r.nextInt(8) == 0;
                  if (crash) {
                    process.killAfter(r.nextInt(12));
                  }
                  for (int b = 0; b < burst; b++) {
                    int filler = shape.filler(r);
                    String value =
                        id + ":" + key + ":" + i + "." + b + ":" + r.nextLong() + ":" + filler;
                    values.add(value);
                    int slot = b;
                    java.util.concurrent.CompletableFuture<WriteReceipt> p =
                        c.write(key, valueBytes(value, filler));
                    io.rafestore.spi.support.Futures.onEnd(
                        p, (x, e) -> done.set(slot, System.nanoTime()));
                    pending.add(p);
                  }
                  java.util.concurrent.CompletableFuture<Void> all =
                      java.util.concurrent.CompletableFuture.allOf(
                          pending.toArray(new java.util.concurrent.CompletableFuture<?>[0]));
                  try {
                    java.util.concurrent.CompletableFuture.anyOf(all, process.died)
                        .get(60, TimeUnit.SECONDS);
                  } catch (java.util.concurrent.ExecutionException e) {
                    // A write failed; seen below.
                  }
                  boolean died = process.dead();
                  if (!died) {
                    process.countdown.set(-1);
                  }
                  for (int b = 0; b < burst; b++) {
                    java.util.concurrent.CompletableFuture<WriteReceipt> p = pending.get(b);
                    String value = values.get(b);
                    if (p.isDone() && !p.isCompletedExceptionally()) {
                      // A future is done before its callbacks run: if the stamp is not there
                      // yet, now is later than the completion too.
                      long completed = done.get(b) != 0 ? done.get(b) : System.nanoTime();
                      Write done1 = new Write(key, value, t0, completed, p.join().version());
                      writes.add(done1);
                      completedOf
                          .computeIfAbsent(
                              key, x -> java.util.Collections.synchronizedList(new ArrayList<>()))
                          .add(done1);
                    } else if (died) {
                      // The machine died (maybe after the write completed, maybe in the middle).
                      crashedWrites.add(new Write(key, value, t0, System.nanoTime(), null));
                    } else {
                      failedWrites.add(new Write(key, value, t0, System.nanoTime(), null));
                      try {
                        p.join();
                      } catch (Exception e) {
                        failures.add("write " + key + ": " + e);
                      }
                    }
                  }
                  if (died) {
                    // Restart as a new client with the same writer id and key pair.
                    c.close();
                    process = start.get();
                    c = newClient.apply(writer, process);
                    restarts.incrementAndGet();
                  }
                }
                c.close();
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
                  if (r.nextInt(8) == 0) {
                    // One read in eight is of a completed write's version: whole, a range of it,
                    // or a stream of it.
                    Write w = someCompleted(completedOf.get(key), r);
                    if (w != null) {
                      versionReads.incrementAndGet();
                      String problem = readVersion(c, w, r, gc, deletes);
                      if (problem == null) {
                        // Read exactly.
                      } else if (problem.isEmpty()) {
                        versionReadsCollected.incrementAndGet();
                      } else {
                        failures.add(problem);
                      }
                      continue;
                    }
                  }
                  long t0 = System.nanoTime();
                  // One read in four is a stream of the latest version (parts fetched as it is
                  // read; a sealed value's key recovered when it is opened).
                  boolean streamed = r.nextInt(4) == 0;
                  try {
                    if (streamed) {
                      byte[] bytes;
                      try (java.io.InputStream in = c.blocking().openStream(key)) {
                        bytes = in.readAllBytes();
                      }
                      reads.add(new Read(key, t0, System.nanoTime(), null, nameOf(bytes), true));
                    } else {
                      StoredValue v = c.blocking().read(key);
                      reads.add(
                          new Read(
                              key, t0, System.nanoTime(), v.version(), nameOf(v.value()), false));
                    }
                  } catch (KeyNotFoundException e) {
                    reads.add(new Read(key, t0, System.nanoTime(), null, null, streamed));
                  } catch (VersionCollectedException e) {
                    // Collected twice during one read: allowed, and not a wrong read.
                  } catch (Exception e) {
                    failures.add("read " + key + ": " + e);
                  }
                }
                return null;
              }));
    }
    RafeStore maintainer = clients.get(WRITERS);
    if (gc) {
      tasks.add(
          threads.submit(
              everyKey(
                  stop,
                  random.split(),
                  20,
                  false,
                  failures,
                  "collect",
                  (key, r) ->
                      maintainer
                          .blocking()
                          .collect(key, RetentionPolicy.keepLast(1 + r.nextInt(4))))));
    }
    // Repair beside everything (the collector's client and identity, which it does not need):
    // copies the newest signed logs to clouds that lack them and data to holders that lost it,
    // under the same chaos, crashed writers' partial logs included; its copies are conditional on
    // what it read (design.md section 12, "Repair beside writers"). Off with
    // -Drafestore.stress.repair=false.
    java.util.concurrent.atomic.AtomicInteger repairs =
        new java.util.concurrent.atomic.AtomicInteger();
    SplittableRandom repairRandom = random.split();
    if (Boolean.parseBoolean(System.getProperty("rafestore.stress.repair", "true"))) {
      tasks.add(
          threads.submit(
              everyKey(
                  stop,
                  repairRandom,
                  50,
                  true,
                  failures,
                  "repair",
                  (key, r) -> {
                    maintainer.blocking().repair(key);
                    repairs.incrementAndGet();
                  })));
    }
    // Chaos: each bad cloud changes behaviour every 100 ms.
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      for (int b = 0; b < f; b++) {
        FaultyCloud flaky = faulty.get(b);
        ByzantineCloud liar = byzantine.get(b);
        flaky.heal();
        liar.honest();
        switch (random.nextInt(8)) {
          case 0 -> flaky.crash();
          case 1 -> {
            if (shape == Shape.SEALED) {
              // Not a hang: a read whose newest entry is a sealed write that did not complete
              // (its writer crashed in writeM) cannot tell it from a completed one whose
              // (f+1)-th share is on the silent cloud, so it waits for that cloud (design.md,
              // "Confidentiality option"); a cloud that answers late still runs that path.
              flaky.slowDown(Duration.ofSeconds(1));
            } else {
              flaky.hang();
            }
          }
          case 2 -> flaky.slowDown(Duration.ofMillis(30));
          case 3 -> liar.behave(ByzantineCloud.Behaviour.CORRUPT);
          case 4 -> liar.behave(ByzantineCloud.Behaviour.STALE);
          case 5 -> liar.behave(ByzantineCloud.Behaviour.GARBLE);
          case 6 -> liar.behave(ByzantineCloud.Behaviour.DROP_WRITES);
          default -> {}
        }
      }
      Thread.sleep(100);
    }
    stop.set(true);
    for (Future<?> t : tasks) {
      t.get(60, TimeUnit.SECONDS);
    }
    faulty.forEach(FaultyCloud::heal);
    byzantine.forEach(ByzantineCloud::honest);
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
    for (Write w : crashedWrites) {
      invokedKeyOfValue.put(w.value, w.key);
    }
    // Versions of completed writes, per key: one writer id (across its incarnations) never has
    // two completed writes of one key under one version.
    Set<String> completedVersions = new HashSet<>();
    for (Write w : writes) {
      assertThat(completedVersions.add(w.key + " " + w.version))
          .as("two completed writes of %s with one version %s", w.key, w.version)
          .isTrue();
    }
    int checked = 0;
    int streamsChecked = 0;
    int notFound = 0;
    int deletedWrites = 0;
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
      if (r.value == null) {
        // Not found: every write completed before the read began may have been deleted.
        for (Write w : writes) {
          if (w.key.equals(r.key) && w.completed < r.invoked) {
            assertThat(mayBeDeleted(w, r.completed, deletes))
                .as("read of %s found nothing after completed write %s", r.key, w.version)
                .isTrue();
          }
        }
        notFound++;
        continue;
      }
      assertThat(invokedKeyOfValue.get(r.value))
          .as("read of %s returned a value never written to it: %s", r.key, r.value)
          .isEqualTo(r.key);
      Write w = byValue.get(r.value);
      if (w != null) {
        assertThat(surelyDeleted(w, r.invoked, deletes))
            .as("read of %s returned %s, deleted before the read began", r.key, w.version)
            .isFalse();
      }
      if (r.streamed) {
        // The version is the write's the value names; a crashed or failed write's is unknown.
        if (w != null && newestBefore != null) {
          assertThat(w.version)
              .as("regularity: stream of %s started after %s completed", r.key, newestBefore)
              .isGreaterThanOrEqualTo(newestBefore);
        }
        streamsChecked++;
        checked++;
        continue;
      }
      if (w != null) {
        assertThat(r.version).as("version of %s", r.value).isEqualTo(w.version);
      } else {
        // A crashed or failed write may take effect, but never under a completed write's version.
        assertThat(completedVersions)
            .as("read of %s returned %s under a completed write's version", r.key, r.value)
            .doesNotContain(r.key + " " + r.version);
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
        if (!w.key.equals(key)) {
          continue;
        }
        if (listed.contains(w.version)) {
          assertThat(surelyDeleted(w, Long.MAX_VALUE, deletes))
              .as("%s of %s is listed after a delete that began after it completed", w.version, key)
              .isFalse();
          continue;
        }
        if (mayBeDeleted(w, Long.MAX_VALUE, deletes)) {
          deletedWrites++;
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
        "StressHistoryTest f=%d gc=%s %s: %d writes (%d failed, %d crashed, %d restarts, %d"
            + " collected), %d reads checked (%d of them streams), %d reads of a completed"
            + " version (%d found collected or deleted), %d deletes (%d cut by a crash, %d of them"
            + " after a tombstone left; %d reads found nothing, %d writes deleted or maybe), %d"
            + " repairs, bad clouds %s%n",
        f,
        gc,
        shape,
        writes.size(),
        failedWrites.size(),
        crashedWrites.size(),
        restarts.get(),
        collected,
        checked,
        streamsChecked,
        versionReads.get(),
        versionReadsCollected.get(),
        deleted.get(),
        deletes.stream().filter(d -> d.crashed).count(),
        deletes.stream().filter(d -> d.crashed && d.tombstone != null).count(),
        notFound,
        deletedWrites,
        repairs.get(),
        bad);
    assertThat(restarts.get()).as("writers restarted").isPositive();
    if (!gc) {
      assertThat(collected).isZero();
    }
    for (RafeStore c : clients) {
      c.close();
    }
    cpu.shutdown();
    timer.shutdown();
  }

  /** One maintenance operation on one key. */
  interface KeyTask {
    void run(String key, SplittableRandom r) throws Exception;
  }

  /**
   * A loop until {@code stop}: {@code task} on a random key, then a pause of {@code pauseMillis}; a
   * failure is recorded as {@code what}'s, but for {@link KeyNotFoundException} when {@code
   * absentIsFine} (a key never written, or deleted, has nothing to maintain).
   */
  private static java.util.concurrent.Callable<Void> everyKey(
      AtomicBoolean stop,
      SplittableRandom r,
      long pauseMillis,
      boolean absentIsFine,
      java.util.Queue<String> failures,
      String what,
      KeyTask task) {
    return () -> {
      while (!stop.get()) {
        String key = "key" + r.nextInt(KEYS);
        try {
          task.run(key, r);
        } catch (KeyNotFoundException e) {
          if (!absentIsFine) {
            failures.add(what + " " + key + ": " + e);
          }
        } catch (Exception e) {
          failures.add(what + " " + key + ": " + e);
        }
        Thread.sleep(pauseMillis);
      }
      return null;
    };
  }

  /** A completed write from {@code list}: half the time one of the newest 16, else any; or null. */
  private static Write someCompleted(List<Write> list, SplittableRandom r) {
    if (list == null) {
      return null;
    }
    synchronized (list) {
      int size = list.size();
      if (size == 0) {
        return null;
      }
      int recent = Math.min(size, 16);
      return r.nextBoolean() ? list.get(size - 1 - r.nextInt(recent)) : list.get(r.nextInt(size));
    }
  }

  /**
   * Reads completed write {@code w}'s version of its key through {@code c}: the whole value, a
   * random range of it, or a stream of it, each checked byte for byte against what {@code w} wrote.
   * Null when read exactly; "" when the version was collected (allowed only with the collector) or
   * is not found and may have been deleted; else what was wrong.
   */
  private static String readVersion(
      RafeStore c, Write w, SplittableRandom r, boolean gc, java.util.Collection<Delete> deletes) {
    int filler = Integer.parseInt(w.value.substring(w.value.lastIndexOf(':') + 1));
    byte[] expected = valueBytes(w.value, filler);
    int how = r.nextInt(3);
    String what = (how == 0 ? "read" : how == 1 ? "ranged read" : "stream") + " of " + w.key;
    try {
      byte[] got;
      if (how == 0) {
        StoredValue v = c.blocking().read(w.key, w.version);
        if (!v.version().equals(w.version)) {
          return what + " " + w.version + " returned version " + v.version();
        }
        got = v.value();
      } else if (how == 1) {
        int offset = r.nextInt(expected.length + 1);
        int length = r.nextInt(expected.length - offset + 1);
        got = c.blocking().read(w.key, w.version, offset, length);
        expected = java.util.Arrays.copyOfRange(expected, offset, offset + length);
        what += " [" + offset + ", +" + length + ")";
      } else {
        try (java.io.InputStream in = c.blocking().openStream(w.key, w.version)) {
          got = in.readAllBytes();
        }
      }
      return java.util.Arrays.equals(got, expected)
          ? null
          : what
              + " "
              + w.version
              + " returned "
              + got.length
              + " bytes other than the "
              + expected.length
              + " written ("
              + nameOf(got)
              + ")";
    } catch (VersionCollectedException e) {
      return gc ? "" : what + " " + w.version + " collected without a collector: " + e;
    } catch (io.rafestore.VersionNotFoundException | KeyNotFoundException e) {
      return mayBeDeleted(w, System.nanoTime(), deletes)
          ? ""
          : what + " " + w.version + " (a completed write, not deleted): " + e;
    } catch (Exception e) {
      return what + " " + w.version + " (a completed write): " + e;
    }
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
