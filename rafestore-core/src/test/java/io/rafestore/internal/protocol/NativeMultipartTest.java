package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudStats;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.RetentionPolicy;
import io.rafestore.VerifyReport;
import io.rafestore.VerifyReport.Problem;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Parted values on clouds with a native multipart upload (MemoryCloud's), alone and mixed with
 * clouds that store part objects: layout per holder, whole and ranged reads from joined holders, a
 * cloud whose complete stores garbage, a cancelled upload, collection.
 */
class NativeMultipartTest {
  static final int PART = 16 * 1024;

  /** Clouds in {@code nativeClouds} offer multipart with a 1 KiB minimum part. */
  static Harness harness(Set<Integer> nativeClouds) {
    return new Harness(
        1,
        4,
        i ->
            nativeClouds.contains(i)
                ? MemoryCloud.withMultipart("p" + i, 1024, 10_000)
                : new MemoryCloud("p" + i));
  }

  static RafeStore store(Harness h) {
    return h.builder(ProtocolMode.PAPER).partSize(PART).partsInFlight(2).build();
  }

  static List<ObjectInfo> data(Harness h, int cloud) throws Exception {
    return h.run(h.stores.get(cloud).list("d/"));
  }

  static List<String> names(Harness h, int cloud) throws Exception {
    List<String> out = new ArrayList<>();
    for (ObjectInfo o : data(h, cloud)) {
      out.add(o.key().value());
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(ints = {PART, PART + 1, 2 * PART, 2 * PART + 1, 3 * PART - 1, 100_000})
  void aJoinedHolderStoresOneObjectAndServesWholeAndRangedReads(int size) throws Exception {
    // p0 (native) and p2 (part objects) are the two fastest: the write's f+1 data clouds.
    Harness h = harness(Set.of(0, 1)).rtts(10, 200, 50, 300);
    RafeStore store = store(h);
    byte[] v = PartsTest.random(size, size);
    WriteReceipt r = h.run(store.write("big", v));
    assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p2");
    int count = size > PART ? (size + PART - 1) / PART : 1;
    List<ObjectInfo> onP0 = data(h, 0);
    assertThat(onP0).hasSize(1);
    assertThat(onP0.get(0).size()).isEqualTo(size);
    assertThat(onP0.get(0).key().value()).doesNotContain(".p");
    assertThat(h.stores.get(0).openUploads()).isZero();
    if (count > 1) {
      assertThat(names(h, 2)).hasSize(count).allMatch(n -> n.matches(".*\\.p\\d+$"));
    }
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
    // Only the joined holder left: every read is ranged gets of its one object.
    h.clouds.get(2).behave(TestCloud.Behaviour.CRASH);
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
    long partLength = (size + count - 1) / count;
    long[][] ranges = {
      {0, 10},
      {partLength - 5, 10},
      {partLength, partLength},
      {size - 3, 100},
      {1, size - 2},
      {size, 4}
    };
    for (long[] range : ranges) {
      int from = (int) Math.min(range[0], size);
      int to = (int) Math.min(size, range[0] + range[1]);
      assertThat(h.run(store.read("big", r.version(), range[0], (int) range[1])))
          .as("range %s", Arrays.toString(range))
          .isEqualTo(Arrays.copyOfRange(v, from, to));
    }
    assertThat(h.run(store.verify("big")).findingsFor("p0")).isEmpty();
  }

  @Test
  void sealedPartsInAJoinedObjectAreFetchedAtTheirStoredOffsets() throws Exception {
    Harness h = harness(Set.of(0, 1)).rtts(10, 200, 50, 300);
    RafeStore store =
        h.builder(ProtocolMode.PAPER).partSize(PART).partsInFlight(2).encryptValues(true).build();
    byte[] v = PartsTest.random(3 * PART + 100, 11);
    WriteReceipt r = h.run(store.write("big", v));
    assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p2");
    List<ObjectInfo> onP0 = data(h, 0);
    assertThat(onP0).hasSize(1);
    // Each of the 4 parts is sealed on its own, so the joined object is 4 seals longer.
    assertThat(onP0.get(0).size()).isEqualTo(v.length + 4 * LogEntry.SEALED_PART_OVERHEAD);
    h.clouds.get(2).behave(TestCloud.Behaviour.CRASH);
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
    assertThat(h.run(store.read("big", r.version(), 2 * PART - 10, PART)))
        .isEqualTo(Arrays.copyOfRange(v, 2 * PART - 10, 3 * PART - 10));
    assertThat(h.run(store.verify("big")).findingsFor("p0")).isEmpty();
  }

  @Test
  void partsUnderTheCloudsMinimumUsePartObjects() throws Exception {
    Harness h =
        new Harness(
                1,
                4,
                i ->
                    i == 0
                        ? MemoryCloud.withMultipart("p0", PART + 1, 10_000)
                        : new MemoryCloud("p" + i))
            .rtts(10, 200, 50, 300);
    RafeStore store = store(h);
    byte[] v = PartsTest.random(3 * PART, 5);
    h.run(store.write("big", v));
    assertThat(names(h, 0)).hasSize(3).allMatch(n -> n.matches(".*\\.p\\d+$"));
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
  }

  @Test
  void aCompleteThatStoresGarbageIsMaskedReportedAndRepaired() throws Exception {
    Harness h = harness(Set.of(0, 1, 2, 3)).rtts(10, 20, 200, 300);
    RafeStore store = store(h);
    ByzantineCloud liar = h.clouds.get(0).byzantine();
    liar.behave(ByzantineCloud.Behaviour.CORRUPT_WRITES, k -> k.value().startsWith("d/"));
    byte[] v = PartsTest.random(5 * PART + 7, 6);
    WriteReceipt r = h.run(store.write("big", v));
    liar.honest();
    assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1");
    String object = names(h, 0).get(0);
    assertThat(h.run(h.stores.get(0).get(ObjectKey.of(object)))).isNotEqualTo(v);
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
    assertThat(h.run(store.read("big", r.version(), PART - 3, 3 * PART)))
        .isEqualTo(Arrays.copyOfRange(v, PART - 3, 4 * PART - 3));

    VerifyReport report = h.run(store.verify("big"));
    assertThat(report.findingsFor("p0"))
        .isNotEmpty()
        .allMatch(f -> f.problem() == Problem.DATA_CORRUPT && f.subject().equals(object));
    assertThat(report.findingsFor("p1")).isEmpty();

    RepairReport repair = h.run(store.repair("big"));
    assertThat(repair.after().isClean()).as(repair.toString()).isTrue();
    assertThat(h.run(h.stores.get(0).get(ObjectKey.of(object)))).isEqualTo(v);
    assertThat(names(h, 0)).containsExactly(object);
    assertThat(h.stores.get(0).openUploads()).isZero();
  }

  @Test
  void aJoinedHolderThatLostItsObjectIsRewrittenFromPartObjects() throws Exception {
    Harness h = harness(Set.of(0)).rtts(10, 200, 50, 300);
    RafeStore store = store(h);
    byte[] v = PartsTest.random(4 * PART, 7);
    h.run(store.write("big", v));
    String object = names(h, 0).get(0);
    h.run(h.stores.get(0).delete(ObjectKey.of(object)));
    VerifyReport report = h.run(store.verify("big"));
    assertThat(report.findingsFor("p0"))
        .isNotEmpty()
        .allMatch(f -> f.problem() == Problem.DATA_MISSING);
    RepairReport repair = h.run(store.repair("big"));
    assertThat(repair.after().isClean()).as(repair.toString()).isTrue();
    assertThat(repair.actions()).hasSize(1);
    assertThat(h.run(h.stores.get(0).get(ObjectKey.of(object)))).isEqualTo(v);
  }

  @Test
  void anUploadCancelledMidWayIsAbortedAndLeavesNothing() throws Exception {
    // p1 is chosen (low RTT) but slow to transfer: writeDf adds p2, and once writeM is done p1's
    // native upload is cancelled with parts still in flight.
    Harness h = harness(Set.of(0, 1)).rtts(10, 20, 100, 300);
    h.clouds.get(1).bandwidth(100_000);
    RafeStore store = store(h);
    byte[] v = PartsTest.random(8 * PART, 8);
    CloudStats before = store.stats().get("p1");
    WriteReceipt r = h.run(store.write("big", v));
    h.scheduler.runUntilIdle();
    assertThat(r.info().dataClouds()).doesNotContain("p1");
    CloudStats p1 = store.stats().get("p1").minus(before);
    // Parts were sent, then the abort was asked for (counted as a delete: the write itself
    // deletes nothing) and released every part.
    assertThat(p1.bytesUp()).as(p1.toString()).isPositive();
    assertThat(p1.deletes()).as(p1.toString()).isEqualTo(1);
    assertThat(h.stores.get(1).openUploads()).isZero();
    assertThat(names(h, 1)).isEmpty();
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
  }

  @Test
  void collectionDeletesJoinedObjects() throws Exception {
    Harness h = harness(Set.of(0, 1)).rtts(10, 20, 100, 300);
    RafeStore store = store(h);
    byte[] v1 = PartsTest.random(3 * PART, 9);
    byte[] v2 = PartsTest.random(3 * PART, 10);
    h.run(store.write("big", v1));
    List<String> first = names(h, 0);
    assertThat(first).hasSize(1);
    h.run(store.write("big", v2));
    assertThat(names(h, 0)).hasSize(2);
    h.run(store.collect("big", RetentionPolicy.keepLast(1)));
    assertThat(names(h, 0)).hasSize(1).doesNotContainAnyElementsOf(first);
    assertThat(names(h, 1)).hasSize(1).doesNotContainAnyElementsOf(first);
    h.run(store.delete("big"));
    h.run(store.collect("big", RetentionPolicy.keepLast(1)));
    assertThat(names(h, 0)).isEmpty();
    assertThat(names(h, 1)).isEmpty();
  }
}
