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
    PARTED_ENCRYPTED,
    /** erasureCoding with 1 KiB parts: values of 1 to 7 parts, each coded on its own. */
    CODED_PARTS,
    /** Inline values: inside the signed log, no data object (the budget leaves them unpacked). */
    INLINE,
    /** Sealed inline values: ciphertext in the log, the key's shares in the envelopes. */
    INLINE_SEALED,
    /** Inline values packed as soon as an older one exists (trigger 0): reads from packs. */
    PACKED,
    /**
     * readM by listing each cloud's logs of the key ({@code WriterDiscovery.LISTING}) instead of
     * one GET per trusted writer: the listing path under every fault behaviour.
     */
    LISTING;

    boolean inline() {
      return this == INLINE || this == INLINE_SEALED || this == PACKED;
    }

    RafeStore build(Harness h, ProtocolMode mode, int f) {
      RafeStore.Builder b = h.builder(mode);
      if (this == ENCRYPTED
          || this == CODED_ENCRYPTED
          || this == PARTED_ENCRYPTED
          || this == INLINE_SEALED) {
        b.encryptValues(true);
      }
      if (this == INLINE || this == INLINE_SEALED) {
        b.inlineThreshold(4096).inlineLogBudget(1 << 20);
      }
      if (this == PACKED) {
        b.inlineThreshold(4096).inlineLogBudget(4096);
      }
      if (this == PARTED_ENCRYPTED || this == CODED_PARTS) {
        b.partSize(1024);
      }
      if (this == LISTING) {
        b.writerDiscovery(io.rafestore.WriterDiscovery.LISTING);
      }
      if (this == CODED || this == CODED_ENCRYPTED || this == CODED_PARTS) {
        b.erasureCoding(f + 1);
      }
      return b.build();
    }

    /** The i-th value written: for the parted variant, long enough to span several parts. */
    byte[] value(String text) {
      return (this == PARTED_ENCRYPTED || this == CODED_PARTS ? text.repeat(8) : text)
          .getBytes(StandardCharsets.UTF_8);
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
              out.add(Arguments.of(f, placement, b, mode, Variant.INLINE));
              out.add(Arguments.of(f, placement, b, mode, Variant.INLINE_SEALED));
              out.add(Arguments.of(f, placement, b, mode, Variant.PACKED));
              out.add(Arguments.of(f, placement, b, mode, Variant.LISTING));
            }
            if (mode == ProtocolMode.PAPER) {
              out.add(Arguments.of(f, placement, b, mode, Variant.CODED_ENCRYPTED));
            }
            if (mode == ProtocolMode.FAST) {
              out.add(Arguments.of(f, placement, b, mode, Variant.CODED_PARTS));
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
    for (int i : placement) {
      h.clouds.get(i).forger(real -> forged()).behave(b);
    }
    return h;
  }

  /**
   * {@link #forged()}'s bytes, signed once: Ed25519 is deterministic, so signing the same log again
   * for every forged answer of every case (about 5 % of this class's time) gave the same bytes.
   */
  private static final byte[] FORGED = forgedLog();

  /** A well-formed log for KEY that claims to be alice's, newer, but signed by Mallory. */
  static byte[] forged() {
    return FORGED.clone();
  }

  private static byte[] forgedLog() {
    LogEntry bogus = LogEntry.replica(999, 0, "d/forged", 5, new byte[32], List.of("p0", "p1"));
    return new MetadataCodec()
        .encode(
            new MetadataLog(KEY, "alice", 1_000_000, 0, List.of(bogus)),
            Harness.MALLORY.getPrivate());
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
      if (variant.inline()) {
        // Past the packer's commit delay: its own writeM lands; every version reads the same.
        h.scheduler.advance(java.time.Duration.ofSeconds(5));
        for (Map.Entry<Version, byte[]> e : written.entrySet()) {
          assertThat(h.run(store.read(KEY, e.getKey())).value()).isEqualTo(e.getValue());
        }
        assertThat(h.run(store.read(KEY)).value())
            .isEqualTo(written.get(page.versions().get(0).version()));
      }
      if (variant == Variant.PACKED) {
        int correct = 0;
        while (placement.contains(correct)) {
          correct++;
        }
        byte[] bytes =
            h.run(
                h.stores
                    .get(correct)
                    .get(io.rafestore.internal.util.Names.metadataObject(KEY, "alice")));
        MetadataLog log =
            new MetadataCodec()
                .decodeEnvelope(bytes, KEY, "alice", Harness.ALICE.getPublic(), 1 << 20)
                .log();
        assertThat(log.entries())
            .as("older values were packed")
            .anyMatch(e -> e.coding() == LogEntry.Coding.PACKED);
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

  /** How the fastest cloud answers readM first with a log that must not steer the read. */
  enum FirstLog {
    /** The log before the current one: validly signed, one write behind (replayed). */
    STALE,
    /** The log of the first write, forever: a replay of an old, validly signed log. */
    REPLAYED,
    /** The latest bytes put under another name: another key's signed log (foreign). */
    FOREIGN,
    /** A newer-looking log for this key signed by an untrusted key (forged). */
    FORGED,
    /** Random bytes of the log's length: unsigned garbage. */
    UNSIGNED,
    /** Drops every write from the start, so it answers "not found": a withheld log. */
    WITHHELD
  }

  static Stream<Arguments> misleadingFirstLog() {
    List<Arguments> out = new ArrayList<>();
    for (int f = 1; f <= 2; f++) {
      for (FirstLog lie : FirstLog.values()) {
        for (ProtocolMode mode : List.of(ProtocolMode.PAPER, ProtocolMode.FAST)) {
          for (Variant v :
              List.of(
                  Variant.PLAIN,
                  Variant.ENCRYPTED,
                  Variant.CODED,
                  Variant.PARTED_ENCRYPTED,
                  Variant.LISTING)) {
            out.add(Arguments.of(f, lie, mode, v));
          }
        }
      }
    }
    return out.stream();
  }

  /**
   * Issue 21: the fastest cloud (p0) answers every readM first, with a stale, replayed, foreign,
   * forged or unsigned log. A read anticipates its data fetch on the first valid log, so a stale or
   * replayed one starts a fetch of an older version; readM then decides the newest, the fetch is
   * discarded (counted wasted, at most one per read) and the read returns exactly the last write. A
   * foreign, forged or unsigned log is not valid and starts nothing, and a withheld one names
   * nothing: the next cloud's log starts the fetch, which is kept.
   */
  @ParameterizedTest(name = "f={0} first log {1} {2} {3}")
  @MethodSource("misleadingFirstLog")
  void anticipationOnAMisleadingFirstLogIsDiscarded(
      int f, FirstLog lie, ProtocolMode mode, Variant variant) throws Exception {
    Harness h = faulty(f, List.of(), Behaviour.CORRECT);
    TestCloud first = h.clouds.get(0);
    String other = "forum/thread-2";
    if (lie == FirstLog.WITHHELD) {
      first.behave(Behaviour.DROP_WRITES);
    }
    try (RafeStore store = variant.build(h, mode, f)) {
      Map<Version, byte[]> written = new HashMap<>();
      for (int i = 1; i <= 4; i++) {
        byte[] value = variant.value(("post " + i + " of " + lie).repeat(i * 10));
        WriteReceipt r = h.run(store.write(KEY, value));
        written.put(r.version(), value);
        // Another key's log is then the latest object put on p0 under another name.
        h.run(store.write(other, variant.value("other " + i)));
        if (i == 1) {
          mislead(h, first, lie);
        }
        long speculations = total(store, io.rafestore.CloudStats::speculations);
        long wasted = total(store, io.rafestore.CloudStats::speculationsWasted);
        StoredValue read = h.run(store.read(KEY));
        assertThat(read.version()).isEqualTo(r.version());
        assertThat(read.value()).isEqualTo(value);
        long started = total(store, io.rafestore.CloudStats::speculations) - speculations;
        long lost = total(store, io.rafestore.CloudStats::speculationsWasted) - wasted;
        assertThat(started).as("fetches anticipated by read %d", i).isLessThanOrEqualTo(1);
        assertThat(lost).as("fetches wasted by read %d", i).isLessThanOrEqualTo(started);
        boolean oldValidLog = lie == FirstLog.STALE || lie == FirstLog.REPLAYED;
        if (i >= 2) {
          // The speculation really ran, on p0's old log (wasted) or on the next cloud's (kept).
          assertThat(started).isEqualTo(1);
          assertThat(lost).as("wasted by read %d", i).isEqualTo(oldValidLog ? 1 : 0);
        }
      }
      for (Map.Entry<Version, byte[]> e : written.entrySet()) {
        assertThat(h.run(store.read(KEY, e.getKey())).value()).isEqualTo(e.getValue());
      }
    }
  }

  private static long total(
      RafeStore store, java.util.function.ToLongFunction<io.rafestore.CloudStats> counter) {
    return store.stats().values().stream().mapToLong(counter).sum();
  }

  /** Makes {@code cloud} answer readM with {@code lie} from now on. */
  private static void mislead(Harness h, TestCloud cloud, FirstLog lie) throws Exception {
    switch (lie) {
      case STALE -> cloud.behave(Behaviour.STALE);
      case REPLAYED -> {
        byte[] old =
            h.run(
                h.stores
                    .get(0)
                    .get(
                        io.rafestore.internal.util.Names.metadataObject(KEY, "alice"),
                        Optional.empty()));
        cloud.forger(real -> old.clone()).behave(Behaviour.FORGE_METADATA);
      }
      case FOREIGN -> cloud.behave(Behaviour.OTHER_KEY);
      case FORGED -> cloud.forger(real -> forged()).behave(Behaviour.FORGE_METADATA);
      case UNSIGNED -> cloud.behave(Behaviour.GARBLE_METADATA);
      case WITHHELD -> {
        // Dropping writes since before the first one.
      }
    }
  }
}
