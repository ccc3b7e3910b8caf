package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.Layout;
import io.rafestore.Objective;
import io.rafestore.Pricing;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.WriteReceipt;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The cost model users configure (issue 18): the per-cloud prices of {@code Builder.pricing} are
 * what the layout chooser weighs and what {@code stats()} bills, end to end on Table 1 (virtual
 * time, in-memory clouds).
 */
class CostModelTest {
  static final int WRITES = 20;

  /**
   * Configuration 2 (p0 metadata only; data clouds p1 315 ms, p2 750 ms, p3 1,200 ms), p3 priced
   * ten times cheaper, 1 KB values as data objects: Condition 1 holds for {p1, p2} and for {p2, p3}
   * (p3's upload ends before p2's plus readM), so the cost objective puts every value on p3 and the
   * bill falls; the latency objective keeps the fastest pair and never touches p3's data.
   */
  @Test
  void theCostObjectiveMovesDataToTheCheapCloudAndTheLatencyObjectiveDoesNot() throws Exception {
    double latencyBill = 0;
    double costBill = 0;
    for (Objective objective : new Objective[] {Objective.latency(), Objective.cost()}) {
      Harness h = LayoutChoiceTest.table1();
      try (RafeStore store =
          h.builder(
                  ProtocolMode.FAST,
                  (i, c) -> i == 0 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA)
              .layout(Layout.AUTO)
              .objective(objective)
              .pricing("p3", Pricing.DEFAULT.times(0.1))
              .build()) {
        long p3DataPuts = 0;
        for (int i = 0; i < WRITES; i++) {
          WriteReceipt r = h.run(store.write("k" + i, PartsTest.random(1024, i)));
          assertThat(r.onlyNeededDataClouds()).as("no writeDf: Condition 1 held").isTrue();
          if (r.info().dataClouds().contains("p3")) {
            p3DataPuts++;
          }
        }
        double bill = 0;
        for (CloudStats s : store.stats().values()) {
          bill += s.dollars();
        }
        if (objective.equals(Objective.cost())) {
          assertThat(p3DataPuts).as("values on the cheap cloud").isEqualTo(WRITES);
          costBill = bill;
        } else {
          assertThat(p3DataPuts).as("values on the cheap cloud").isZero();
          latencyBill = bill;
        }
      }
    }
    // Per write: 2 data puts, 4 metadata puts and readM's 4 gets (the first write of each key); the
    // cost objective pays a tenth for one of the data puts.
    assertThat(costBill).isLessThan(latencyBill * 0.95);
  }

  /** {@code stats()} prices each cloud's requests and egress at that cloud's own prices. */
  @Test
  void statsBillEachCloudAtItsOwnPrices() throws Exception {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    Pricing odd = new Pricing(1, 2, 3, 4, 5);
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER).pricing("p1", odd).pricing("p2", Pricing.FREE).build()) {
      for (int i = 0; i < 5; i++) {
        h.run(store.write("k", PartsTest.random(4096, i)));
        h.run(store.read("k"));
      }
      h.run(store.keys());
      Map<String, CloudStats> stats = store.stats();
      CloudStats p1 = stats.get("p1");
      assertThat(p1.gets()).isPositive();
      assertThat(p1.requestDollars())
          .isCloseTo(p1.puts() * 1e-3 + p1.gets() * 2e-3 + p1.lists() * 3e-3, Offset.offset(1e-12));
      assertThat(p1.egressDollars()).isCloseTo(p1.bytesDown() * 4 / 1e9, Offset.offset(1e-15));
      assertThat(stats.get("p2").dollars()).isZero();
      CloudStats p0 = stats.get("p0");
      assertThat(p0.dollars())
          .isCloseTo(
              p0.puts() * 0.005 / 1000
                  + p0.gets() * 0.0004 / 1000
                  + p0.lists() * 0.005 / 1000
                  + p0.bytesDown() * 0.09 / 1e9,
              Offset.offset(1e-12));
      // A difference of two snapshots is the spend between them.
      assertThat(stats.get("p1").minus(stats.get("p1")).dollars()).isZero();
    }
  }
}
