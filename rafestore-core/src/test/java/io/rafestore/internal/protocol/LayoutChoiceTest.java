package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.Layout;
import io.rafestore.LayoutChoice;
import io.rafestore.Objective;
import io.rafestore.ProbeOptions;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The layout chosen per value ({@link Layout#AUTO}) end to end, on virtual time with the paper's
 * Table 1 (RTTs 5, 315, 750, 1200 ms; p0 at 100 Mbit/s, p1 to p3 at 2 Mbit/s) after a probe has
 * taught the model the bandwidths; and the read of a coded value against a whole copy.
 */
class LayoutChoiceTest {

  static Harness table1() {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    h.clouds.get(0).bandwidth(100_000_000);
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).bandwidth(2_000_000);
    }
    return h;
  }

  /** Configuration 1's roles (p3 metadata only), with the given layout settings. */
  static RafeStore config1(
      Harness h, ProtocolMode mode, java.util.function.UnaryOperator<RafeStore.Builder> layout) {
    return layout
        .apply(
            h.builder(
                mode, (i, c) -> i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA))
        .build();
  }

  static void probe(Harness h, RafeStore store) throws Exception {
    h.run(store.probe(new ProbeOptions(10, 1 << 20, 3, 1 << 20)));
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void smallValuesGoWholeToTheNearestCloudsAndLargeOnesAreCoded(ProtocolMode mode)
      throws Exception {
    Harness h = table1();
    try (RafeStore store = config1(h, mode, b -> b.layout(Layout.AUTO))) {
      probe(h, store);
      byte[] small = PartsTest.random(1024, 1);
      WriteReceipt r = h.run(store.write("k", small));
      LayoutChoice c = r.layoutChoice().orElseThrow();
      assertThat(c.chosen().kind()).isEqualTo(LayoutChoice.Kind.WHOLE);
      assertThat(c.chosen().clouds()).containsExactly("p0", "p1");
      assertThat(c.runnerUp().orElseThrow().kind()).isEqualTo(LayoutChoice.Kind.CODED);
      assertThat(c.objective()).isEqualTo(Objective.latency());
      assertThat(c.reason()).startsWith("latency: WHOLE on [p0, p1]");
      assertThat(r.dataCloudsContacted()).containsExactly("p0", "p1");
      assertThat(r.onlyNeededDataClouds()).isTrue();
      assertThat(h.run(store.read("k")).value()).isEqualTo(small);

      byte[] large = PartsTest.random(4 << 20, 2);
      long start = h.scheduler.nanoTime();
      WriteReceipt big = h.run(store.write("k", large));
      Duration took = Duration.ofNanos(h.scheduler.nanoTime() - start);
      LayoutChoice cb = big.layoutChoice().orElseThrow();
      assertThat(cb.chosen().kind()).isEqualTo(LayoutChoice.Kind.CODED);
      assertThat(cb.chosen().k()).isEqualTo(2);
      assertThat(cb.chosen().clouds()).containsExactlyInAnyOrder("p0", "p1", "p2");
      assertThat(big.info().dataClouds()).containsExactlyElementsOf(cb.chosen().clouds());
      assertThat(big.onlyNeededDataClouds()).isTrue();
      assertThat(big.writeDfUsed()).isFalse();
      // The prediction is within 10 % of what the emulated network took.
      assertThat((double) took.toNanos())
          .isCloseTo(
              cb.chosen().predictedTime().toNanos(),
              org.assertj.core.data.Percentage.withPercentage(10));
      assertThat(cb.chosen().predictedTime())
          .isLessThan(cb.runnerUp().orElseThrow().predictedTime());
      assertThat(h.run(store.read("k")).value()).isEqualTo(large);
    }
  }

  @Test
  void aFixedLayoutHasNoChoiceOnItsReceiptAndAutoRefusesAFixedK() throws Exception {
    Harness h = table1();
    try (RafeStore store = h.client(ProtocolMode.FAST)) {
      WriteReceipt r = h.run(store.write("k", new byte[10]));
      assertThat(r.layoutChoice()).isEmpty();
      assertThat(r.onlyNeededDataClouds()).isEqualTo(r.onlyFPlusOneDataClouds());
    }
    assertThatThrownBy(
            () -> h.builder(ProtocolMode.FAST).layout(Layout.AUTO).erasureCoding(2).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layout AUTO")
        .hasMessageContaining("erasureCoding(2)");
    assertThatThrownBy(() -> h.builder(ProtocolMode.DEPSKY_A).layout(Layout.AUTO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only the RafeStore modes");
  }

  @Test
  void theCostObjectiveLowersTheAnticipatedReadLimitUnlessItWasSet() {
    Harness h = table1();
    RafeStore cost = h.builder(ProtocolMode.FAST).objective(Objective.cost()).build();
    assertThat(Harness.settings(cost).speculativeReadLimit())
        .isEqualTo(Objective.COST_SPECULATIVE_READ_LIMIT);
    RafeStore set =
        h.builder(ProtocolMode.FAST)
            .objective(Objective.cost())
            .speculativeReadLimit(1 << 20)
            .build();
    assertThat(Harness.settings(set).speculativeReadLimit()).isEqualTo(1 << 20);
    RafeStore latency = h.builder(ProtocolMode.FAST).build();
    assertThat(Harness.settings(latency).speculativeReadLimit()).isEqualTo(8L << 20);
  }

  /**
   * Issue 16: a read of a coded value fetches its fragments from the holders predicted fastest and
   * is not slower than a whole copy from the nearest holder by more than the physics requires.
   * Configuration 1, 1 MiB, after a probe: a whole copy comes from p0 (5 ms, 100 Mbit/s) while
   * readM (750 ms) runs, so the read takes about readM; k = 2 fragments of 512 KiB need the two
   * nearest holders, p0 and p1, and p1's takes 315 ms + 512 KiB at 2 Mbit/s = 2,412 ms. The coded
   * read must take no more than that floor (plus 5 %), and must not ask p2.
   */
  @Test
  void aCodedReadIsAsFastAsItsFragmentsFromTheNearestHoldersAllow() throws Exception {
    long size = 1 << 20;
    double readM = 750;
    double wholeFloor = Math.max(readM, 5 + size * 8e3 / 100e6);
    double codedFloor = Math.max(readM, 315 + (size / 2) * 8e3 / 2e6);

    Harness hw = table1();
    double whole;
    try (RafeStore store = config1(hw, ProtocolMode.FAST, b -> b)) {
      probe(hw, store);
      byte[] v = PartsTest.random((int) size, 3);
      hw.run(store.write("k", v));
      whole = readMillis(hw, store, v);
    }
    Harness hc = table1();
    double coded;
    try (RafeStore store = config1(hc, ProtocolMode.FAST, b -> b.erasureCoding(2))) {
      probe(hc, store);
      byte[] v = PartsTest.random((int) size, 3);
      WriteReceipt r = hc.run(store.write("k", v));
      assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p1", "p2");
      long p2Gets = store.stats().get("p2").gets();
      coded = readMillis(hc, store, v);
      // readM asks every cloud for its log (one get each); p2's fragment is never asked for.
      assertThat(store.stats().get("p2").gets() - p2Gets).isEqualTo(1);
    }
    assertThat(whole).isBetween(wholeFloor, wholeFloor * 1.05);
    assertThat(coded).isBetween(codedFloor, codedFloor * 1.05);
    // The coded read is slower than the whole copy by what its second fragment's link costs.
    assertThat(coded - whole).isLessThanOrEqualTo((codedFloor - wholeFloor) * 1.05 + 10);
  }

  static double readMillis(Harness h, RafeStore store, byte[] expected) throws Exception {
    long start = h.scheduler.nanoTime();
    StoredValue v = h.run(store.read("k"));
    assertThat(v.value()).isEqualTo(expected);
    return (h.scheduler.nanoTime() - start) / 1e6;
  }
}
