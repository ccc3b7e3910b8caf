package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import io.rafestore.spi.ObjectInfo;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RafeStore's erasure-coded data mode: k data + f parity fragments on k+f clouds, each fragment
 * checked by its signed hash, storage (k+f)/k x instead of (f+1)x.
 */
class ErasureCodingTest {
  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static long dataBytesStored(Harness h) throws Exception {
    long total = 0;
    for (MemoryCloud m : h.stores) {
      for (ObjectInfo info : h.run(m.list("d/"))) {
        total += info.size();
      }
    }
    return total;
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void storageFallsToKPlusFOverKAndReadsTouchOnlyKHolders(int k) throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    byte[] value = random(300_000, k);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).erasureCoding(k).build()) {
      WriteReceipt r = h.run(store.write("big", value));
      assertThat(r.info().dataClouds()).hasSize(k + 1).doesNotHaveDuplicates();
      long stored = dataBytesStored(h);
      // (k+f)/k of the value, plus padding to a multiple of k: far below the (f+1) = 2 copies.
      assertThat(stored)
          .isBetween((long) value.length * (k + 1) / k, value.length * (k + 1L) / k + 4);
      assertThat(stored).isLessThan(2L * value.length);

      Map<String, CloudStats> before = store.stats();
      assertThat(h.run(store.read("big")).value()).isEqualTo(value);
      long dataGets = 0;
      for (Map.Entry<String, CloudStats> e : store.stats().entrySet()) {
        // readM costs one get per cloud; the rest are fragment gets.
        dataGets += e.getValue().gets() - before.get(e.getKey()).gets() - 1;
      }
      assertThat(dataGets).as("fragment requests of one read").isEqualTo(k);
    }
  }

  @Test
  void fCorruptOrMissingFragmentsAreSkippedByTheirHash() throws Exception {
    for (Behaviour b : new Behaviour[] {Behaviour.CORRUPT, Behaviour.CRASH, Behaviour.OTHER_KEY}) {
      Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
      byte[] value = random(100_000, 9);
      try (RafeStore store = h.builder(ProtocolMode.FAST).erasureCoding(3).build()) {
        h.run(store.write("k", value));
        h.run(store.write("k", random(5000, 10)));
        // The fastest holder turns faulty after the writes: its fragments are rejected and the
        // read brings in the next holder at once.
        h.clouds.get(0).behave(b);
        for (var v : h.run(store.history("k", java.util.Optional.empty(), 10)).versions()) {
          byte[] expected = v.size() == value.length ? value : random(5000, 10);
          assertThat(h.run(store.read("k", v.version())).value()).as("%s", b).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void aSlowCloudsFragmentGoesToASpareCloud() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    h.clouds.get(1).behave(Behaviour.SLOW);
    // k = 2: three fragments on p0, p1, p2 and p3 as the spare for writeDf.
    try (RafeStore store = h.builder(ProtocolMode.PAPER).erasureCoding(2).build()) {
      byte[] value = random(50_000, 3);
      WriteReceipt r = h.run(store.write("k", value));
      assertThat(r.writeDfUsed()).isTrue();
      assertThat(r.info().dataClouds()).hasSize(3).doesNotContain("p1").contains("p3");
      assertThat(h.run(store.read("k")).value()).isEqualTo(value);
    }
  }

  @Test
  void codedAndEncryptedTogether() throws Exception {
    Harness h = new Harness(1, 4);
    byte[] value =
        ("secret " + "y".repeat(10_000)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER).erasureCoding(2).encryptValues(true).build()) {
      h.run(store.write("k", value));
      assertThat(h.run(store.read("k")).value()).isEqualTo(value);
    }
    for (MemoryCloud m : h.stores) {
      for (ObjectInfo info : h.run(m.list(""))) {
        byte[] stored = h.run(m.get(info.key()));
        assertThat(ProtocolTest.indexOf(stored, "yyyyyyyyyyyyyyyy".getBytes())).isEqualTo(-1);
      }
    }
  }

  @Test
  void builderNamesWhatIsWrong() {
    Harness h = new Harness(1, 4);
    assertThatThrownBy(() -> h.builder(ProtocolMode.PAPER).erasureCoding(1).build())
        .hasMessageContaining("erasureCoding")
        .hasMessageContaining(">= 2");
    assertThatThrownBy(() -> h.builder(ProtocolMode.PAPER).erasureCoding(4).build())
        .hasMessageContaining("k + f = 5");
    assertThatThrownBy(() -> h.builder(ProtocolMode.DEPSKY_A).erasureCoding(2).build())
        .hasMessageContaining("only the RafeStore modes");
    Harness roles = new Harness(1, 4);
    assertThatThrownBy(
            () -> {
              RafeStore.Builder b =
                  RafeStore.builder()
                      .inlineThreshold(0)
                      .writer("alice", Harness.ALICE)
                      .erasureCoding(3);
              for (int i = 0; i < 4; i++) {
                b.cloud(
                    roles.clouds.get(i),
                    i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA);
              }
              b.build();
            })
        .hasMessageContaining("only 3 hold data");
  }
}
