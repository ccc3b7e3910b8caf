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

  /** Every data object of {@code m}, by name. */
  static Map<String, byte[]> data(MemoryCloud m) {
    Map<String, byte[]> out = new TreeMap<>();
    for (ObjectInfo o : m.list("d/").join()) {
      out.put(o.key().value(), m.get(o.key(), java.util.Optional.empty()).join());
    }
    return out;
  }

  /**
   * Flips one byte of stored part {@code part} on {@code m}: inside its joined object at the
   * part's stored offset, or in its part object.
   */
  static void corruptPart(MemoryCloud m, int part, long storedPartLength) {
    Map<String, byte[]> objects = data(m);
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
      Map<String, byte[]> written0 = data(h.stores.get(0));
      Map<String, byte[]> written1 = data(h.stores.get(1));
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
      assertThat(data(h.stores.get(0))).containsExactlyInAnyOrderEntriesOf(written0);
      assertThat(data(h.stores.get(1))).containsExactlyInAnyOrderEntriesOf(written1);
      for (MemoryCloud m : h.stores) {
        assertThat(m.openUploads()).isZero();
      }

      // One pass was enough: either holder alone now serves the whole value.
      VerifyRepairTest.wipe(h.stores.get(1));
      assertThat(h.run(store.read("big")).value()).isEqualTo(v);
    }
  }
}
