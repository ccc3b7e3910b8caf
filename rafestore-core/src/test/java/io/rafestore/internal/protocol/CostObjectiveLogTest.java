package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.CollectionReport;
import io.rafestore.Objective;
import io.rafestore.Pricing;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.RetentionPolicy;
import io.rafestore.VerifyReport;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.selection.LogTargets;
import io.rafestore.internal.util.Names;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * writeM under the cost objective (design.md section 5, "writeM under the cost objective"): the
 * signed log goes to the n - f cheapest clouds, the others are asked only when one of those fails
 * or is late; readers, a restarted writer, verify and repair stay correct; the latency objective
 * still sends every log to all n. Virtual time, in-memory clouds, f = 1 and f = 2.
 */
class CostObjectiveLogTest {
  static final String KEY = "k";

  /** n = 3f+1 clouds of 50 ms each, but the f expensive ones (p0..p{f-1}) answer in 5 ms. */
  private static Harness harness(int f) {
    Harness h = new Harness(f, 3 * f + 1);
    long[] rtts = new long[3 * f + 1];
    Arrays.fill(rtts, 50);
    for (int i = 0; i < f; i++) {
      rtts[i] = 5;
    }
    return h.rtts(rtts);
  }

  /** The f expensive clouds: three times the default prices. */
  private static Set<String> expensive(int f) {
    Set<String> out = new TreeSet<>();
    for (int i = 0; i < f; i++) {
      out.add("p" + i);
    }
    return out;
  }

  private static RafeStore.Builder builder(Harness h, Objective objective) {
    RafeStore.Builder b = h.inline(ProtocolMode.FAST).objective(objective);
    for (String c : expensive(h.f)) {
      b.pricing(c, Pricing.DEFAULT.times(3));
    }
    return b;
  }

  private static byte[] value(int i) {
    byte[] v = new byte[1024];
    Arrays.fill(v, (byte) i);
    return v;
  }

  /** The clouds that hold a metadata object of alice for {@link #KEY}. */
  private static Set<String> logHolders(Harness h) {
    Set<String> out = new TreeSet<>();
    for (int i = 0; i < h.stores.size(); i++) {
      var got = h.stores.get(i).get(Names.metadataObject(KEY, "alice"), Optional.empty());
      if (got.isDone() && !got.isCompletedExceptionally()) {
        out.add("p" + i);
      }
    }
    return out;
  }

  private static Set<String> cheap(Harness h) {
    Set<String> out = new TreeSet<>();
    for (int i = h.f; i < h.clouds.size(); i++) {
      out.add("p" + i);
    }
    return out;
  }

  private static long puts(RafeStore store, String cloud) {
    return store.stats().get(cloud).puts();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void theCostObjectivePutsTheLogOnTheNMinusFCheapestCloudsOnly(int f) throws Exception {
    Harness h = harness(f);
    try (RafeStore store = builder(h, Objective.cost()).build()) {
      for (int i = 0; i < 3; i++) {
        WriteReceipt r = h.run(store.write(KEY, value(i)));
        assertThat(new TreeSet<>(r.metadataAcks())).isEqualTo(cheap(h));
      }
      h.scheduler.advance(Duration.ofSeconds(40));
      for (String c : expensive(f)) {
        assertThat(puts(store, c)).as("puts on expensive " + c).isZero();
      }
      for (String c : cheap(h)) {
        assertThat(puts(store, c)).as("puts on cheap " + c).isEqualTo(3);
      }
      assertThat(logHolders(h)).isEqualTo(cheap(h));
    }
  }

  /**
   * The f clouds the cost objective skips answer first (5 ms) and hold no log: a collection's readM
   * must not stop at the first n - f replies, where no version is held by a quorum of them
   * (View.underQuorum), or it would collect nothing, ever; it waits for the cheap clouds too.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aCollectionCountsTheVersionsTheCheapCloudsHoldThoughTheSkippedOnesAnswerFirst(int f)
      throws Exception {
    Harness h = harness(f);
    try (RafeStore store = builder(h, Objective.cost()).build()) {
      for (int i = 0; i < 5; i++) {
        h.run(store.write(KEY, value(i)));
      }
      h.scheduler.advance(Duration.ofSeconds(40));
      assertThat(logHolders(h)).isEqualTo(cheap(h));
      CollectionReport r = h.run(store.collect(KEY, RetentionPolicy.keepLast(2)));
      assertThat(r.versionsCollected()).hasSize(3);
      assertThat(h.run(store.history(KEY, Optional.empty(), 100)).versions()).hasSize(2);
      assertThat(h.run(store.read(KEY)).value()).isEqualTo(value(4));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void theLatencyObjectiveStillPutsTheLogOnEveryCloud(int f) throws Exception {
    Harness h = harness(f);
    try (RafeStore store = builder(h, Objective.latency()).build()) {
      for (int i = 0; i < 3; i++) {
        h.run(store.write(KEY, value(i)));
      }
      h.scheduler.advance(Duration.ofSeconds(40));
      for (int i = 0; i < h.clouds.size(); i++) {
        assertThat(puts(store, "p" + i)).as("puts on p" + i).isEqualTo(3);
      }
      // A cloud without the newest log is still a finding under the latency objective.
      h.stores.get(h.clouds.size() - 1).delete(Names.metadataObject(KEY, "alice"));
      VerifyReport v = h.run(store.verify(KEY));
      assertThat(v.isClean()).isFalse();
      assertThat(v.laggingLogs()).isEmpty();
      assertThat(v.findings())
          .extracting(VerifyReport.Finding::problem)
          .containsExactly(VerifyReport.Problem.METADATA_MISSING);
    }
  }

  /** A weighted objective that values time skips the spares only when they save more. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aWeightedObjectiveSkipsTheExpensiveCloudsOnlyWhenTheSavingOutweighsTheTime(int f)
      throws Exception {
    // One cheap cloud is slow (500 ms): the n - f cheapest answer ~450 ms after the (n-f)-th
    // fastest of all, and skipping the expensive clouds saves about f x 3 x $5e-6 per write. At $1
    // per second the time wins; at $1e-9 per second the dollars do.
    Harness h = harness(f);
    h.clouds.get(h.clouds.size() - 1).rtt(Duration.ofMillis(500));
    try (RafeStore store = builder(h, Objective.weighted(1.0)).build()) {
      WriteReceipt r = h.run(store.write(KEY, value(1)));
      h.scheduler.advance(Duration.ofSeconds(40));
      for (int i = 0; i < h.clouds.size(); i++) {
        assertThat(puts(store, "p" + i)).as("puts on p" + i).isEqualTo(1);
      }
      assertThat(r.metadataAcks()).containsAll(expensive(f));
    }
    Harness h2 = harness(f);
    h2.clouds.get(h2.clouds.size() - 1).rtt(Duration.ofMillis(500));
    try (RafeStore store = builder(h2, Objective.weighted(1e-9)).build()) {
      WriteReceipt r = h2.run(store.write(KEY, value(1)));
      assertThat(new TreeSet<>(r.metadataAcks())).isEqualTo(cheap(h2));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aFailingCheapCloudIsReplacedAtOnceBySpares(int f) throws Exception {
    Harness h = harness(f);
    List<String> crashed = new ArrayList<>();
    for (int i = 0; i < f; i++) {
      int idx = h.clouds.size() - 1 - i;
      h.clouds.get(idx).behave(TestCloud.Behaviour.CRASH);
      crashed.add("p" + idx);
    }
    try (RafeStore store = builder(h, Objective.cost()).build()) {
      WriteReceipt r = h.run(store.write(KEY, value(1)));
      assertThat(r.metadataAcks()).hasSize(2 * f + 1).doesNotContainAnyElementsOf(crashed);
      assertThat(r.metadataAcks()).containsAll(expensive(f));
      // The spares went out when the failures came back, not at the hedge deadline.
      assertThat(r.latency())
          .isLessThan(LogTargets.hedgeAfter(Duration.ofMillis(50)).plusMillis(50));
      assertThat(h.run(store.read(KEY)).value()).isEqualTo(value(1));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aSilentCheapCloudIsHedgedAndThenRankedLast(int f) throws Exception {
    Harness h = harness(f);
    List<String> hung = new ArrayList<>();
    for (int i = 0; i < f; i++) {
      int idx = h.clouds.size() - 1 - i;
      h.clouds.get(idx).behave(TestCloud.Behaviour.HANG);
      hung.add("p" + idx);
    }
    try (RafeStore store = builder(h, Objective.cost()).build()) {
      WriteReceipt first = h.run(store.write(KEY, value(1)));
      assertThat(first.metadataAcks()).hasSize(2 * f + 1).doesNotContainAnyElementsOf(hung);
      assertThat(first.latency()).isGreaterThanOrEqualTo(Duration.ofMillis(100));
      // The hung clouds missed the deadline: the next write does not wait for them.
      WriteReceipt second = h.run(store.write(KEY, value(2)));
      assertThat(second.metadataAcks()).hasSize(2 * f + 1).doesNotContainAnyElementsOf(hung);
      assertThat(second.latency()).isLessThan(first.latency());
      assertThat(h.run(store.read(KEY)).value()).isEqualTo(value(2));
    }
  }

  /**
   * Another client, whose first answers come from the lagging (fastest) clouds, reads the newest
   * value; a restarted writer continues its log, and verify finds no fork.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void readersAndARestartedWriterSeeTheNewestLog(int f) throws Exception {
    Harness h = harness(f);
    try (RafeStore store = builder(h, Objective.cost()).build()) {
      for (int i = 0; i < 5; i++) {
        h.run(store.write(KEY, value(i)));
      }
    }
    // The lagging clouds hold no log at all; give them an old one, as a cloud that lagged later.
    try (RafeStore reader =
        h.build(
            ProtocolMode.FAST,
            (i, c) -> CloudRole.DATA_AND_METADATA,
            "bob",
            Harness.BOB,
            List.of("alice"),
            List.of(Harness.ALICE))) {
      assertThat(h.run(reader.read(KEY)).value()).isEqualTo(value(4));
    }
    long sequenceBefore;
    try (RafeStore restarted = builder(h, Objective.cost()).build()) {
      sequenceBefore = h.run(restarted.verify(KEY)).newestLogs().get("alice");
      for (int i = 5; i < 8; i++) {
        h.run(restarted.write(KEY, value(i)));
      }
      VerifyReport v = h.run(restarted.verify(KEY));
      assertThat(v.findings()).isEmpty();
      assertThat(v.newestLogs().get("alice")).isEqualTo(sequenceBefore + 3);
      assertThat(v.retainedVersions()).hasSize(8);
      assertThat(v.laggingLogs())
          .extracting(VerifyReport.Finding::cloudId)
          .containsExactlyInAnyOrderElementsOf(expensive(f));
    }
    try (RafeStore reader =
        h.build(
            ProtocolMode.PAPER,
            (i, c) -> CloudRole.DATA_AND_METADATA,
            "bob",
            Harness.BOB,
            List.of("alice"),
            List.of(Harness.ALICE))) {
      assertThat(h.run(reader.read(KEY)).value()).isEqualTo(value(7));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void verifyReportsTheLagAsInformationAndRepairOnlyRestoresTheQuorum(int f) throws Exception {
    Harness h = harness(f);
    try (RafeStore store = builder(h, Objective.cost()).build()) {
      for (int i = 0; i < 4; i++) {
        h.run(store.write(KEY, value(i)));
      }
      h.scheduler.advance(Duration.ofSeconds(40));
      VerifyReport v = h.run(store.verify(KEY));
      assertThat(v.isClean()).as(v.toString()).isTrue();
      assertThat(v.laggingLogs())
          .extracting(VerifyReport.Finding::cloudId)
          .containsExactlyInAnyOrderElementsOf(expensive(f));
      RepairReport r = h.run(store.repair(KEY));
      assertThat(r.actions()).isEmpty();
      assertThat(r.failures()).isEmpty();
      for (String c : expensive(f)) {
        assertThat(puts(store, c)).as("puts on expensive " + c).isZero();
      }
      // A cheap cloud loses its log: fewer than n - f hold the newest. That cloud (the cheapest
      // behind) is a finding and is repaired; the expensive ones stay behind.
      String lost = "p" + (h.clouds.size() - 1);
      h.stores.get(h.clouds.size() - 1).delete(Names.metadataObject(KEY, "alice"));
      VerifyReport damaged = h.run(store.verify(KEY));
      assertThat(damaged.findings())
          .extracting(VerifyReport.Finding::cloudId)
          .containsExactly(lost);
      assertThat(damaged.laggingLogs())
          .extracting(VerifyReport.Finding::cloudId)
          .containsExactlyInAnyOrderElementsOf(expensive(f));
      RepairReport fixed = h.run(store.repair(KEY));
      assertThat(fixed.actions()).hasSize(1);
      assertThat(fixed.actions().get(0)).startsWith(lost + ":");
      assertThat(fixed.after().isClean()).isTrue();
      for (String c : expensive(f)) {
        assertThat(puts(store, c)).as("puts on expensive " + c).isZero();
      }
      assertThat(logHolders(h)).isEqualTo(cheap(h));
    }
  }

  /**
   * f cheap clouds acknowledge log puts and drop them (Byzantine), and the f expensive ones are
   * never sent a log: only f+1 correct clouds hold the newest log, yet every reader's n - f replies
   * include one of them (quorum intersection), so readers under either objective read the newest
   * value; verify names the dropping clouds, not the expensive ones.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void byzantineCloudsThatDropLogsInThePlanDoNotHideTheNewestValue(int f) throws Exception {
    Harness h = harness(f);
    Set<String> droppers = new TreeSet<>();
    for (int i = 0; i < f; i++) {
      int idx = h.clouds.size() - 1 - i;
      h.clouds.get(idx).behave(TestCloud.Behaviour.DROP_WRITES);
      droppers.add("p" + idx);
    }
    try (RafeStore store = builder(h, Objective.cost()).build()) {
      for (int i = 0; i < 4; i++) {
        h.run(store.write(KEY, value(i)));
      }
      VerifyReport v = h.run(store.verify(KEY));
      assertThat(v.findings())
          .extracting(VerifyReport.Finding::cloudId)
          .containsExactlyInAnyOrderElementsOf(droppers);
      assertThat(v.laggingLogs())
          .extracting(VerifyReport.Finding::cloudId)
          .containsExactlyInAnyOrderElementsOf(expensive(f));
    }
    for (ProtocolMode mode : List.of(ProtocolMode.PAPER, ProtocolMode.FAST)) {
      try (RafeStore reader =
          h.build(
              mode,
              (i, c) -> CloudRole.DATA_AND_METADATA,
              "bob",
              Harness.BOB,
              List.of("alice"),
              List.of(Harness.ALICE))) {
        assertThat(h.run(reader.read(KEY)).value()).isEqualTo(value(3));
      }
    }
  }

  /** Data objects (packs) on each cloud, by cloud id. */
  private static java.util.Map<String, Integer> dataObjects(Harness h) throws Exception {
    java.util.Map<String, Integer> out = new java.util.TreeMap<>();
    for (int i = 0; i < h.stores.size(); i++) {
      out.put("p" + i, h.stores.get(i).list(Names.DATA_PREFIX).get().size());
    }
    return out;
  }

  /**
   * Packs of inline values go to the f+1 fastest data clouds under the latency objective (the
   * expensive ones, here) and to the f+1 cheapest under the cost objective.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void packsGoToTheCheapestDataCloudsUnderTheCostObjective(int f) throws Exception {
    for (Objective objective : List.of(Objective.latency(), Objective.cost())) {
      Harness h = harness(f);
      try (RafeStore store = builder(h, objective).build()) {
        for (int i = 0; i < 20; i++) {
          h.run(store.write(KEY, value(i)));
        }
        h.scheduler.advance(Duration.ofSeconds(40));
        java.util.Map<String, Integer> packs = dataObjects(h);
        int onExpensive = 0;
        int total = 0;
        for (var e : packs.entrySet()) {
          total += e.getValue();
          if (expensive(f).contains(e.getKey())) {
            onExpensive += e.getValue();
          }
        }
        assertThat(total).as("packs were made: " + packs).isPositive();
        if (objective.isCost()) {
          assertThat(onExpensive).as(packs.toString()).isZero();
        } else {
          assertThat(onExpensive).as(packs.toString()).isPositive();
        }
        assertThat(h.run(store.read(KEY)).value()).isEqualTo(value(19));
      }
    }
  }

  /** The plan itself: ranking, ties, demotion and the all-free case. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void thePlanRanksByPriceThenLatency(int f) {
    int n = 3 * f + 1;
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add("c" + i);
    }
    io.rafestore.internal.protocol.selection.LayoutChooser.Timing timing =
        new io.rafestore.internal.protocol.selection.LayoutChooser.Timing() {
          @Override
          public Duration upload(String cloud, long bytes, long batches) {
            return Duration.ofMillis(10L * (n - Integer.parseInt(cloud.substring(1))));
          }

          @Override
          public Duration fetch(String cloud, long bytes) {
            return upload(cloud, bytes, 1);
          }

          @Override
          public double linkBytesPerSecond() {
            return 1e9;
          }
        };
    io.rafestore.internal.protocol.selection.PriceBook.Price price =
        io.rafestore.internal.protocol.selection.PriceBook.LIST_PRICES;
    // Equal prices: the fastest n - f (the highest indexes) are the plan, the others spares.
    LogTargets.Plan p =
        LogTargets.plan(ids, f, 1024, Objective.cost(), timing, c -> price, Set.of());
    assertThat(p.first()).hasSize(n - f).doesNotContain("c0");
    assertThat(p.spares()).hasSize(f).contains("c0");
    assertThat(p.hedgeAfter()).isEqualTo(LogTargets.hedgeAfter(Duration.ofMillis(10L * (n - f))));
    // A demoted cloud goes last.
    LogTargets.Plan d =
        LogTargets.plan(ids, f, 1024, Objective.cost(), timing, c -> price, Set.of("c" + (n - 1)));
    assertThat(d.spares()).contains("c" + (n - 1));
    // Free clouds: nothing to save, every cloud at once.
    io.rafestore.internal.protocol.selection.PriceBook.Price free =
        new io.rafestore.internal.protocol.selection.PriceBook.Price(0, 0, 0, 0, 0);
    assertThat(
            LogTargets.plan(ids, f, 1024, Objective.cost(), timing, c -> free, Set.of())
                .everyCloud())
        .isTrue();
    assertThat(
            LogTargets.plan(ids, f, 1024, Objective.latency(), timing, c -> price, Set.of())
                .everyCloud())
        .isTrue();
  }
}
