package io.rafestore.internal.protocol.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.RetentionPolicy;
import io.rafestore.VerifyReport;
import io.rafestore.VerifyReport.Problem;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** verify and repair: every cloud holds the newest signed logs and listed holders hold data. */
class VerifyRepairTest {
  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static void wipe(MemoryCloud m) {
    for (ObjectInfo o : m.list("").join()) {
      m.delete(o.key()).join();
    }
  }

  static void wipePrefix(MemoryCloud m, String prefix) {
    for (ObjectInfo o : m.list(prefix).join()) {
      m.delete(o.key()).join();
    }
  }

  /**
   * A holder of a large value behind a slow link has far more to send than the clouds asked only
   * for a listing: verify waits for what the latency model predicts its bytes need, instead of the
   * quorum's grace (2 s), and does not name a correct cloud unreachable (it did: the value's 1 MiB
   * takes p0 about 8 s at 1 Mbit/s).
   */
  @Test
  void aHolderWithMoreBytesToSendIsWaitedForNotNamedLate() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 200, 200);
    h.clouds.get(0).bandwidth(1_000_000);
    h.clouds.get(1).bandwidth(100_000_000);
    h.clouds.get(2).bandwidth(500_000);
    h.clouds.get(3).bandwidth(100_000_000);
    // p0, p1 and p2 are the data clouds, p3 holds metadata only; p2's link is slower still than
    // p0's, so writeDf's extra upload to it ends after p0's and p0 and p1 hold the value.
    try (RafeStore store =
        h.builder(
                ProtocolMode.FAST,
                (i, c) ->
                    i < 3
                        ? io.rafestore.CloudRole.DATA_AND_METADATA
                        : io.rafestore.CloudRole.METADATA_ONLY)
            .inlineThreshold(0)
            .build()) {
      byte[] value = new byte[1 << 20];
      new java.util.Random(3).nextBytes(value);
      WriteReceipt w = h.run(store.write("big", value));
      assertThat(w.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1");
      VerifyReport report = h.run(store.verify("big"));
      assertThat(report.isClean()).as(report.toString()).isTrue();
    }
  }

  /**
   * The wait for a cloud still out after the quorum is capped at an eighth of the operation
   * timeout, however long the latency model predicts its answer takes: here p3 answers 12 s late
   * and the model has learnt it (twice that is 24 s), the operation timeout is 40 s, and verify
   * ends after the cap (5 s) with p3 named late, instead of waiting until the request's limit (20
   * s).
   */
  @Test
  void theWaitForACloudPredictedSlowIsCappedByTheOperationTimeout() throws Exception {
    Harness h = new Harness(1, 4);
    java.time.Duration timeout = java.time.Duration.ofSeconds(40);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).operationTimeout(timeout).build()) {
      h.clouds.get(3).faulty().slowDown(java.time.Duration.ofSeconds(12));
      for (int i = 0; i < 5; i++) {
        h.run(store.write("k", utf8("v" + i)));
        h.scheduler.advance(java.time.Duration.ofSeconds(15)); // p3's late answers are measured
      }
      long start = h.scheduler.nanoTime();
      VerifyReport report = h.run(store.verify("k"));
      java.time.Duration took = java.time.Duration.ofNanos(h.scheduler.nanoTime() - start);
      assertThat(took).as(report.toString()).isLessThan(java.time.Duration.ofSeconds(12));
      assertThat(report.findingsFor("p3"))
          .as(report.toString())
          .extracting(VerifyReport.Finding::problem)
          .containsOnly(Problem.UNREACHABLE);
      for (String id : List.of("p0", "p1", "p2")) {
        assertThat(report.findingsFor(id)).as(id).isEmpty();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST", "DEPSKY_A"})
  void aCloudThatLostEverythingIsFoundAndRepaired(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(mode)) {
      for (int i = 0; i < 5; i++) {
        h.run(store.write("k", utf8("v" + i)));
      }
      h.run(store.write("other", utf8("o")));
      VerifyReport clean = h.run(store.verify("k"));
      assertThat(clean.isClean()).as(clean.toString()).isTrue();
      assertThat(clean.retainedVersions()).hasSize(5);

      // p0 is always a data holder (dataCloudsInOrderAdded is off, but all RTTs are equal).
      int victim = holderOfEveryVersion(h, "k");
      wipe(h.stores.get(victim));
      VerifyReport broken = h.run(store.verify("k"));
      assertThat(broken.isClean()).isFalse();
      String id = "p" + victim;
      assertThat(broken.findingsFor(id))
          .extracting(VerifyReport.Finding::problem)
          .contains(Problem.METADATA_MISSING, Problem.DATA_MISSING)
          .doesNotContain(Problem.METADATA_STALE);
      assertThat(broken.toString()).contains(id).contains("METADATA_MISSING");

      assertThat(h.run(store.keys())).containsExactly("k", "other");
      List<RepairReport> all = h.run(store.repairAll());
      assertThat(all).hasSize(2);
      assertThat(all).allMatch(RepairReport::isClean);
      assertThat(all.get(0).actions()).isNotEmpty();
      assertThat(h.run(store.verify("k")).isClean()).isTrue();
      assertThat(h.run(store.verifyAll())).allMatch(VerifyReport::isClean);
      // The victim serves again: its copy of the log is byte-identical to the others'.
      assertThat(h.stores.get(victim).get(Names.metadataObject("k", "alice")).join())
          .isEqualTo(h.stores.get((victim + 1) % 4).get(Names.metadataObject("k", "alice")).join());
    }
  }

  private static int holderOfEveryVersion(Harness h, String key) {
    for (int i = 0; i < h.stores.size(); i++) {
      if (h.stores.get(i).list(Maintenance.dataPrefix(key)).join().size() == 5) {
        return i;
      }
    }
    throw new AssertionError("no cloud holds every version");
  }

  @Test
  void staleAndCorruptAndGarbledAreTold() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(ProtocolMode.PAPER)) {
      h.run(store.write("k", utf8("v0")));
      ObjectKey log = Names.metadataObject("k", "alice");
      byte[] old = h.stores.get(1).get(log).join();
      h.run(store.write("k", utf8("v1")));
      h.stores.get(1).put(log, old).join();
      byte[] garbled = h.stores.get(2).get(log).join();
      garbled[garbled.length - 1] ^= 1;
      h.stores.get(2).put(log, garbled).join();
      int holder = holderOfLatest(h);
      String obj =
          h.stores.get(holder).list(Maintenance.dataPrefix("k")).join().get(0).key().value();
      for (ObjectInfo o : h.stores.get(holder).list(Maintenance.dataPrefix("k")).join()) {
        h.stores.get(holder).put(o.key(), utf8("rotten")).join();
      }
      VerifyReport r = h.run(store.verify("k"));
      assertThat(r.findingsFor("p1"))
          .extracting(VerifyReport.Finding::problem)
          .containsExactly(Problem.METADATA_STALE);
      assertThat(r.findingsFor("p2"))
          .extracting(VerifyReport.Finding::problem)
          .contains(Problem.METADATA_INVALID);
      assertThat(r.findingsFor("p" + holder))
          .extracting(VerifyReport.Finding::problem)
          .contains(Problem.DATA_CORRUPT);
      RepairReport fixed = h.run(store.repair("k"));
      assertThat(fixed.isClean()).as(fixed.toString()).isTrue();
      assertThat(fixed.failures()).isEmpty();
      assertThat(h.run(store.read("k")).utf8()).isEqualTo("v1");
      assertThat(obj).startsWith("d/k/");
    }
  }

  private static int holderOfLatest(Harness h) {
    for (int i = 0; i < h.stores.size(); i++) {
      if (!h.stores.get(i).list(Maintenance.dataPrefix("k")).join().isEmpty()) {
        return i;
      }
    }
    throw new AssertionError();
  }

  @Test
  void afterCollectionVerifyIsCleanAndCollectedDataIsNotExtra() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(ProtocolMode.PAPER)) {
      for (int i = 0; i < 6; i++) {
        h.run(store.write("k", utf8("v" + i)));
      }
      h.run(store.collect("k", RetentionPolicy.keepLast(2)));
      VerifyReport r = h.run(store.verify("k"));
      assertThat(r.isClean()).as(r.toString()).isTrue();
      assertThat(r.retainedVersions()).hasSize(2);
      assertThat(r.extraObjects()).isEmpty();
      assertThat(h.run(store.history("k", Optional.empty(), 10)).versions()).hasSize(2);
    }
  }

  @Test
  void encryptedValuesCollectVerifyAndRepairWithKeySharesRestored() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).encryptValues(true).build()) {
      for (int i = 0; i < 6; i++) {
        h.run(store.write("k", utf8("secret " + i)));
      }
      h.run(store.collect("k", RetentionPolicy.keepLast(2)));
      VerifyReport clean = h.run(store.verify("k"));
      assertThat(clean.isClean()).as(clean.toString()).isTrue();
      assertThat(clean.retainedVersions()).hasSize(2);

      int victim = holderOfLatest(h);
      wipe(h.stores.get(victim));
      VerifyReport broken = h.run(store.verify("k"));
      assertThat(broken.findingsFor("p" + victim)).isNotEmpty();
      RepairReport fixed = h.run(store.repair("k"));
      assertThat(fixed.isClean()).as(fixed.toString()).isTrue();
      // The restored object carries this cloud's own valid key shares: verify checks them.
      assertThat(h.run(store.verify("k")).findings()).isEmpty();
      assertThat(h.run(store.read("k")).utf8()).isEqualTo("secret 5");
    }
  }

  @Test
  void erasureCodedValuesCollectAndMetadataRepair() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).erasureCoding(2).build()) {
      for (int i = 0; i < 5; i++) {
        h.run(store.write("k", utf8("coded " + i)));
      }
      h.run(store.collect("k", RetentionPolicy.keepLast(2)));
      VerifyReport clean = h.run(store.verify("k"));
      assertThat(clean.isClean()).as(clean.toString()).isTrue();
      assertThat(clean.extraObjects()).isEmpty();
      h.stores.get(3).delete(Names.metadataObject("k", "alice")).join();
      VerifyReport broken = h.run(store.verify("k"));
      assertThat(broken.findingsFor("p3"))
          .extracting(VerifyReport.Finding::problem)
          .containsExactly(Problem.METADATA_MISSING);
      assertThat(h.run(store.repair("k")).isClean()).isTrue();
      assertThat(h.run(store.read("k")).utf8()).isEqualTo("coded 4");
    }
  }

  /**
   * A holder of a coded value loses its piece (erasure-coded mode, with and without encryption, and
   * DepSky-CA): repair rebuilds exactly that piece from k others (decode, re-encode, and for
   * DepSky-CA the key share by interpolation), puts it back, and the key is clean again.
   */
  @ParameterizedTest
  @CsvSource({"PAPER, 2, false", "PAPER, 3, true", "FAST, 2, true", "DEPSKY_CA, 0, false"})
  void lostCodedPiecesAreRebuiltFromTheOthers(ProtocolMode mode, int k, boolean encrypt)
      throws Exception {
    Harness h = new Harness(1, 4);
    RafeStore.Builder b = h.builder(mode).encryptValues(encrypt);
    if (k > 0) {
      b.erasureCoding(k);
    }
    byte[] value = new byte[70_001];
    new java.util.Random(k).nextBytes(value);
    try (RafeStore store = b.build()) {
      h.run(store.write("k", value));
      String object = null;
      for (var info : h.run(h.stores.get(1).list(Maintenance.dataPrefix("k")))) {
        object = info.key().value();
      }
      assertThat(object).as("p1 holds a piece").isNotNull();
      byte[] original = h.run(h.stores.get(1).get(io.rafestore.spi.ObjectKey.of(object)));
      h.stores.get(1).delete(io.rafestore.spi.ObjectKey.of(object)).join();

      VerifyReport broken = h.run(store.verify("k"));
      assertThat(broken.findingsFor("p1"))
          .extracting(VerifyReport.Finding::problem)
          .contains(Problem.DATA_MISSING);
      RepairReport fixed = h.run(store.repair("k"));
      assertThat(fixed.actions()).as(fixed.toString()).anyMatch(a -> a.startsWith("p1: data"));
      assertThat(fixed.failures()).noneMatch(a -> a.startsWith("p1:"));
      assertThat(h.run(h.stores.get(1).get(io.rafestore.spi.ObjectKey.of(object))))
          .isEqualTo(original);
      VerifyReport after = h.run(store.verify("k"));
      assertThat(after.isClean()).as(after.toString()).isTrue();
      assertThat(h.run(store.read("k")).value()).isEqualTo(value);
    }
  }

  @Test
  void partedValuesAreCheckedPartByPartAndRepaired() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).partSize(1024).build()) {
      byte[] big = new byte[5000];
      new java.util.Random(3).nextBytes(big);
      for (int i = 0; i < 3; i++) {
        big[0] = (byte) i;
        h.run(store.write("k", big));
      }
      CollectionReportCheck.collectedObjects(
          h.run(store.collect("k", RetentionPolicy.keepLast(1))));
      VerifyReport clean = h.run(store.verify("k"));
      assertThat(clean.isClean()).as(clean.toString()).isTrue();
      assertThat(clean.extraObjects()).as("collected parts are gone").isEmpty();
      int victim = holderOfLatest(h);
      List<ObjectInfo> parts = h.stores.get(victim).list(Maintenance.dataPrefix("k")).join();
      assertThat(parts).hasSize(5);
      h.stores.get(victim).put(parts.get(2).key(), utf8("rotten")).join();
      h.stores.get(victim).delete(parts.get(4).key()).join();
      VerifyReport broken = h.run(store.verify("k"));
      assertThat(broken.findingsFor("p" + victim))
          .extracting(VerifyReport.Finding::problem)
          .containsExactlyInAnyOrder(Problem.DATA_CORRUPT, Problem.DATA_MISSING);
      RepairReport fixed = h.run(store.repair("k"));
      assertThat(fixed.isClean()).as(fixed.toString()).isTrue();
      assertThat(h.run(store.read("k")).value()).isEqualTo(big);
    }
  }

  /** Parted values: a collection deletes every part of every collected version. */
  static final class CollectionReportCheck {
    static void collectedObjects(io.rafestore.CollectionReport r) {
      // Two collected versions of five parts each, on f+1 = 2 holders.
      assertThat(r.totalObjectsDeleted()).isEqualTo(2 * 5 * 2);
    }
  }
}
