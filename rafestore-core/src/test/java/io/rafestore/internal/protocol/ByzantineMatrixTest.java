package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.HistoryPage;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every placement of up to f faulty clouds times every fault behaviour times every protocol mode,
 * for f=1 (n=4) and f=2 (n=7): every read returns exactly the bytes of the last completed write,
 * history lists every completed write once, and old versions stay readable. With f+1 faulty clouds
 * the client never returns bytes that were not written as the version it names.
 */
class ByzantineMatrixTest {
  static final String KEY = "forum/thread-1";

  /** The RafeStore modes' data options under test. */
  enum Variant {
    PLAIN,
    /** encryptValues: sealed values, key shares in the metadata envelopes. */
    ENCRYPTED,
    /** erasureCoding: k data + f parity fragments (k = 2 for f = 1, 3 for f = 2). */
    CODED,
    CODED_ENCRYPTED,
    /** encryptValues with 1 KiB parts: values of 1 to 7 parts, each sealed on its own. */
    PARTED_ENCRYPTED;

    RafeStore build(Harness h, ProtocolMode mode, int f) {
      RafeStore.Builder b = h.builder(mode);
      if (this == ENCRYPTED || this == CODED_ENCRYPTED || this == PARTED_ENCRYPTED) {
        b.encryptValues(true);
      }
      if (this == PARTED_ENCRYPTED) {
        b.partSize(1024);
      }
      if (this == CODED || this == CODED_ENCRYPTED) {
        b.erasureCoding(f + 1);
      }
      return b.build();
    }

    /** The i-th value written: for the parted variant, long enough to span several parts. */
    byte[] value(String text) {
      return (this == PARTED_ENCRYPTED ? text.repeat(8) : text).getBytes(StandardCharsets.UTF_8);
    }
  }

  static Stream<Arguments> upToF() {
    List<Arguments> out = new ArrayList<>();
    for (int f = 1; f <= 2; f++) {
      int n = 3 * f + 1;
      for (List<Integer> placement : subsets(n, f)) {
        for (Behaviour b : Behaviour.values()) {
          if (b == Behaviour.CORRECT) {
            continue;
          }
          for (ProtocolMode mode : ProtocolMode.values()) {
            out.add(Arguments.of(f, placement, b, mode, Variant.PLAIN));
            if (mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST) {
              out.add(Arguments.of(f, placement, b, mode, Variant.ENCRYPTED));
              out.add(Arguments.of(f, placement, b, mode, Variant.CODED));
              out.add(Arguments.of(f, placement, b, mode, Variant.PARTED_ENCRYPTED));
            }
            if (mode == ProtocolMode.PAPER) {
              out.add(Arguments.of(f, placement, b, mode, Variant.CODED_ENCRYPTED));
            }
          }
        }
      }
    }
    return out.stream();
  }

  static Stream<Arguments> fPlusOne() {
    List<Arguments> out = new ArrayList<>();
    int f = 1;
    for (List<Integer> placement : subsets(4, 2)) {
      if (placement.size() != 2) {
        continue;
      }
      for (Behaviour b : Behaviour.values()) {
        if (b != Behaviour.CORRECT) {
          for (Variant v : Variant.values()) {
            out.add(Arguments.of(f, placement, b, ProtocolMode.PAPER, v));
          }
        }
      }
    }
    return out.stream();
  }

  /** All non-empty subsets of {0..n-1} of size at most k. */
  static List<List<Integer>> subsets(int n, int k) {
    List<List<Integer>> out = new ArrayList<>();
    for (int mask = 1; mask < (1 << n); mask++) {
      if (Integer.bitCount(mask) <= k) {
        List<Integer> s = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          if ((mask & (1 << i)) != 0) {
            s.add(i);
          }
        }
        out.add(s);
      }
    }
    return out;
  }

  static Harness faulty(int f, List<Integer> placement, Behaviour b) {
    Harness h = new Harness(f, 3 * f + 1);
    for (int i = 0; i < h.clouds.size(); i++) {
      h.clouds.get(i).rtt(java.time.Duration.ofMillis(10 + 7 * i));
    }
    MetadataCodec codec = new MetadataCodec();
    for (int i : placement) {
      h.clouds.get(i).forger(real -> forged(codec)).behave(b);
    }
    return h;
  }

  /** A well-formed log for KEY that claims to be alice's, newer, but signed by Mallory. */
  static byte[] forged(MetadataCodec codec) {
    LogEntry bogus = LogEntry.replica(999, 0, "d/forged", 5, new byte[32], List.of("p0", "p1"));
    return codec.encode(
        new MetadataLog(KEY, "alice", 1_000_000, 0, List.of(bogus)), Harness.MALLORY.getPrivate());
  }

  @ParameterizedTest(name = "f={0} faulty={1} {2} {3} {4}")
  @MethodSource("upToF")
  void readsReturnLastCompletedWrite(
      int f, List<Integer> placement, Behaviour b, ProtocolMode mode, Variant variant)
      throws Exception {
    Harness h = faulty(f, placement, b);
    try (RafeStore store = variant.build(h, mode, f)) {
      Map<Version, byte[]> written = new HashMap<>();
      for (int i = 1; i <= 4; i++) {
        byte[] value = variant.value(("post " + i + " of " + b).repeat(i * 10));
        WriteReceipt r = h.run(store.write(KEY, value));
        written.put(r.version(), value);
        StoredValue read = h.run(store.read(KEY));
        assertThat(read.version()).isEqualTo(r.version());
        assertThat(read.value()).isEqualTo(value);
      }
      HistoryPage page = h.run(store.history(KEY, Optional.empty(), 100));
      assertThat(page.versions())
          .extracting(VersionInfo::version)
          .containsExactlyElementsOf(
              written.keySet().stream().sorted(java.util.Comparator.reverseOrder()).toList());
      for (Map.Entry<Version, byte[]> e : written.entrySet()) {
        assertThat(h.run(store.read(KEY, e.getKey())).value()).isEqualTo(e.getValue());
      }
    }
  }

  @ParameterizedTest(name = "f=1 faulty={1} {2} {4}")
  @MethodSource("fPlusOne")
  void withFPlusOneFaultyNeverReturnsWrongBytes(
      int f, List<Integer> placement, Behaviour b, ProtocolMode mode, Variant variant)
      throws Exception {
    Harness h = faulty(f, placement, b);
    try (RafeStore store = variant.build(h, mode, f)) {
      Map<Version, byte[]> written = new HashMap<>();
      for (int i = 1; i <= 3; i++) {
        byte[] value = variant.value(("value " + i).repeat(200));
        try {
          WriteReceipt r = h.run(store.write(KEY, value));
          written.put(r.version(), value);
        } catch (ExecutionException | IllegalStateException e) {
          // Writes may fail with f+1 faults (a QuorumException, or stuck on hung clouds).
          assertThat(e)
              .satisfiesAnyOf(
                  x -> assertThat(x).isInstanceOf(IllegalStateException.class),
                  x -> assertThat(x.getCause()).isInstanceOf(RafeStoreException.class));
        }
        try {
          StoredValue read = h.run(store.read(KEY));
          // Documented: either an error, or a validly signed (possibly older) version whose bytes
          // are exactly what was written as that version.
          assertThat(written).containsKey(read.version());
          assertThat(read.value()).isEqualTo(written.get(read.version()));
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(RafeStoreException.class);
        } catch (IllegalStateException stuck) {
          // Virtual time stalled: more than f clouds hang, so no quorum can ever form. The
          // operation timeout would end it; what matters is that no wrong bytes came back.
          assertThat(b).isEqualTo(Behaviour.HANG);
        }
      }
    }
  }
}
