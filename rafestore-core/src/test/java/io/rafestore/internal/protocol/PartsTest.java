package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.IntegrityException;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Large values in parts on virtual time: layout, whole and ranged reads, faults, deletes. */
class PartsTest {
  static final int PART = 16 * 1024;

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  static RafeStore store(Harness h, ProtocolMode mode) {
    return h.builder(mode).partSize(PART).partsInFlight(2).build();
  }

  static List<String> dataNames(Harness h, MemoryCloud m) throws Exception {
    List<String> out = new ArrayList<>();
    for (ObjectInfo o : h.run(m.list("d/"))) {
      out.add(o.key().value());
    }
    return out;
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void partedValueRoundTripsAndRangesAreExact(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 50, 100, 200);
    RafeStore store = store(h, mode);
    byte[] v = random(100_000, 1);
    WriteReceipt r = h.run(store.write("big", v));
    assertThat(r.onlyFPlusOneDataClouds()).isTrue();
    // 100,000 bytes over 16 KiB parts: 7 parts of ceil(100000 / 7) = 14,286 bytes.
    for (String holder : r.info().dataClouds()) {
      List<String> names = dataNames(h, h.stores.get(Integer.parseInt(holder.substring(1))));
      assertThat(names).hasSize(7).allMatch(n -> n.matches(".*\\.p[0-6]$"));
    }
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
    long[][] ranges = {
      {0, 10},
      {14_280, 20},
      {14_286, 14_286},
      {99_990, 100},
      {100_000, 5},
      {50_000, 0},
      {0, 100_000},
      {1, 99_999}
    };
    for (long[] range : ranges) {
      int from = (int) Math.min(range[0], v.length);
      int to = (int) Math.min(v.length, range[0] + range[1]);
      assertThat(h.run(store.read("big", r.version(), range[0], (int) range[1])))
          .as("range %s", Arrays.toString(range))
          .isEqualTo(Arrays.copyOfRange(v, from, to));
    }
  }

  @Test
  void rangedReadsFetchOnlyCoveringPartsAndNeverReturnUnverifiedBytes() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 50, 100, 200);
    RafeStore store = store(h, ProtocolMode.PAPER);
    byte[] v = random(100_000, 2);
    WriteReceipt r = h.run(store.write("big", v));
    String part3 = null;
    for (String holder : r.info().dataClouds()) {
      MemoryCloud m = h.stores.get(Integer.parseInt(holder.substring(1)));
      for (String n : dataNames(h, m)) {
        if (n.endsWith(".p3")) {
          part3 = n;
          byte[] bad = h.run(m.get(ObjectKey.of(n)));
          bad[100] ^= 1;
          h.run(m.put(ObjectKey.of(n), bad));
        }
      }
    }
    assertThat(part3).isNotNull();
    // Part 0 is intact on both holders: a range inside it never touches part 3.
    assertThat(h.run(store.read("big", r.version(), 5, 1000)))
        .isEqualTo(Arrays.copyOfRange(v, 5, 1005));
    // Any range that needs part 3 fails rather than return its bytes.
    assertThatThrownBy(() -> h.run(store.read("big", r.version(), 3 * 14_286 + 50, 10)))
        .hasCauseInstanceOf(IntegrityException.class);
    assertThatThrownBy(() -> h.run(store.read("big"))).hasCauseInstanceOf(IntegrityException.class);
  }

  @Test
  void onePartCorruptOnOneHolderIsMasked() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 50, 100, 200);
    RafeStore store = store(h, ProtocolMode.PAPER);
    byte[] v = random(70_000, 3);
    WriteReceipt r = h.run(store.write("big", v));
    MemoryCloud fastest = h.stores.get(0);
    assertThat(r.info().dataClouds()).contains("p0");
    for (String n : dataNames(h, fastest)) {
      h.run(fastest.put(ObjectKey.of(n), new byte[] {1, 2, 3}));
    }
    StoredValue back = h.run(store.read("big"));
    assertThat(back.value()).isEqualTo(v);
    assertThat(h.run(store.read("big", r.version(), 60_000, 10_000)))
        .isEqualTo(Arrays.copyOfRange(v, 60_000, 70_000));
  }

  @Test
  void unsplitValuesAreVerifiedWholeBeforeARangeIsCut() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 50, 100, 200);
    RafeStore store = store(h, ProtocolMode.PAPER);
    byte[] v = random(1000, 4);
    WriteReceipt r = h.run(store.write("small", v));
    assertThat(dataNames(h, h.stores.get(0))).hasSize(1).noneMatch(n -> n.contains(".p"));
    assertThat(h.run(store.read("small", r.version(), 10, 20)))
        .isEqualTo(Arrays.copyOfRange(v, 10, 30));
    for (String holder : r.info().dataClouds()) {
      MemoryCloud m = h.stores.get(Integer.parseInt(holder.substring(1)));
      for (String n : dataNames(h, m)) {
        byte[] bad = h.run(m.get(ObjectKey.of(n)));
        bad[999] ^= 1; // outside the range asked for: still detected
        h.run(m.put(ObjectKey.of(n), bad));
      }
    }
    assertThatThrownBy(() -> h.run(store.read("small", r.version(), 10, 20)))
        .hasCauseInstanceOf(IntegrityException.class);
  }

  @Test
  void deleteRemovesEveryPart() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 50, 100, 200);
    RafeStore store = store(h, ProtocolMode.PAPER);
    h.run(store.write("big", random(50_000, 5)));
    h.run(store.delete("big"));
    for (MemoryCloud m : h.stores) {
      assertThat(dataNames(h, m)).isEmpty();
    }
  }

  @Test
  void aHolderFailingPartWayIsReplacedAndTheVersionNamesCompleteHoldersOnly() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 50, 100, 200);
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .writer("alice", Harness.ALICE)
            .partSize(PART)
            .partsInFlight(2);
    for (int i = 0; i < 4; i++) {
      TestCloud c = h.clouds.get(i);
      b.cloud(
          i == 1 ? new FailingPuts(c, k -> k.value().endsWith(".p4")) : c,
          CloudRole.DATA_AND_METADATA,
          c.rtt());
    }
    RafeStore store = b.build();
    byte[] v = random(100_000, 6);
    WriteReceipt r = h.run(store.write("big", v));
    assertThat(r.info().dataClouds()).containsExactly("p0", "p2");
    assertThat(r.dataCloudsContacted()).contains("p0", "p1", "p2");
    assertThat(dataNames(h, h.stores.get(2))).hasSize(7);
    assertThat(h.run(store.read("big")).value()).isEqualTo(v);
  }
}
