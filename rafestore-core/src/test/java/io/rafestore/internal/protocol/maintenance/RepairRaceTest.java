package io.rafestore.internal.protocol.maintenance;

import static io.rafestore.internal.protocol.Harness.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.Scheduler;
import io.rafestore.VerifyReport;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Repair beside a writer of the same key (design.md section 12, "Repair beside writers"): repair
 * copies the newest log it read onto a cloud it found behind, and the writer's newer log may land
 * on that cloud between repair's read and its copy. The copy must not replace it: before the
 * conditional put, repair's plain put did, and the cloud held an older log than the writer's
 * completed write (a correct holder lost; under the confidentiality option, a key share of the new
 * entry lost).
 */
class RepairRaceTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A cloud that can hold one request to a metadata object until released: the next put (plain or
   * conditional) once {@link #holdNextPut} is called, or the n-th get from {@link #holdGet}. Offers
   * conditional puts only if {@code conditional}.
   */
  static final class RaceGate extends ForwardingCloud {
    private final boolean conditional;
    private volatile boolean holdPut;
    private final AtomicInteger getsToHold = new AtomicInteger(-1);
    final CompletableFuture<Void> reached = new CompletableFuture<>();
    final CompletableFuture<Void> release = new CompletableFuture<>();

    RaceGate(CloudDriver delegate, boolean conditional) {
      super(delegate);
      this.conditional = conditional;
    }

    void holdNextPut() {
      holdPut = true;
    }

    /** Holds the {@code n}-th metadata get from now (1 is the next). */
    void holdGet(int n) {
      getsToHold.set(n);
    }

    private <T> CompletableFuture<T> held(Supplier<CompletableFuture<T>> call) {
      reached.complete(null);
      return release.thenCompose(x -> call.get());
    }

    private static boolean metadata(ObjectKey key) {
      return key.value().startsWith(Names.METADATA_PREFIX);
    }

    @Override
    public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
      if (holdPut && metadata(key)) {
        holdPut = false;
        byte[] copy = data.clone();
        return held(() -> delegate().put(key, copy));
      }
      return delegate().put(key, data);
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      if (metadata(key) && getsToHold.get() > 0 && getsToHold.decrementAndGet() == 0) {
        return held(() -> delegate().get(key, range));
      }
      return delegate().get(key, range);
    }

    @Override
    public boolean conditionalPuts() {
      return conditional && delegate().conditionalPuts();
    }

    @Override
    public CompletableFuture<TaggedGet> getTagged(
        ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
      return conditional
          ? delegate().getTagged(key, range, ifNoneMatch)
          : super.getTagged(key, range, ifNoneMatch);
    }

    @Override
    public CompletableFuture<Boolean> putIfMatch(
        ObjectKey key, byte[] data, Optional<String> ifMatch) {
      if (!conditional) {
        return super.putIfMatch(key, data, ifMatch);
      }
      if (holdPut && metadata(key)) {
        holdPut = false;
        byte[] copy = data.clone();
        return held(() -> delegate().putIfMatch(key, copy, ifMatch));
      }
      return delegate().putIfMatch(key, data, ifMatch);
    }

    @Override
    public void close() {}
  }

  private static RafeStore store(List<? extends CloudDriver> clouds, boolean encrypt) {
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .executor(Runnable::run)
            .scheduler(Scheduler.system())
            .closeDrivers(false)
            .encryptValues(encrypt)
            .writer("alice", ALICE);
    clouds.forEach(b::cloud);
    return b.build();
  }

  private record Setup(List<MemoryCloud> stores, RaceGate gate, RafeStore store) {}

  /** Four clouds, p3 behind a gate, the key written once and p3's log of it lost or stale. */
  private static Setup setup(boolean conditional, boolean encrypt, boolean stale) throws Exception {
    List<MemoryCloud> stores = GcTest.memoryClouds(4);
    RaceGate gate = new RaceGate(stores.get(3), conditional);
    List<CloudDriver> clouds = new ArrayList<>(stores.subList(0, 3));
    clouds.add(gate);
    RafeStore store = store(clouds, encrypt);
    ObjectKey log = Names.metadataObject("k", "alice");
    store.blocking().write("k", utf8("one"));
    byte[] first = stores.get(3).get(log).join();
    store.blocking().write("k", utf8("two"));
    if (stale) {
      stores.get(3).put(log, first).join(); // p3 lost the second write's log
    } else {
      stores.get(3).delete(log).join(); // p3 lost the log
    }
    return new Setup(stores, gate, store);
  }

  /**
   * Starts a repair of "k", writes "three" while it is held at p3's gate, lets it go: repair must
   * report its copy to p3 superseded (not made, and not a failure), and the key must verify clean
   * (p3 keeps the writer's log).
   */
  private static void writeWhileRepairIsHeld(Setup s) throws Exception {
    CompletableFuture<RepairReport> repair = s.store.repair("k");
    s.gate.reached.get(10, TimeUnit.SECONDS);
    s.store.blocking().write("k", utf8("three"));
    s.gate.release.complete(null);
    RepairReport report = repair.get(10, TimeUnit.SECONDS);
    assertThat(report.failures()).as(report.toString()).isEmpty();
    assertThat(report.actions()).as(report.toString()).isEmpty();
    assertThat(report.superseded())
        .as(report.toString())
        .singleElement()
        .asString()
        .startsWith("p3: metadata of alice")
        .contains("changed since repair read it");
    assertThat(report.toString()).contains("superseded p3: metadata of alice");
    VerifyReport after = s.store.blocking().verify("k");
    assertThat(after.isClean()).as(after.toString()).isTrue();
  }

  /**
   * With conditional puts: repair read p3 behind, its copy is held until the writer's next write
   * has put its log on p3, and then the copy must not land.
   */
  @ParameterizedTest
  @ValueSource(strings = {"missing", "stale", "missing-encrypted", "stale-encrypted"})
  void aCopyHeldPastAWritersNewerLogDoesNotReplaceIt(String shape) throws Exception {
    boolean encrypt = shape.endsWith("encrypted");
    Setup s = setup(true, encrypt, shape.startsWith("stale"));
    try (RafeStore store = s.store) {
      VerifyReport found = store.blocking().verify("k");
      assertThat(found.findingsFor("p3")).as(found.toString()).hasSize(1);
      s.gate.holdNextPut();
      writeWhileRepairIsHeld(s);
      assertThat(store.blocking().read("k").utf8()).isEqualTo("three");
    }
  }

  /** Nothing changed between repair's read and its copy: the conditional copy lands. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aConditionalCopyOntoAnUnchangedCloudLands(boolean stale) throws Exception {
    Setup s = setup(true, false, stale);
    try (RafeStore store = s.store) {
      RepairReport report = store.blocking().repair("k");
      assertThat(report.failures()).as(report.toString()).isEmpty();
      assertThat(report.actions()).as(report.toString()).hasSize(1);
      assertThat(report.isClean()).as(report.toString()).isTrue();
      ObjectKey log = Names.metadataObject("k", "alice");
      assertThat(s.stores.get(3).get(log).join()).isEqualTo(s.stores.get(0).get(log).join());
    }
  }

  /**
   * Without conditional puts repair reads the cloud again just before its plain put: a newer log
   * that landed before that read is kept (the race is narrowed to one round trip, not closed).
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void withoutConditionalPutsANewerLogSeenByTheRereadIsKept(boolean stale) throws Exception {
    Setup s = setup(false, false, stale);
    try (s.store) {
      // Verify's read of p3 is the first metadata get, the re-read before the copy the second.
      s.gate.holdGet(2);
      writeWhileRepairIsHeld(s);
    }
  }

  /**
   * A cloud that stopped answering puts since verify found it behind: repair's copy to it is
   * cancelled after a quarter of the operation timeout and reported, so the repair (its verify
   * after the copies included) ends well within the operation timeout. Copies were bounded only by
   * half the operation timeout each, and with two verifies around them a repair on a loaded machine
   * ran past its operation timeout (StressHistoryTest with the repairer, 2026-11-29).
   */
  @org.junit.jupiter.api.Test
  void aCopyToACloudThatStoppedAnsweringEndsAtTheCopyLimit() throws Exception {
    io.rafestore.internal.protocol.Harness h = new io.rafestore.internal.protocol.Harness(1, 4);
    java.time.Duration timeout = java.time.Duration.ofSeconds(40);
    try (RafeStore store =
        h.builder(io.rafestore.ProtocolMode.PAPER).operationTimeout(timeout).build()) {
      h.run(store.write("k", utf8("one")));
      h.stores.get(3).delete(Names.metadataObject("k", "alice")).join();
      h.clouds.get(3).faulty().affecting(io.rafestore.clouds.FaultyCloud.Operation.PUT).hang();
      long start = h.scheduler.nanoTime();
      RepairReport report = h.run(store.repair("k"));
      java.time.Duration took = java.time.Duration.ofNanos(h.scheduler.nanoTime() - start);
      assertThat(report.failures())
          .as(report.toString())
          .singleElement()
          .asString()
          .startsWith("p3: metadata of alice")
          .contains("did not finish within PT10S");
      assertThat(took).isLessThan(timeout.dividedBy(2));
      h.clouds.get(3).faulty().heal();
      assertThat(h.run(store.repair("k")).isClean()).isTrue();
    }
  }

  /**
   * As above for a data copy: a holder that lost its copy and stopped answering puts. The copy is
   * cancelled at the copy limit, and the cancel reaches the put itself (counted on p1), rather than
   * leaving the request to the cloud's silence.
   */
  @org.junit.jupiter.api.Test
  void aDataCopyCancelledAtTheCopyLimitCancelsItsPut() throws Exception {
    io.rafestore.internal.protocol.Harness h = new io.rafestore.internal.protocol.Harness(1, 4);
    java.time.Duration timeout = java.time.Duration.ofSeconds(40);
    try (RafeStore store =
        h.builder(io.rafestore.ProtocolMode.PAPER).operationTimeout(timeout).build()) {
      io.rafestore.WriteReceipt w = h.run(store.write("k", utf8("one")));
      assertThat(w.info().dataClouds()).contains("p1");
      for (io.rafestore.spi.ObjectInfo o : h.stores.get(1).list("d/").join()) {
        h.stores.get(1).delete(o.key()).join();
      }
      h.clouds.get(1).faulty().affecting(io.rafestore.clouds.FaultyCloud.Operation.PUT).hang();
      long cancelledBefore = store.stats().get("p1").cancelled();
      RepairReport report = h.run(store.repair("k"));
      assertThat(report.failures())
          .as(report.toString())
          .singleElement()
          .asString()
          .startsWith("p1: ")
          .contains("did not finish within PT10S");
      // At once, not when the put's own request limit (half the operation timeout) ends it.
      assertThat(store.stats().get("p1").cancelled() - cancelledBefore)
          .as("the hung put to p1, cancelled by the time the repair returns")
          .isPositive();
      h.clouds.get(1).faulty().heal();
      assertThat(h.run(store.repair("k")).isClean()).isTrue();
    }
  }

  /**
   * A data copy's source that stopped answering since verify (f = 2: three whole copies; p2 lost
   * its copy; p0, the fastest source, answered verify's check and then never answers the copy) is
   * hedged like a read's data fetch: the next source, p1, is asked once p0 is late, and the copy
   * lands. Sources were asked one after another, each waited for up to its request limit, so the
   * copy limit cut the copy first and the repair failed.
   */
  @org.junit.jupiter.api.Test
  void aDataCopysSourceThatStoppedAnsweringIsHedged() throws Exception {
    io.rafestore.internal.protocol.Harness h =
        new io.rafestore.internal.protocol.Harness(2, 7).rtts(5, 20, 40, 60, 80, 100, 120);
    java.util.concurrent.atomic.AtomicInteger p0DataGets =
        new java.util.concurrent.atomic.AtomicInteger();
    java.time.Duration timeout = java.time.Duration.ofSeconds(40);
    try (RafeStore store =
        h.wrapped(
                io.rafestore.ProtocolMode.PAPER,
                (i, c) ->
                    i != 0
                        ? c
                        : new io.rafestore.spi.ForwardingCloud(c) {
                          @Override
                          public java.util.concurrent.CompletableFuture<byte[]> get(
                              ObjectKey key, java.util.Optional<io.rafestore.spi.ByteRange> range) {
                            if (key.value().startsWith("d/") && p0DataGets.incrementAndGet() == 2) {
                              return new java.util.concurrent.CompletableFuture<>();
                            }
                            return super.get(key, range);
                          }
                        })
            .operationTimeout(timeout)
            .build()) {
      io.rafestore.WriteReceipt w = h.run(store.write("k", utf8("three copies")));
      assertThat(w.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1", "p2");
      for (io.rafestore.spi.ObjectInfo o : h.stores.get(2).list("d/").join()) {
        h.stores.get(2).delete(o.key()).join();
      }
      RepairReport report = h.run(store.repair("k"));
      assertThat(p0DataGets.get())
          .as("verify's check, the copy's first source (never answered), the verify after")
          .isEqualTo(3);
      assertThat(report.failures()).as(report.toString()).isEmpty();
      assertThat(report.actions())
          .as(report.toString())
          .singleElement()
          .asString()
          .startsWith("p2: ");
      assertThat(report.isClean()).as(report.toString()).isTrue();
    }
  }
}
