package io.rafestore.internal.protocol.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.Version;
import io.rafestore.internal.protocol.read.HistoryGraph.NodeId;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The history graph alone: learning, balanced expansion, wrong predictions, its bounds. */
class HistoryGraphTest {
  static NodeId n(String key) {
    return new NodeId(key, 0, 1000);
  }

  static void access(HistoryGraph g, String key) {
    g.record(n(key), new Version(1, "alice"), null);
  }

  @Test
  void aRepeatedPatternIsPredictedMostLikelyFirst() {
    HistoryGraph g = new HistoryGraph(1000);
    for (int round = 0; round < 4; round++) {
      for (String k : List.of("a", "b", "c", "d")) {
        access(g, k);
      }
    }
    access(g, "a");
    assertThat(g.probability(n("a"), n("b"))).isEqualTo(1.0);
    List<HistoryGraph.Prediction> p = g.predict(n("a"), 3, 0.2);
    assertThat(p).extracting(x -> x.to().key()).containsExactly("b", "c", "d");
    assertThat(p.get(0).probability()).isGreaterThanOrEqualTo(p.get(1).probability());
  }

  @Test
  void balancedExpansionTakesTheLikeliestPathNotTheNearest() {
    HistoryGraph g = new HistoryGraph(1000);
    // a -> x (1 in 4), a -> b (3 in 4), b -> c always: c (0.75) is likelier than x (0.25).
    for (int i = 0; i < 4; i++) {
      access(g, "a");
      if (i == 0) {
        access(g, "x");
      } else {
        access(g, "b");
        access(g, "c");
      }
      access(g, "z");
    }
    List<HistoryGraph.Prediction> p = g.predict(n("a"), 2, 0.1);
    assertThat(p).extracting(x -> x.to().key()).containsExactly("b", "c");
  }

  @Test
  void wrongPredictionsLowerTheirEdges() {
    HistoryGraph g = new HistoryGraph(1000);
    for (int i = 0; i < 4; i++) {
      access(g, "a");
      access(g, "b");
    }
    double before = g.probability(n("a"), n("b"));
    // The pattern changes: a is followed by c; each prediction of b goes unused.
    for (int i = 0; i < 10; i++) {
      access(g, "a");
      g.predict(n("a"), 1, 0.01);
      access(g, "c");
      for (int j = 0; j < HistoryGraph.WINDOW + 1; j++) {
        access(g, "filler" + i + "-" + j);
      }
    }
    assertThat(g.probability(n("a"), n("b"))).isLessThan(before / 4);
    assertThat(g.predict(n("a"), 1, 0.2)).extracting(x -> x.to().key()).containsExactly("c");
    g.lower(n("a"), n("c"));
    assertThat(g.probability(n("a"), n("c"))).isLessThan(1.0);
  }

  @Test
  void memoryStaysBoundedOverAMillionAccesses() {
    HistoryGraph g = new HistoryGraph(10_000);
    SplittableRandom rnd = new SplittableRandom(5);
    for (int i = 0; i < 1_000_000; i++) {
      // A working set of 50,000 ranges, a third of them repeated in a fixed order.
      int k = i % 3 == 0 ? (i / 3) % 2_000 : rnd.nextInt(50_000);
      g.record(new NodeId("key" + (k / 8), (k % 8) * 4096L, (k % 8 + 1) * 4096L), null, null);
      if (i % 100_000 == 0) {
        assertThat(g.nodes()).isLessThanOrEqualTo(10_000);
      }
    }
    assertThat(g.nodes()).isLessThanOrEqualTo(10_000);
    assertThat(g.edges()).isLessThanOrEqualTo(10_000L * HistoryGraph.MAX_EDGES);
    assertThat(g.bytes()).isLessThan(10_000L * (300 + 80 * HistoryGraph.MAX_EDGES));
  }
}
