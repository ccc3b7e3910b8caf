package io.rafestore.internal.protocol.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.VerifyReport;
import io.rafestore.VerifyReport.Problem;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Repair per part (issue 22): two holders of a parted value, each damaged in a different part, as
 * joined objects, part objects or one of each, plain and sealed. Every part still has a valid copy
 * somewhere, so one repair pass must rebuild both holders (gathering each part from whichever
 * holder has it right) and leave every stored object byte-exact with what the writer stored.
 */
class PartRepairTest {
  static final int PART = 16 * 1024;

  /** A value of five parts. */
  static final int SIZE = 4 * PART + 100;

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /**
   * Four clouds, p0 and p1 the write's two holders (fastest); {@code joined0}/{@code joined1} say
   * whether p0/p1 offer native multipart (and so store one joined object).
   */
  static Harness harness(boolean joined0, boolean joined1) {
    return new Harness(
            1,
            4,
            i ->
                (i == 0 && joined0) || (i == 1 && joined1)
                    ? MemoryCloud.withMultipart("p" + i, 1024, 10_000)
                    : new MemoryCloud("p" + i))
        .rtts(10, 20, 200, 300);
  }

  /** Every data object of {@code m}, by name, as the SHA-256 of its bytes (short to compare). */
  static Map<String, String> digests(MemoryCloud m) {
    Map<String, String> out = new TreeMap<>();
    data(m)
        .forEach(
            (k, v) ->
                out.put(
                    k,
                    java.util.HexFormat.of()
                        .formatHex(io.rafestore.internal.codec.Sha256.hash(v))));
    return out;
  }

  /** Every data object of {@code m}, by name. */
  static Map<String, byte[]> data(MemoryCloud m) {
    Map<String, byte[]> out = new TreeMap<>();
    for (ObjectInfo o : m.list("d/").join()) {
      out.put(o.key().value(), m.get(o.key(), java.util.Optional.empty()).join());
    }
    return out;
  }

  /**
   * Flips one byte of stored part {@code part} on {@code m}: inside its joined object at the part's
   * stored offset, or in its part object.
   */
  static void corruptPart(MemoryCloud m, int part, long storedPartLength) {
    corruptPartOf(m, "big", part, storedPartLength);
  }

  /** {@link #corruptPart} of the value of {@code key}. */
  static void corruptPartOf(MemoryCloud m, String key, int part, long storedPartLength) {
    Map<String, byte[]> objects = new TreeMap<>(data(m));
    objects.keySet().removeIf(k -> !k.startsWith("d/" + key + "/"));
    if (objects.size() == 1) {
      String name = objects.keySet().iterator().next();
      byte[] b = objects.get(name);
      b[(int) (part * storedPartLength) + 7] ^= 1;
      m.put(ObjectKey.of(name), b).join();
      return;
    }
    for (Map.Entry<String, byte[]> e : objects.entrySet()) {
      if (e.getKey().endsWith(".p" + part)) {
        byte[] b = e.getValue();
        b[7] ^= 1;
        m.put(ObjectKey.of(e.getKey()), b).join();
        return;
      }
    }
    throw new AssertionError("no part " + part + " on " + m.id());
  }

  @ParameterizedTest(name = "p0 joined {0}, p1 joined {1}, sealed {2}")
  @CsvSource({
    "true, true, false",
    "false, true, false",
    "true, false, false",
    "false, false, false",
    "true, true, true",
    "false, true, true"
  })
  void twoHoldersCorruptInDifferentPartsAreRepairedInOnePass(
      boolean joined0, boolean joined1, boolean sealed) throws Exception {
    Harness h = harness(joined0, joined1);
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .partSize(PART)
            .partsInFlight(2)
            .encryptValues(sealed)
            .build()) {
      byte[] v = random(SIZE, 22);
      WriteReceipt w = h.run(store.write("big", v));
      assertThat(w.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1");
      assertThat(data(h.stores.get(0))).hasSize(joined0 ? 1 : 5);
      assertThat(data(h.stores.get(1))).hasSize(joined1 ? 1 : 5);
      Map<String, String> written0 = digests(h.stores.get(0));
      Map<String, String> written1 = digests(h.stores.get(1));
      long partLength = (SIZE + 4) / 5;
      long stored = partLength + (sealed ? LogEntry.SEALED_PART_OVERHEAD : 0);

      corruptPart(h.stores.get(0), 0, stored);
      corruptPart(h.stores.get(1), 2, stored);
      assertThat(h.run(store.read("big")).value()).as("reads pick valid parts").isEqualTo(v);
      VerifyReport broken = h.run(store.verify("big"));
      assertThat(broken.findingsFor("p0"))
          .extracting(VerifyReport.Finding::problem)
          .containsExactly(Problem.DATA_CORRUPT);
      assertThat(broken.findingsFor("p1"))
          .extracting(VerifyReport.Finding::problem)
          .containsExactly(Problem.DATA_CORRUPT);

      RepairReport repair = h.run(store.repair("big"));
      assertThat(repair.failures()).as(repair.toString()).isEmpty();
      assertThat(repair.after().isClean()).as(repair.toString()).isTrue();
      assertThat(h.run(store.verify("big")).isClean()).isTrue();
      assertThat(digests(h.stores.get(0))).isEqualTo(written0);
      assertThat(digests(h.stores.get(1))).isEqualTo(written1);
      for (MemoryCloud m : h.stores) {
        assertThat(m.openUploads()).isZero();
      }

      // One pass was enough: either holder alone now serves the whole value.
      VerifyRepairTest.wipe(h.stores.get(1));
      assertThat(h.run(store.read("big")).value()).isEqualTo(v);
    }
  }

  /** Every data object of every cloud, by cloud index. */
  static java.util.List<Map<String, String>> allData(Harness h) {
    java.util.List<Map<String, String>> out = new java.util.ArrayList<>();
    for (MemoryCloud m : h.stores) {
      out.add(digests(m));
    }
    return out;
  }

  /** Clouds holding a data object of {@code key}, in order. */
  static java.util.List<Integer> holders(Harness h) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    for (int i = 0; i < h.stores.size(); i++) {
      if (!data(h.stores.get(i)).isEmpty()) {
        out.add(i);
      }
    }
    return out;
  }

  /**
   * Coded values with damaged fragments on several clouds (a fragment deleted on one, corrupted on
   * another): one pass rebuilds both from k valid ones, byte-exact. f = 2: Reed-Solomon (four
   * fragments, any two decode), sealed or not; DepSky-CA (a piece on each of at least n - f = 5
   * clouds, any three decode).
   */
  @ParameterizedTest(name = "{0} f={1} k={2} sealed {3}")
  @CsvSource({"PAPER, 2, 2, false", "PAPER, 2, 2, true", "DEPSKY_CA, 2, 0, false"})
  void codedValuesWithFragmentsDamagedOnSeveralCloudsAreRebuiltInOnePass(
      ProtocolMode mode, int f, int k, boolean sealed) throws Exception {
    Harness h = new Harness(f, 3 * f + 1);
    RafeStore.Builder b = h.builder(mode).encryptValues(sealed);
    if (k > 0) {
      b.erasureCoding(k);
    }
    try (RafeStore store = b.build()) {
      byte[] v = random(50_001, 7);
      h.run(store.write("coded", v));
      h.scheduler.runUntilIdle();
      java.util.List<Map<String, String>> written = allData(h);
      java.util.List<Integer> holders = holders(h);
      assertThat(holders).hasSizeGreaterThanOrEqualTo(4);
      // DepSky-CA's entry lists every cloud, and the pieces beyond the first n - f were cancelled:
      // those clouds are already missing theirs.
      VerifyReport initial = h.run(store.verify("coded"));
      int margin = initial.faultsSurvivable().getAsInt();
      MemoryCloud lost = h.stores.get(holders.get(0));
      MemoryCloud rotten = h.stores.get(holders.get(2));
      String object = data(lost).keySet().iterator().next();
      lost.delete(ObjectKey.of(object)).join();
      byte[] bad = data(rotten).get(object);
      bad[bad.length / 2] ^= 1;
      rotten.put(ObjectKey.of(object), bad).join();

      VerifyReport broken = h.run(store.verify("coded"));
      assertThat(broken.findings()).hasSize(initial.findings().size() + 2);
      assertThat(broken.faultsSurvivable()).as(broken.toString()).hasValue(margin - 2);
      assertThat(broken.oneFaultFromLoss()).isEqualTo(margin == 2);

      RepairReport repair = h.run(store.repair("coded"));
      assertThat(repair.failures()).as(repair.toString()).isEmpty();
      assertThat(repair.actions()).hasSize(initial.findings().size() + 2);
      assertThat(repair.after().isClean()).as(repair.toString()).isTrue();
      int pieces = h.run(store.verify("coded")).margins().get(0).faults();
      assertThat(pieces).isEqualTo(margin + initial.findings().size());
      java.util.List<Map<String, String>> now = allData(h);
      for (int i : holders) {
        assertThat(now.get(i)).isEqualTo(written.get(i));
      }
      assertThat(h.run(store.read("coded")).value()).isEqualTo(v);
    }
  }

  /**
   * The margin a verify reports: a parted value on two holders survives one more fault; with one
   * part corrupt on one holder it is one fault from loss, and the report says which part.
   */
  @org.junit.jupiter.api.Test
  void aValueOneFaultFromLossIsReportedAsSuch() throws Exception {
    Harness h = harness(false, true);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).partSize(PART).build()) {
      h.run(store.write("big", random(SIZE, 1)));
      h.run(store.write("small", random(100, 2)));
      VerifyReport clean = h.run(store.verify("big"));
      assertThat(clean.faultsSurvivable()).hasValue(1);
      assertThat(clean.oneFaultFromLoss()).isFalse();
      VerifyReport small = h.run(store.verify("small"));
      assertThat(small.faultsSurvivable()).hasValue(1);
      assertThat(small.margins().get(0).weakest()).isEqualTo("the value: 2 valid copies");

      corruptPart(h.stores.get(1), 3, (SIZE + 4) / 5);
      VerifyReport risky = h.run(store.verify("big"));
      assertThat(risky.faultsSurvivable()).hasValue(0);
      assertThat(risky.oneFaultFromLoss()).isTrue();
      assertThat(risky.lost()).isEmpty();
      VerifyReport.Margin m = risky.margins().get(0);
      assertThat(m.weakest()).isEqualTo("part 3: 1 valid copy");
      assertThat(m.toString()).contains("ONE FAULT FROM LOSS");
      assertThat(risky.toString()).contains("ONE FAULT FROM LOSS");

      // Metadata counts too: a log on only two clouds survives one more loss of it.
      h.run(store.repair("big"));
      for (int i = 2; i < 4; i++) {
        h.stores
            .get(i)
            .delete(io.rafestore.internal.util.Names.metadataObject("small", "alice"))
            .join();
      }
      VerifyReport thin = h.run(store.verify("small"));
      assertThat(thin.faultsSurvivable()).hasValue(1);
      h.stores
          .get(1)
          .delete(io.rafestore.internal.util.Names.metadataObject("small", "alice"))
          .join();
      // Three clouds lost the log: readM cannot see the version any more, and verify on the one
      // cloud left still finds it and reports it one fault from loss.
      VerifyReport last = h.run(store.verify("small"));
      assertThat(last.margins()).hasSize(1);
      assertThat(last.margins().get(0).weakest()).isEqualTo("metadata: on 1 cloud");
      assertThat(last.oneFaultFromLoss()).isTrue();
    }
  }

  /**
   * A part corrupt on both holders is lost: verify says so and names it, repair reports it missing
   * everywhere and still repairs what it can (another part damaged on one holder only).
   */
  @org.junit.jupiter.api.Test
  void anUnrecoverablePartIsReportedWithWhatIsMissing() throws Exception {
    Harness h = harness(false, true);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).partSize(PART).build()) {
      h.run(store.write("big", random(SIZE, 3)));
      Map<String, String> written0 = digests(h.stores.get(0));
      long stored = (SIZE + 4) / 5;
      corruptPart(h.stores.get(0), 1, stored);
      corruptPart(h.stores.get(1), 1, stored);
      corruptPart(h.stores.get(0), 4, stored);
      VerifyReport lost = h.run(store.verify("big"));
      assertThat(lost.lost()).hasSize(1);
      assertThat(lost.lost().get(0).missing()).containsExactly("part 1");
      assertThat(lost.toString()).contains("LOST").contains("part 1");

      RepairReport repair = h.run(store.repair("big"));
      assertThat(repair.isClean()).isFalse();
      assertThat(repair.failures())
          .as(repair.toString())
          .anyMatch(f -> f.startsWith("p0:") && f.contains("part 1 is missing everywhere"))
          .anyMatch(f -> f.startsWith("p1:") && f.contains("part 1 is missing everywhere"));
      assertThat(repair.actions())
          .containsExactly(
              "p0: data "
                  + written0.keySet().stream().filter(n -> n.endsWith(".p4")).findFirst().get()
                  + " of version "
                  + lost.retainedVersions().get(0));
      String p4 = written0.keySet().stream().filter(n -> n.endsWith(".p4")).findFirst().get();
      assertThat(digests(h.stores.get(0)).get(p4)).isEqualTo(written0.get(p4));
      assertThat(h.stores.get(1).openUploads()).isZero();
    }
  }
}
