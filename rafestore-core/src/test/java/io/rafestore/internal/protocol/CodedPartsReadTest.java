package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.WriteReceipt;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Reads of a value in coded parts (k = 2, fragments on three holders) place each part's fragments
 * on the holders predicted to deliver them soonest, counting the fragments the read's other parts
 * already put on each link (issue 16 item 3, issue 21). On virtual time with the WAN emulator, the
 * model's bandwidths taught by a probe. The read runs readM, then fetches the parts (coded parts
 * are not anticipated), so it cannot beat readM's round trip plus the fetch floor; asking the same
 * two holders for every part took twice that or more.
 */
class CodedPartsReadTest {

  /**
   * Table 1, configuration 1, scaled down from the benchmark's 16 MB in two 8 MB parts to 2 MiB in
   * two 1 MiB parts (512 KiB fragments). One fragment of each part from p0 (5 ms, 100 Mbit/s); the
   * second of one part from p1 (315 ms + 512 KiB at 2 Mbit/s = 2,412 ms) and of the other from p2
   * (750 ms + 2,097 ms = 2,847 ms), in parallel: the fetch floor is 2,847 ms. Asking p0 and p1 for
   * both parts put 1 MiB on p1's link: 315 + 4,194 ms.
   */
  @Test
  void theSecondFragmentsOfTwoPartsComeFromTwoHoldersAtOnce() throws Exception {
    Harness h = LayoutChoiceTest.table1();
    int part = 1 << 20;
    try (RafeStore store =
        LayoutChoiceTest.config1(h, ProtocolMode.FAST, b -> b.erasureCoding(2).partSize(part))) {
      LayoutChoiceTest.probe(h, store);
      byte[] v = PartsTest.random(2 * part, 5);
      WriteReceipt r = h.run(store.write("k", v));
      assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1", "p2");
      Map<String, CloudStats> before = store.stats();
      double ms = LayoutChoiceTest.readMillis(h, store, v);
      Map<String, Long> down = bytesDown(before, store.stats());
      double readM = 750;
      double fetchFloor = 750 + (part / 2) * 8e3 / 2e6;
      assertThat(ms).isBetween(fetchFloor, (readM + fetchFloor) * 1.02);
      // Each slow holder serves one fragment (plus its log), p0 one of each part.
      assertThat(down.get("p1")).isBetween(part / 2L, part / 2L + 4096);
      assertThat(down.get("p2")).isBetween(part / 2L, part / 2L + 4096);
      assertThat(down.get("p0")).isBetween((long) part, part + 4096L);
    }
  }

  /**
   * One holder's link ten times slower than the others': p0 (5 ms), p1 (20 ms) and p2 (2,500 ms)
   * hold the fragments; p0 and p2 at 20 Mbit/s, p1 at 2 Mbit/s; p3 (30 ms) holds metadata only, so
   * readM takes 30 ms. Four parts of 512 KiB, read at once (partsInFlight 4), 256 KiB fragments.
   * For one fragment p1 is the second fastest holder (20 + 1,049 ms against 2,500 + 105 ms), so
   * asking the k fastest for every part put all four second fragments on p1's link: 20 + 4,194 ms.
   * The floor: p0 serves one fragment of each part (5 + 4 x 105 ms), p1 two (20 + 2 x 1,049 = 2,117
   * ms), p2 two (2,500 + 2 x 105 = 2,710 ms); every other split ends later (p1 one and p2 three:
   * 2,815 ms; p1 three: 3,166 ms). The read must end within 10 % of readM plus that floor, and p1
   * serve at most its share in it, two fragments.
   */
  @Test
  void aHolderTenTimesSlowerServesOnlyItsShare() throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 20, 2500, 30);
    for (int i = 0; i < 4; i++) {
      h.clouds.get(i).bandwidth(i == 1 ? 2_000_000 : 20_000_000);
    }
    int part = 512 << 10;
    int fragment = part / 2;
    try (RafeStore store =
        h.builder(
                ProtocolMode.FAST,
                (i, c) -> i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA)
            .erasureCoding(2)
            .partSize(part)
            .partsInFlight(4)
            .build()) {
      h.run(store.probe(new io.rafestore.ProbeOptions(10, 1 << 20, 3, 16 << 20)));
      byte[] v = PartsTest.random(4 * part, 6);
      WriteReceipt r = h.run(store.write("k", v));
      assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1", "p2");
      Map<String, CloudStats> before = store.stats();
      double ms = LayoutChoiceTest.readMillis(h, store, v);
      Map<String, Long> down = bytesDown(before, store.stats());
      double readM = 30;
      double floor = 2500 + 2 * fragment * 8e3 / 20e6;
      assertThat(ms).isBetween(floor, (readM + floor) * 1.1);
      assertThat(down.get("p1")).isLessThanOrEqualTo(2L * fragment + 4096);
      // Every part's first fragment from p0, the nearest.
      assertThat(down.get("p0")).isBetween(4L * fragment, 4L * fragment + 4096);
    }
  }

  /**
   * The same rule for whole copies in parts: holders p0 (5 ms, 20 Mbit/s) and p1 (20 ms, 10
   * Mbit/s); p2 (30 ms, 2 Mbit/s) is writeDf's spare, p3 metadata only (readM 30 ms). Three parts
   * of 1 MiB read at once: all from p0 would take 5 + 3 x 419 = 1,263 ms; two from p0 (844 ms) and
   * one from p1 (20 + 839 = 859 ms) is the floor, and the read ends within 10 % of readM plus it,
   * p1 serving one part.
   */
  @Test
  void wholePartsAreSplitBetweenHoldersWhenThatIsPredictedFaster() throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 20, 30, 40);
    for (int i = 0; i < 4; i++) {
      h.clouds.get(i).bandwidth(i == 1 ? 10_000_000 : i == 2 ? 2_000_000 : 20_000_000);
    }
    int part = 1 << 20;
    try (RafeStore store =
        h.builder(
                ProtocolMode.FAST,
                (i, c) -> i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA)
            .partSize(part)
            .build()) {
      h.run(store.probe(new io.rafestore.ProbeOptions(10, 1 << 20, 3, 16 << 20)));
      byte[] v = PartsTest.random(3 * part, 7);
      WriteReceipt r = h.run(store.write("k", v));
      assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1");
      Map<String, CloudStats> before = store.stats();
      double ms = LayoutChoiceTest.readMillis(h, store, v);
      Map<String, Long> down = bytesDown(before, store.stats());
      double floor = 20 + part * 8e3 / 10e6;
      assertThat(ms).isBetween(floor, (30 + floor) * 1.1);
      assertThat(down.get("p1")).isBetween((long) part, part + 4096L);
      assertThat(down.get("p0")).isBetween(2L * part, 2L * part + 4096);
    }
  }

  static Map<String, Long> bytesDown(
      Map<String, CloudStats> before, Map<String, CloudStats> after) {
    Map<String, Long> out = new java.util.HashMap<>();
    after.forEach((c, s) -> out.put(c, s.bytesDown() - before.get(c).bytesDown()));
    return out;
  }
}
