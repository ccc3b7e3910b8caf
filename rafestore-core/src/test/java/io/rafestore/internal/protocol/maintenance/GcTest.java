package io.rafestore.internal.protocol.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.CollectionReport;
import io.rafestore.IntegrityException;
import io.rafestore.OrphanReport;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RetentionPolicy;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionCollectedException;
import io.rafestore.VersionInfo;
import io.rafestore.VersionNotFoundException;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Garbage collection: watermark, compaction, data deletion, collected-vs-missing, orphans. */
class GcTest {
  static final KeyPair ALICE = Harness.ALICE;
  static final KeyPair BOB = Harness.BOB;

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Objects under a prefix on one in-memory cloud. */
  static List<String> names(MemoryCloud c, String prefix) {
    List<String> out = new ArrayList<>();
    for (ObjectInfo o : c.list(prefix).join()) {
      out.add(o.key().value());
    }
    return out;
  }

  static int dataObjects(List<MemoryCloud> stores, String key) {
    int n = 0;
    for (MemoryCloud m : stores) {
      n += names(m, Maintenance.dataPrefix(key)).size();
    }
    return n;
  }

  @ParameterizedTest
  @EnumSource(ProtocolMode.class)
  void keepLastShrinksHistoryLogAndStorage(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(mode)) {
      List<Version> versions = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        versions.add(h.run(store.write("k", utf8("v" + i))).version());
      }
      int objectsBefore = dataObjects(h.stores, "k");
      long logBefore = metadataSize(h, "k", "alice");
      CollectionReport r = h.run(store.collect("k", RetentionPolicy.keepLast(3)));

      assertThat(r.versionsCollected()).hasSize(7);
      assertThat(r.collectedThrough()).contains(versions.get(6));
      assertThat(r.logEntriesBefore()).isEqualTo(10);
      assertThat(r.logEntriesAfter()).isEqualTo(4); // three values and the watermark
      assertThat(h.run(store.history("k", Optional.empty(), 100)).versions())
          .extracting(VersionInfo::version)
          .containsExactly(versions.get(9), versions.get(8), versions.get(7));
      // Every collected data object is gone from every cloud, and the report counted them.
      assertThat(dataObjects(h.stores, "k")).isEqualTo(objectsBefore * 3 / 10);
      assertThat(r.totalObjectsDeleted()).isEqualTo(objectsBefore - objectsBefore * 3 / 10);
      assertThat(r.bytesFreed()).isPositive();
      assertThat(metadataSize(h, "k", "alice")).isLessThan(logBefore);

      assertThatThrownBy(() -> h.run(store.read("k", versions.get(2))))
          .cause()
          .isInstanceOf(VersionCollectedException.class)
          .hasMessageContaining("garbage-collected");
      assertThatThrownBy(() -> h.run(store.read("k", new Version(999, "alice"))))
          .cause()
          .isInstanceOf(VersionNotFoundException.class)
          .isNotInstanceOf(VersionCollectedException.class);
      // A ranged read and a stream of a collected version say so too (not "not in the history").
      assertThatThrownBy(() -> h.run(store.read("k", versions.get(2), 0, 1)))
          .cause()
          .isInstanceOf(VersionCollectedException.class);
      assertThatThrownBy(() -> store.blocking().openStream("k", versions.get(2)))
          .isInstanceOf(VersionCollectedException.class);
      assertThat(h.run(store.read("k")).utf8()).isEqualTo("v9");
      assertThat(h.run(store.read("k", versions.get(7))).utf8()).isEqualTo("v7");

      // The next write and a second collection keep working; nothing to do is reported as such.
      WriteReceipt next = h.run(store.write("k", utf8("v10")));
      assertThat(next.version().timestamp()).isGreaterThan(versions.get(9).timestamp());
      CollectionReport again = h.run(store.collect("k", RetentionPolicy.keepLast(10)));
      assertThat(again.versionsCollected()).isEmpty();
      assertThat(h.run(store.history("k", Optional.empty(), 100)).versions()).hasSize(4);
    }
  }

  private static long metadataSize(Harness h, String key, String writer) {
    return h.stores
        .get(0)
        .get(Names.metadataObject(key, writer), Optional.<ByteRange>empty())
        .join()
        .length;
  }

  @Test
  void keepNewerThanCombinesWithKeepLast() throws Exception {
    Harness h = new Harness(1, 4);
    MutableClock clock = new MutableClock();
    try (RafeStore store = h.builder(ProtocolMode.PAPER).clock(clock).build()) {
      List<Version> v = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        clock.millis = 1_000L * i;
        v.add(h.run(store.write("k", utf8("v" + i))).version());
      }
      // Newer than t=3s keeps v3..v5; keepLast(4) would keep v2 as well: the union is kept.
      RetentionPolicy p = RetentionPolicy.keepNewerThan(Instant.ofEpochMilli(3_000)).andKeepLast(4);
      CollectionReport r = h.run(store.collect("k", p));
      assertThat(r.versionsCollected()).containsExactly(v.get(1), v.get(0));
      CollectionReport r2 =
          h.run(store.collect("k", RetentionPolicy.keepNewerThan(Instant.ofEpochMilli(3_000))));
      assertThat(r2.versionsCollected()).containsExactly(v.get(2));
      // A cutoff in the future keeps only the newest.
      CollectionReport r3 =
          h.run(store.collect("k", RetentionPolicy.keepNewerThan(Instant.ofEpochMilli(99_000))));
      assertThat(r3.versionsCollected()).containsExactly(v.get(4), v.get(3));
      assertThat(h.run(store.read("k")).utf8()).isEqualTo("v5");
    }
  }

  @Test
  void badPoliciesAreRefusedWithAClearMessage() {
    assertThatThrownBy(() -> RetentionPolicy.keepLast(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepLast must be >= 1");
    assertThatThrownBy(() -> RetentionPolicy.keepNewerThan(null))
        .isInstanceOf(NullPointerException.class);
  }

  static final class MutableClock extends java.time.Clock {
    volatile long millis;

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public java.time.Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }
  }

  @Test
  void otherWritersVersionsAreCollectedAndTheirLogShrinksOnTheirNextWrite() throws Exception {
    Harness h = new Harness(1, 4);
    RafeStore alice =
        h.build(
            ProtocolMode.PAPER,
            (i, c) -> CloudRole.DATA_AND_METADATA,
            "alice",
            ALICE,
            List.of("bob"),
            List.of(BOB));
    RafeStore bob =
        h.build(
            ProtocolMode.PAPER,
            (i, c) -> CloudRole.DATA_AND_METADATA,
            "bob",
            BOB,
            List.of("alice"),
            List.of(ALICE));
    List<Version> v = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      RafeStore w = i % 2 == 0 ? alice : bob;
      v.add(h.run(w.write("k", utf8("v" + i))).version());
    }
    long bobLog = metadataSize(h, "k", "bob");
    CollectionReport r = h.run(alice.collect("k", RetentionPolicy.keepLast(2)));
    assertThat(r.versionsCollected()).hasSize(6);
    // Bob's collected versions are hidden from every reader and their data is gone.
    assertThatThrownBy(() -> h.run(bob.read("k", v.get(1))))
        .cause()
        .isInstanceOf(VersionCollectedException.class);
    assertThat(h.run(bob.history("k", Optional.empty(), 100)).versions())
        .extracting(VersionInfo::version)
        .containsExactly(v.get(7), v.get(6));
    assertThat(dataObjects(h.stores, "k")).isEqualTo(2 * 2);
    // Bob's next write drops his collected entries: his signed log really shrinks.
    h.run(bob.write("k", utf8("v8")));
    assertThat(metadataSize(h, "k", "bob")).isLessThan(bobLog);
    assertThat(h.run(alice.history("k", Optional.empty(), 100)).versions()).hasSize(3);
  }

  @Test
  void aDeleteByOneWriterStaysInForceAfterItWritesAgain() throws Exception {
    // The tombstone must survive its writer's next append, or bob's older entries would reappear
    // (with their data deleted) until bob writes again.
    Harness h = new Harness(1, 4);
    RafeStore alice =
        h.build(
            ProtocolMode.PAPER,
            (i, c) -> CloudRole.DATA_AND_METADATA,
            "alice",
            ALICE,
            List.of("bob"),
            List.of(BOB));
    RafeStore bob =
        h.build(
            ProtocolMode.PAPER,
            (i, c) -> CloudRole.DATA_AND_METADATA,
            "bob",
            BOB,
            List.of("alice"),
            List.of(ALICE));
    h.run(bob.write("k", utf8("old")));
    h.run(alice.delete("k"));
    h.run(alice.write("k", utf8("new")));
    assertThat(h.run(bob.history("k", Optional.empty(), 100)).versions()).hasSize(1);
    assertThat(h.run(bob.read("k")).utf8()).isEqualTo("new");
  }

  @Test
  void aReaderWithMetadataFromBeforeTheCollectionGetsVersionCollected() throws Exception {
    List<MemoryCloud> stores = memoryClouds(4);
    List<GatedCloud> gated = gated(stores);
    RafeStore writer = direct(stores, "alice", ALICE);
    RafeStore reader = direct(gated, "alice", ALICE);
    List<Version> v = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      v.add(writer.blocking().write("k", utf8("v" + i)).version());
    }
    // The reader's readM completes; its data gets wait at the gate.
    CompletableFuture<StoredValue> old = reader.read("k", v.get(1));
    CompletableFuture<StoredValue> latest = reader.read("k");
    // So do a ranged read's and a stream's (the stream starts fetching when it is opened).
    CompletableFuture<byte[]> range = reader.read("k", v.get(2), 0, 2);
    java.io.InputStream stream = reader.blocking().openStream("k", v.get(3));
    writer.blocking().collect("k", RetentionPolicy.keepLast(1));
    writer.blocking().write("k", utf8("v5"));
    writer.blocking().collect("k", RetentionPolicy.keepLast(1));
    gated.forEach(GatedCloud::open);
    assertThatThrownBy(old::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(VersionCollectedException.class);
    assertThatThrownBy(range::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(VersionCollectedException.class);
    try (stream) {
      assertThatThrownBy(stream::readAllBytes).isInstanceOf(VersionCollectedException.class);
    }
    // A read of the latest whose version was collected meanwhile returns the newer latest.
    assertThat(latest.get().utf8()).isEqualTo("v5");

    // Without a signed watermark, vanished data is an integrity failure, not "collected".
    Version live = writer.blocking().write("k", utf8("v6")).version();
    for (MemoryCloud m : stores) {
      for (String n : names(m, Maintenance.dataPrefix("k"))) {
        m.delete(ObjectKey.of(n)).join();
      }
    }
    assertThatThrownBy(() -> reader.blocking().read("k", live))
        .isInstanceOf(IntegrityException.class);
  }

  @Test
  void aReaderWithMetadataFromBeforeADeleteFindsTheKeyDeletedNotCorrupt() throws Exception {
    List<MemoryCloud> stores = memoryClouds(4);
    List<GatedCloud> gated = gated(stores);
    RafeStore writer = direct(stores, "alice", ALICE);
    RafeStore reader = direct(gated, "alice", ALICE);
    List<Version> v = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      v.add(writer.blocking().write("k", utf8("v" + i)).version());
    }
    // Each read's readM completes before the delete; its data gets wait at the gate.
    CompletableFuture<StoredValue> latest = reader.read("k");
    CompletableFuture<StoredValue> one = reader.read("k", v.get(1));
    CompletableFuture<byte[]> range = reader.read("k", v.get(2), 0, 1);
    java.io.InputStream stream = reader.blocking().openStream("k");
    writer.blocking().delete("k");
    gated.forEach(GatedCloud::open);
    // Deleted, not "no holder returned matching bytes": the data went after the tombstone.
    assertThatThrownBy(latest::get)
        .cause()
        .isInstanceOf(io.rafestore.KeyNotFoundException.class)
        .hasMessageContaining("deleted");
    assertThatThrownBy(one::get).cause().isInstanceOf(VersionNotFoundException.class);
    assertThatThrownBy(range::get).cause().isInstanceOf(VersionNotFoundException.class);
    try (stream) {
      assertThatThrownBy(stream::readAllBytes)
          .isInstanceOf(io.rafestore.KeyNotFoundException.class);
    }

    // A read of the latest that started before a delete and a new write returns the new value.
    List<GatedCloud> again = gated(stores);
    RafeStore second = direct(again, "alice", ALICE);
    writer.blocking().write("k", utf8("before"));
    CompletableFuture<StoredValue> racing = second.read("k");
    writer.blocking().delete("k");
    writer.blocking().write("k", utf8("after"));
    again.forEach(GatedCloud::open);
    assertThat(racing.get().utf8()).isEqualTo("after");
  }

  @Test
  void aReadWaitingOnHoldersThatNeverAnswerLearnsOfADeleteFromMetadata() throws Exception {
    // The reader's data gets never return (its holders hang, or lost the data and the one left
    // hangs): a delete after its readM must end the read with "deleted" (the read checks metadata
    // again every ReadOp.GONE_CHECK while it waits), not leave it waiting for the timeout.
    List<MemoryCloud> stores = memoryClouds(4);
    List<GatedCloud> gated = gated(stores);
    RafeStore writer = direct(stores, "alice", ALICE);
    RafeStore reader = direct(gated, "alice", ALICE);
    Version v = writer.blocking().write("k", utf8("v0")).version();
    writer.blocking().write("k", utf8("v1"));
    CompletableFuture<StoredValue> latest = reader.read("k");
    CompletableFuture<StoredValue> one = reader.read("k", v);
    CompletableFuture<byte[]> range = reader.read("k", v, 0, 1);
    java.io.InputStream stream = reader.blocking().openStream("k");
    // The stream is read on a thread of its own, which must end with its interrupt flag clear.
    CompletableFuture<Boolean> streamed =
        CompletableFuture.supplyAsync(
            () -> {
              try (stream) {
                assertThatThrownBy(stream::readAllBytes)
                    .isInstanceOf(io.rafestore.KeyNotFoundException.class);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              return Thread.currentThread().isInterrupted();
            });
    writer.blocking().delete("k");
    // Well before the operation timeout (5 min): each within a few checks.
    java.util.concurrent.TimeUnit s = java.util.concurrent.TimeUnit.SECONDS;
    assertThatThrownBy(() -> latest.get(15, s))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(io.rafestore.KeyNotFoundException.class);
    assertThatThrownBy(() -> one.get(15, s))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(VersionNotFoundException.class);
    assertThatThrownBy(() -> range.get(15, s))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(VersionNotFoundException.class);
    assertThat(streamed.get(15, s)).as("the reader's interrupt flag after the stream").isFalse();
  }

  @Test
  void theWatchOfAFetchThatNeverEndsStopsAtTheOperationTimeout() throws Exception {
    // Every data get of this client hangs and the version stays: the read times out, and the
    // metadata checks of its watch (ReadOp.watchGone) stop with it instead of going on forever.
    Harness h = new Harness(1, 4);
    java.util.concurrent.atomic.AtomicInteger metadataGets =
        new java.util.concurrent.atomic.AtomicInteger();
    try (RafeStore writer = h.client(ProtocolMode.FAST);
        RafeStore reader =
            h.wrapped(
                    ProtocolMode.FAST,
                    (i, c) ->
                        new ForwardingCloud(c) {
                          @Override
                          public CompletableFuture<byte[]> get(
                              ObjectKey key, Optional<ByteRange> range) {
                            if (key.value().startsWith(Names.DATA_PREFIX)) {
                              return new CompletableFuture<>();
                            }
                            metadataGets.incrementAndGet();
                            return super.get(key, range);
                          }

                          @Override
                          public void close() {}
                        })
                // No anticipated fetch, which the read's end would cancel: the fetch of the
                // decided version is the read's own and is not cancelled when the read times out.
                .speculativeReads(false)
                .operationTimeout(Duration.ofSeconds(30))
                .build()) {
      h.run(writer.write("k", utf8("v0")));
      assertThatThrownBy(() -> h.run(reader.read("k"))).hasMessageContaining("operation timeout");
      int atTimeout = metadataGets.get();
      assertThat(atTimeout).as("the watch read metadata while the fetch hung").isGreaterThan(8);
      h.scheduler.advance(Duration.ofMinutes(10));
      assertThat(metadataGets.get())
          .as("metadata reads after the operation timeout")
          .isLessThanOrEqualTo(atTimeout + 4);
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST", "DEPSKY_A"})
  void aDeleteEndsWhileOneCloudNeverAnswersItsDataDeletes(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4);
    List<CompletableFuture<Void>> held = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<io.rafestore.CloudFault> faults = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (RafeStore store =
        h.wrapped(
                mode,
                (i, c) ->
                    i != 3
                        ? c
                        : new ForwardingCloud(c) {
                          @Override
                          public CompletableFuture<Void> delete(ObjectKey key) {
                            CompletableFuture<Void> never = new CompletableFuture<>();
                            held.add(never);
                            return never;
                          }

                          @Override
                          public void close() {}
                        })
            .listener(
                new io.rafestore.RafeStoreListener() {
                  @Override
                  public void cloudFault(String key, io.rafestore.CloudFault fault) {
                    faults.add(fault);
                  }
                })
            .build()) {
      for (int i = 0; i < 3; i++) {
        h.run(store.write("k", utf8("v" + i)));
      }
      Duration before = h.scheduler.elapsed();
      h.run(store.delete("k"));
      Duration took = h.scheduler.elapsed().minus(before);
      assertThat(took)
          .as("a delete with one cloud silent on deletes (operation timeout 20 s)")
          .isLessThan(Duration.ofSeconds(10));
      assertThatThrownBy(() -> h.run(store.read("k")))
          .cause()
          .isInstanceOf(io.rafestore.KeyNotFoundException.class);
      // The other clouds' data objects are gone; the silent cloud is reported.
      for (int i = 0; i < 3; i++) {
        assertThat(h.run(h.stores.get(i).list(Names.DATA_PREFIX))).as("p%d", i).isEmpty();
      }
      assertThat(held).as("p3 was asked to delete").isNotEmpty();
      assertThat(faults)
          .anySatisfy(
              f -> {
                assertThat(f.cloudId()).isEqualTo("p3");
                assertThat(f.detail()).contains("left as orphans");
              });
    }
  }

  /** Never answers metadata gets (a cloud slow for one client's readM), forwards the rest. */
  static final class SilentMetadataCloud extends ForwardingCloud {
    SilentMetadataCloud(CloudDriver delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      if (key.value().startsWith(Names.DATA_PREFIX)) {
        return super.get(key, range);
      }
      return new CompletableFuture<>();
    }

    @Override
    public void close() {}
  }

  static RafeStore trusting(
      List<? extends CloudDriver> clouds, String id, KeyPair keys, Map<String, KeyPair> others) {
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .executor(Runnable::run)
            .scheduler(Scheduler.system())
            .closeDrivers(false)
            .writer(id, keys);
    others.forEach((w, k) -> b.trustWriter(w, k.getPublic()));
    for (CloudDriver c : clouds) {
      b.cloud(c);
    }
    return b.build();
  }

  @Test
  void aCollectionNeverHidesEveryVersionBehindAWriteThatReachedTooFewClouds() throws Exception {
    // bob's second write "crashed" with its log on p0 alone; a collector whose readM heard p0
    // (p3 silent) must not collect alice's completed write on the strength of bob's partial one,
    // or a reader whose readM does not hear p0 (p0 silent) finds no version at all.
    List<MemoryCloud> stores = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      stores.add(new MemoryCloud("p" + i));
    }
    KeyPair gcKeys = SigningKeys.generate();
    Map<String, KeyPair> all = Map.of("alice", ALICE, "bob", BOB, "gc", gcKeys);
    RafeStore bob = trusting(stores, "bob", BOB, all);
    RafeStore alice = trusting(stores, "alice", ALICE, all);
    bob.blocking().write("k", utf8("b1"));
    ObjectKey bobLog = Names.metadataObject("k", "bob");
    byte[] bobFirst = stores.get(1).get(bobLog, Optional.<ByteRange>empty()).join();
    alice.blocking().write("k", utf8("a1"));
    bob.blocking().write("k", utf8("b2"));
    for (int i = 1; i < 4; i++) {
      stores.get(i).put(bobLog, bobFirst).join();
    }
    List<CloudDriver> collectorView = new ArrayList<>(stores);
    collectorView.set(3, new SilentMetadataCloud(stores.get(3)));
    RafeStore gc = trusting(collectorView, "gc", gcKeys, all);
    gc.blocking().collect("k", RetentionPolicy.keepLast(1));
    List<CloudDriver> readerView = new ArrayList<>(stores);
    readerView.set(0, new SilentMetadataCloud(stores.get(0)));
    RafeStore reader = trusting(readerView, "alice", ALICE, all);
    assertThat(reader.blocking().read("k").utf8()).isIn("a1", "b2");
  }

  static RafeStore direct(List<? extends CloudDriver> clouds, String id, KeyPair keys) {
    return trusting(clouds, id, keys, Map.of());
  }

  static List<MemoryCloud> memoryClouds(int n) {
    List<MemoryCloud> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new MemoryCloud("p" + i));
    }
    return out;
  }

  /** Each of {@code stores} behind a gate of its own. */
  static List<GatedCloud> gated(List<MemoryCloud> stores) {
    List<GatedCloud> out = new ArrayList<>();
    for (MemoryCloud m : stores) {
      out.add(new GatedCloud(m));
    }
    return out;
  }

  /** Holds data gets until opened, to give a reader metadata from before a collection. */
  static final class GatedCloud extends ForwardingCloud {
    private final CompletableFuture<Void> gate = new CompletableFuture<>();

    GatedCloud(CloudDriver delegate) {
      super(delegate);
    }

    void open() {
      gate.complete(null);
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      if (key.value().startsWith(Names.DATA_PREFIX)) {
        return gate.thenCompose(x -> delegate().get(key, range));
      }
      return super.get(key, range);
    }

    @Override
    public void close() {}
  }

  @Test
  void orphansAreCollectedAfterTheGracePeriodAndReferencedDataIsKept() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(ProtocolMode.PAPER)) {
      h.run(store.write("k", utf8("kept")));
      ObjectKey orphan = Names.dataObject("k", "alice", "0123456789abcdef01234567");
      h.stores.get(0).put(orphan, utf8("crashed writer")).join();
      h.stores.get(2).put(orphan, utf8("crashed writer")).join();
      int before = dataObjects(h.stores, "k");

      OrphanReport first = h.run(store.collectOrphans("k", Duration.ofMinutes(10)));
      assertThat(first.totalDeleted()).isZero();
      assertThat(first.waiting()).containsOnlyKeys("p0", "p2");
      h.scheduler.advance(Duration.ofMinutes(11));
      OrphanReport second = h.run(store.collectOrphans("k", Duration.ofMinutes(10)));
      assertThat(second.deleted())
          .isEqualTo(Map.of("p0", List.of(orphan.value()), "p2", List.of(orphan.value())));
      assertThat(dataObjects(h.stores, "k")).isEqualTo(before - 2);
      assertThat(h.run(store.read("k")).utf8()).isEqualTo("kept");
    }
  }

  @Test
  void purgeRemovesEveryObjectOfTheKeyAndNothingElse() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(ProtocolMode.PAPER)) {
      for (int i = 0; i < 3; i++) {
        h.run(store.write("gone", utf8("x" + i)));
      }
      h.run(store.write("stays", utf8("y")));
      int present = dataObjects(h.stores, "gone");
      for (MemoryCloud m : h.stores) {
        present += names(m, Maintenance.metadataPrefix("gone")).size();
      }
      Map<String, Integer> removed = h.run(store.purge("gone"));
      // Three versions on f+1 = 2 holders, and the log on 4 clouds.
      assertThat(present).isEqualTo(10);
      assertThat(removed.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(present);
      for (MemoryCloud m : h.stores) {
        assertThat(names(m, "m/")).containsExactly(Names.metadataObject("stays", "alice").value());
        assertThat(names(m, Maintenance.dataPrefix("gone"))).isEmpty();
      }
      assertThat(h.run(store.read("stays")).utf8()).isEqualTo("y");
      h.run(store.write("gone", utf8("again")));
      assertThat(h.run(store.history("gone", Optional.empty(), 10)).versions()).hasSize(1);
    }
  }
}
