package io.rafestore.internal.protocol.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.ConditionOne;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.internal.protocol.Harness;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Condition 1 for the paper's Table 2 arrangements with its Table 1 RTTs. */
class ConditionOneTest {
  /** Orders clouds as the arrangement says: data first (in order), then extra, then metadata. */
  static RafeStore arrangement(Harness h, Set<Integer> metadataOnly) {
    return h.build(
        ProtocolMode.PAPER,
        (i, c) -> metadataOnly.contains(i) ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA,
        "alice",
        Harness.ALICE,
        List.of(),
        List.of());
  }

  @Test
  void configurationOneHolds() {
    ConditionOne c =
        arrangement(new Harness(1, 4).rtts(Harness.table1()), Set.of(3)).conditionOne();
    assertThat(c.lCloud()).isEqualTo("p0");
    assertThat(c.hhCloud()).isEqualTo("p1");
    assertThat(c.hCloud()).isEqualTo("p2");
    assertThat(c.l().toMillis()).isEqualTo(5);
    assertThat(c.h().toMillis()).isEqualTo(750);
    assertThat(c.hh().toMillis()).isEqualTo(315);
    assertThat(c.holds()).isTrue();
  }

  @Test
  void configurationTwoHolds() {
    // Data p1, p2; extra p3; metadata only p0.
    ConditionOne c =
        arrangement(new Harness(1, 4).rtts(Harness.table1()), Set.of(0)).conditionOne();
    assertThat(c.lCloud()).isEqualTo("p1");
    assertThat(c.hhCloud()).isEqualTo("p2");
    assertThat(c.holds()).isTrue();
  }

  @Test
  void configurationThreeFails() {
    // Data p0 and p3, extra p1, metadata only p2: a hand-made arrangement that is not fastest
    // first, so the data clouds are added in the paper's order and pinned.
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .writer("alice", Harness.ALICE)
            .dataCloudsInOrderAdded(true);
    for (int i : new int[] {0, 3, 1}) {
      b.cloud(h.clouds.get(i), CloudRole.DATA_AND_METADATA, h.clouds.get(i).rtt());
    }
    b.cloud(h.clouds.get(2), CloudRole.METADATA_ONLY, h.clouds.get(2).rtt());
    ConditionOne c = b.build().conditionOne();
    assertThat(c.lCloud()).isEqualTo("p0");
    assertThat(c.hhCloud()).isEqualTo("p3");
    assertThat(c.holds()).isFalse();
    assertThat(c.toString()).contains("fails");
  }

  @Test
  void sizeAwareFormFailsForLargeValuesInConfigurationOne() {
    RafeStore store = arrangement(new Harness(1, 4).rtts(Harness.table1()), Set.of(3));
    assertThat(store.conditionOne(1024).holds()).isTrue();
    // With the default 100 Mbit/s bandwidth assumption, 16 MB adds 1.3 s to both data terms,
    // so the size-aware form still holds; what breaks it in the paper is p1's lower bandwidth,
    // which the latency model learns from transfers or a probe (Table1PartsTest: with 2 Mbit/s
    // public clouds it holds at 64 KB and fails from 256 KB, as the paper's Table 3 found).
    assertThat(store.conditionOne(16L << 20).hh()).isGreaterThan(store.conditionOne(1024).hh());
  }
}
