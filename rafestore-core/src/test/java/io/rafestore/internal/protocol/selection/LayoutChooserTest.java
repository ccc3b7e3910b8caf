package io.rafestore.internal.protocol.selection;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.LayoutChoice.Kind;
import io.rafestore.Objective;
import io.rafestore.ProtocolMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The layout chooser alone, on the paper's Table 1 profile (RTTs 5, 315, 750, 1200 ms; p0 on the
 * LAN at 100 Mbit/s, p1 to p3 at 2 Mbit/s; the client's link 100 Mbit/s) and its Table 2
 * configurations, with predictions given exactly (no model to warm up).
 */
class LayoutChooserTest {
  static final long KB = 1024;
  static final long MB = KB * KB;
  static final Map<String, Long> RTT_MS = Map.of("p0", 5L, "p1", 315L, "p2", 750L, "p3", 1200L);
  static final Map<String, Double> BYTES_PER_S =
      Map.of("p0", 12.5e6, "p1", 250e3, "p2", 250e3, "p3", 250e3);
  static final List<String> ALL = List.of("p0", "p1", "p2", "p3");

  /** Table 1 as the latency model would predict it once measured. */
  static final LayoutChooser.Timing TABLE1 =
      new LayoutChooser.Timing() {
        @Override
        public Duration upload(String cloud, long bytes, long batches) {
          return fetch(cloud, bytes).plusMillis(RTT_MS.get(cloud) * (batches - 1));
        }

        @Override
        public Duration fetch(String cloud, long bytes) {
          return Duration.ofMillis(RTT_MS.get(cloud))
              .plusNanos((long) (bytes / BYTES_PER_S.get(cloud) * 1e9));
        }

        @Override
        public double linkBytesPerSecond() {
          return 12.5e6;
        }
      };

  /** Configuration 1: data on p0, p1 (p2 the writeDf extra), p3 metadata only. */
  static final List<String> CONFIG1_DATA = List.of("p0", "p1", "p2");

  /** Configuration 2: data on p1, p2 (p3 the extra), p0 metadata only. */
  static final List<String> CONFIG2_DATA = List.of("p1", "p2", "p3");

  /** Configuration 3: data on p0, p3 (p1 the extra), p2 metadata only. */
  static final List<String> CONFIG3_DATA = List.of("p0", "p1", "p3");

  static LayoutChooser.Request request(
      long size, List<String> data, ProtocolMode mode, boolean inline, Objective objective) {
    return new LayoutChooser.Request(size, data, ALL, 1, mode, false, inline, 8 * MB, 4, objective);
  }

  static LayoutChooser.Decision choose(LayoutChooser.Request r) {
    return LayoutChooser.choose(r, TABLE1, PriceBook.LIST);
  }

  @Test
  void smallValuesGoWholeOnTheNearestCloudsOrInlineWhereAllowed() {
    for (ProtocolMode mode : List.of(ProtocolMode.PAPER, ProtocolMode.FAST)) {
      for (List<String> data : List.of(CONFIG1_DATA, CONFIG2_DATA)) {
        for (long size : new long[] {KB, 64 * KB}) {
          LayoutChooser.Decision d = choose(request(size, data, mode, false, Objective.latency()));
          assertThat(d.chosen().candidate().kind()).as(mode + " " + data).isEqualTo(Kind.WHOLE);
          assertThat(d.chosen().candidate().clouds()).isEqualTo(data.subList(0, 2));
          assertThat(d.runnerUp()).isPresent();
          assertThat(d.reason()).startsWith("latency: WHOLE on ");
        }
        // 1 KB in the log costs the same readM and writeM and saves the data puts; 64 KB in the
        // log would cross p2's thin link in writeM, so it goes whole (design.md: the threshold).
        assertThat(
                choose(request(KB, data, mode, true, Objective.latency()))
                    .chosen()
                    .candidate()
                    .kind())
            .isEqualTo(Kind.INLINE);
        if (mode == ProtocolMode.PAPER && data == CONFIG1_DATA) {
          assertThat(
                  choose(request(64 * KB, data, mode, true, Objective.latency()))
                      .chosen()
                      .candidate()
                      .kind())
              .isEqualTo(Kind.WHOLE);
        }
      }
    }
  }

  @Test
  void aSoleWriterThatSkipsReadMWritesInlineInOneRoundTrip() {
    LayoutChooser.Request r =
        new LayoutChooser.Request(
            KB,
            CONFIG1_DATA,
            ALL,
            1,
            ProtocolMode.FAST,
            true,
            true,
            8 * MB,
            4,
            Objective.latency());
    LayoutChooser.Decision d = choose(r);
    assertThat(d.chosen().candidate().kind()).isEqualTo(Kind.INLINE);
    // One writeM: a round trip to the (n-f)-th fastest cloud, 750 ms (plus 1.5 KB at 2 Mbit/s).
    assertThat(d.chosen().candidate().predictedTime()).isBetween(ms(750), ms(760));
    // Whole copies still wait for p1's upload before writeM: 315 + 750 ms.
    assertThat(d.runnerUp().orElseThrow().candidate().predictedTime())
        .isBetween(ms(1065), ms(1075));
  }

  @Test
  void largeValuesOnThinLinksAreCoded() {
    for (ProtocolMode mode : List.of(ProtocolMode.PAPER, ProtocolMode.FAST)) {
      for (List<String> data : List.of(CONFIG1_DATA, CONFIG2_DATA)) {
        for (long size : new long[] {MB, 4 * MB, 16 * MB}) {
          LayoutChooser.Decision d = choose(request(size, data, mode, true, Objective.latency()));
          assertThat(d.chosen().candidate().kind())
              .as(mode + " " + data + " " + size)
              .isEqualTo(Kind.CODED);
          assertThat(d.chosen().candidate().k()).isEqualTo(2);
          assertThat(d.chosen().candidate().clouds()).containsExactlyInAnyOrderElementsOf(data);
          // Half the bytes to each of three clouds instead of all of them to two.
          Duration whole =
              d.considered().stream()
                  .filter(o -> o.candidate().kind() == Kind.WHOLE)
                  .findFirst()
                  .orElseThrow()
                  .candidate()
                  .predictedTime();
          assertThat(d.chosen().candidate().predictedTime()).isLessThan(whole);
        }
      }
    }
  }

  @Test
  void configurationOneAtFourMegabytesPredictsThePhases() {
    LayoutChooser.Decision d =
        choose(request(4 * MB, CONFIG1_DATA, ProtocolMode.FAST, false, Objective.latency()));
    // Coded: 2 MiB fragments; p2's ends last at 750 + 8389 ms; then writeM (750 ms).
    assertThat(d.chosen().candidate().predictedTime().toMillis()).isBetween(9880L, 9900L);
    // Whole on p0, p1: p1's 4 MiB at 2 Mbit/s ends at 315 + 16777 ms, then writeM.
    assertThat(d.runnerUp().orElseThrow().candidate().predictedTime().toMillis())
        .isBetween(17830L, 17850L);
  }

  @Test
  void theCostObjectiveMovesDataToACheapCloudWhenConditionOneHoldsAndLatencyDoesNot() {
    PriceBook p3Cheap =
        cloud -> cloud.equals("p3") ? PriceBook.LIST_PRICES.times(0.1) : PriceBook.LIST_PRICES;
    // Configuration 2, 1 KB: p3 (1200 ms) ends before p2's upload plus readM (750 + 750 ms).
    LayoutChooser.Decision cost =
        LayoutChooser.choose(
            request(KB, CONFIG2_DATA, ProtocolMode.FAST, false, Objective.cost()), TABLE1, p3Cheap);
    assertThat(cost.chosen().candidate().kind()).isEqualTo(Kind.WHOLE);
    assertThat(cost.chosen().candidate().clouds()).contains("p3");
    assertThat(cost.chosen().conditionOne()).isTrue();
    assertThat(cost.reason()).contains("Condition 1 holds");
    LayoutChooser.Decision latency =
        LayoutChooser.choose(
            request(KB, CONFIG2_DATA, ProtocolMode.FAST, false, Objective.latency()),
            TABLE1,
            p3Cheap);
    assertThat(latency.chosen().candidate().clouds()).containsExactly("p1", "p2");
    assertThat(cost.chosen().candidate().predictedUsd())
        .isLessThan(latency.chosen().candidate().predictedUsd());
  }

  @Test
  void theCostObjectiveKeepsAwayFromACheapCloudThatBreaksConditionOne() {
    PriceBook p3Cheap =
        cloud -> cloud.equals("p3") ? PriceBook.LIST_PRICES.times(0.1) : PriceBook.LIST_PRICES;
    // Configuration 3: readM takes 750 ms, so p3 (1200 ms) would land after p0 + readM and after
    // p1 + readM: every set with p3 misses Condition 1.
    LayoutChooser.Decision d =
        LayoutChooser.choose(
            request(KB, CONFIG3_DATA, ProtocolMode.PAPER, false, Objective.cost()),
            TABLE1,
            p3Cheap);
    assertThat(d.chosen().candidate().clouds()).doesNotContain("p3");
    assertThat(d.considered())
        .filteredOn(o -> o.candidate().clouds().contains("p3") && !o.fastestSet())
        .isEmpty();
  }

  @Test
  void aWeightBetweenTheTwoTradesSecondsForDollars() {
    PriceBook p3Cheap =
        cloud -> cloud.equals("p3") ? PriceBook.LIST_PRICES.times(0.1) : PriceBook.LIST_PRICES;
    // Configuration 2 at 64 KB: {p1, p3} is cheaper but slower than {p1, p2}.
    LayoutChooser.Request cheap =
        request(64 * KB, CONFIG2_DATA, ProtocolMode.FAST, false, Objective.weighted(1e-12));
    assertThat(LayoutChooser.choose(cheap, TABLE1, p3Cheap).chosen().candidate().clouds())
        .contains("p3");
    LayoutChooser.Request dear =
        request(64 * KB, CONFIG2_DATA, ProtocolMode.FAST, false, Objective.weighted(1.0));
    assertThat(LayoutChooser.choose(dear, TABLE1, p3Cheap).chosen().candidate().clouds())
        .containsExactly("p1", "p2");
  }

  @Test
  void everyKFromTwoToDataCloudsLessFIsConsidered() {
    List<String> all = List.of("a", "b", "c", "d", "e", "f", "g");
    LayoutChooser.Timing flat =
        new LayoutChooser.Timing() {
          @Override
          public Duration upload(String cloud, long bytes, long batches) {
            return fetch(cloud, bytes);
          }

          @Override
          public Duration fetch(String cloud, long bytes) {
            return Duration.ofMillis(50).plusNanos(bytes * 100);
          }

          @Override
          public double linkBytesPerSecond() {
            return 1e9;
          }
        };
    LayoutChooser.Decision d =
        LayoutChooser.choose(
            new LayoutChooser.Request(
                64 * MB,
                all,
                all,
                2,
                ProtocolMode.FAST,
                false,
                false,
                8 * MB,
                4,
                Objective.latency()),
            flat,
            PriceBook.LIST);
    assertThat(d.considered())
        .extracting(o -> o.candidate().k())
        .containsExactlyInAnyOrder(0, 2, 3, 4, 5);
    // Equal clouds and a wide link: the most data fragments move the fewest bytes per cloud.
    assertThat(d.chosen().candidate().k()).isEqualTo(5);
    assertThat(d.chosen().candidate().clouds()).hasSize(7);
  }

  static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
