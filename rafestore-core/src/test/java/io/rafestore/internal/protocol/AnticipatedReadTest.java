package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Anticipated reads on virtual time (issue 21): the data fetch starts on the first valid log of
 * readM, so a small read in the paper's Configuration 2 (p0 holds metadata only, 5 ms away; the
 * data on p1 at 315 ms and p2 at 750 ms) takes one quorum round trip (750 ms, the third-fastest
 * cloud) instead of readM plus a fetch from p1; the fetch is kept only for the entry readM decides,
 * and the stats count it. A large value in parts is read from several holders at once.
 */
class AnticipatedReadTest {
  static final String KEY = "feed/item";
  static final Duration QUORUM_RTT = Duration.ofMillis(750);

  /** Table 1's RTTs and bandwidths: p0 local at 100 Mbit/s, p1..p3 remote at 2 Mbit/s. */
  static Harness table1() {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    h.clouds.get(0).bandwidth(100_000_000);
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).bandwidth(2_000_000);
    }
    return h;
  }

  /** Table 2, Configuration 2: p0 metadata only, data on p1 and p2 (p3 writeDf's extra). */
  static RafeStore.Builder config2(Harness h, ProtocolMode mode) {
    return h.builder(
        mode, (i, c) -> i == 0 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA);
  }

  /** Runs {@code op} to its end on virtual time; returns how long it took. */
  static <T> Duration timed(Harness h, CompletableFuture<T> op) throws Exception {
    long start = h.scheduler.nanoTime();
    h.run(op);
    return Duration.ofNanos(h.scheduler.nanoTime() - start);
  }

  /** What {@code counter} counted on {@code clouds} since {@code before} ({@code stats()}). */
  static long since(
      RafeStore store,
      Map<String, CloudStats> before,
      java.util.function.ToLongFunction<CloudStats> counter,
      String... clouds) {
    long sum = 0;
    for (String c : clouds) {
      sum += counter.applyAsLong(store.stats().get(c).minus(before.get(c)));
    }
    return sum;
  }

  /**
   * {@code b} writing values in {@code layout}: a text naming any of "parts" (256 KiB parts),
   * "coded" (k = 2) and "sealed" ({@code encryptValues}); whole copies otherwise.
   */
  static RafeStore.Builder laidOut(RafeStore.Builder b, String layout) {
    if (layout.contains("parts")) {
      b.partSize(256 << 10);
    }
    if (layout.contains("coded")) {
      b.erasureCoding(2);
    }
    if (layout.contains("sealed")) {
      b.encryptValues(true);
    }
    return b;
  }

  /**
   * Since {@code before}, the data gets to the remote holders were cancelled and less than the 1
   * MiB value came down: a timed-out read's fetch stopped.
   */
  static void fetchStopped(RafeStore store, Map<String, CloudStats> before) {
    assertThat(since(store, before, CloudStats::cancelled, "p1", "p2", "p3"))
        .as("data gets cancelled at the timeout")
        .isPositive();
    assertThat(since(store, before, CloudStats::bytesDown, "p1", "p2", "p3"))
        .as("bytes downloaded from the holders")
        .isLessThan(1 << 20);
  }

  static long total(RafeStore store, java.util.function.ToLongFunction<CloudStats> counter) {
    return store.stats().values().stream().mapToLong(counter).sum();
  }

  static byte[] bytes(int size, long seed) {
    return PartsTest.random(size, seed);
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void smallReadInConfigurationTwoTakesOneQuorumRoundTrip(ProtocolMode mode) throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, mode).build()) {
      byte[] value = bytes(1024, 1);
      WriteReceipt w = h.run(store.write(KEY, value));
      assertThat(w.info().dataClouds()).containsExactly("p1", "p2");
      h.scheduler.advance(Duration.ofSeconds(5));

      CompletableFuture<StoredValue> read = store.read(KEY);
      Duration took = timed(h, read);
      assertThat(read.get().value()).isEqualTo(value);
      assertThat(took).isGreaterThanOrEqualTo(QUORUM_RTT);
      assertThat(took.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.1));
      // p0's log arrived first and started the fetch; readM decided the same entry.
      CloudStats p0 = store.stats().get("p0");
      assertThat(p0.speculations()).isEqualTo(1);
      assertThat(p0.speculationsKept()).isEqualTo(1);
      assertThat(p0.speculativeBytes()).isEqualTo(1024);
      assertThat(total(store, CloudStats::speculationsWasted)).isZero();
    }
  }

  @Test
  void withoutAnticipationTheReadTakesReadMThenTheFetch() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).speculativeReads(false).build()) {
      byte[] value = bytes(1024, 2);
      h.run(store.write(KEY, value));
      h.scheduler.advance(Duration.ofSeconds(5));
      CompletableFuture<StoredValue> read = store.read(KEY);
      Duration took = timed(h, read);
      assertThat(read.get().value()).isEqualTo(value);
      assertThat(took).isGreaterThanOrEqualTo(QUORUM_RTT.plusMillis(315));
      assertThat(total(store, CloudStats::speculations)).isZero();
    }
  }

  @Test
  void theLimitTurnsAnticipationOffForLargerValues() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).speculativeReadLimit(512).build()) {
      byte[] small = bytes(500, 3);
      byte[] large = bytes(1024, 4);
      h.run(store.write("small", small));
      h.run(store.write("large", large));
      h.scheduler.advance(Duration.ofSeconds(5));
      Duration smallRead = timed(h, store.read("small"));
      Duration largeRead = timed(h, store.read("large"));
      assertThat(smallRead.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.1));
      assertThat(largeRead).isGreaterThanOrEqualTo(QUORUM_RTT.plusMillis(315));
      assertThat(total(store, CloudStats::speculations)).isEqualTo(1);
    }
  }

  @Test
  void withNoWriterActiveNoFetchIsWasted() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).build()) {
      byte[][] values = new byte[5][];
      for (int k = 0; k < values.length; k++) {
        values[k] = bytes(1024 * (k + 1), 10 + k);
        h.run(store.write("key-" + k, values[k]));
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      Map<String, CloudStats> before = store.stats();
      int reads = 0;
      for (int round = 0; round < 10; round++) {
        for (int k = 0; k < values.length; k++) {
          assertThat(h.run(store.read("key-" + k)).value()).isEqualTo(values[k]);
          reads++;
        }
      }
      Map<String, CloudStats> after = store.stats();
      long kept = 0;
      long wasted = 0;
      for (String c : after.keySet()) {
        CloudStats d = after.get(c).minus(before.get(c));
        kept += d.speculationsKept();
        wasted += d.speculationsWasted();
      }
      assertThat(wasted).isZero();
      assertThat(kept).isEqualTo(reads);
    }
  }

  @Test
  void anOlderVersionAskedForIsAnticipatedToo() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).build()) {
      byte[] v1 = bytes(1024, 5);
      WriteReceipt first = h.run(store.write(KEY, v1));
      h.run(store.write(KEY, bytes(1024, 6)));
      h.scheduler.advance(Duration.ofSeconds(5));
      CompletableFuture<StoredValue> read = store.read(KEY, first.version());
      Duration took = timed(h, read);
      assertThat(read.get().value()).isEqualTo(v1);
      assertThat(took.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.1));
      assertThat(total(store, CloudStats::speculationsKept)).isEqualTo(1);
    }
  }

  @Test
  void aRangedReadAnticipatesThePartThatHoldsItsOffset() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).partSize(4096).build()) {
      byte[] value = bytes(40_000, 7);
      WriteReceipt w = h.run(store.write(KEY, value));
      h.scheduler.advance(Duration.ofSeconds(5));
      CompletableFuture<byte[]> range = store.read(KEY, w.version(), 20_000, 1000);
      Duration took = timed(h, range);
      assertThat(range.get()).isEqualTo(Arrays.copyOfRange(value, 20_000, 21_000));
      assertThat(took.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.1));
      CloudStats p0 = store.stats().get("p0");
      assertThat(p0.speculationsKept()).isEqualTo(1);
      // 40,000 bytes in 10 parts of 4,000: offset 20,000 is the first byte of part 5.
      assertThat(p0.speculativeBytes()).isEqualTo(4000);
    }
  }

  /**
   * A value coded in parts anticipates the k fragments of the part that holds the range's offset:
   * they are fetched (from p1 and p2, the two nearest of its three holders) while readM waits for
   * its third log, so the range takes one quorum round trip, not readM's plus p2's.
   */
  @Test
  void aRangedReadOfCodedPartsAnticipatesThePartsFragments() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).erasureCoding(2).partSize(4096).build()) {
      byte[] value = bytes(40_000, 17);
      WriteReceipt w = h.run(store.write(KEY, value));
      h.scheduler.advance(Duration.ofSeconds(5));
      CompletableFuture<byte[]> range = store.read(KEY, w.version(), 20_000, 1000);
      Duration took = timed(h, range);
      assertThat(range.get()).isEqualTo(Arrays.copyOfRange(value, 20_000, 21_000));
      assertThat(took.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.1));
      assertThat(total(store, CloudStats::speculationsKept)).isEqualTo(1);
      assertThat(total(store, CloudStats::speculationsWasted)).isZero();
    }
  }

  /**
   * A stream read anticipates its first part: opening the stream takes readM's round trip, and the
   * first part is already there when it does. Run on a protocol context of the store's settings, so
   * that the stream's parts can be awaited on virtual time.
   */
  @Test
  void aStreamAnticipatesItsFirstPart() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).partSize(4096).build()) {
      byte[] value = bytes(40_000, 12);
      h.run(store.write(KEY, value));
      h.scheduler.advance(Duration.ofSeconds(5));
      io.rafestore.internal.protocol.context.Context ctx =
          new io.rafestore.internal.protocol.context.Context(Harness.settings(store));
      CompletableFuture<io.rafestore.internal.protocol.read.ReadOp.Found> open =
          io.rafestore.internal.protocol.read.ReadOp.stream(ctx, KEY, java.util.Optional.empty());
      Duration took = timed(h, open);
      assertThat(took.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.1));
      CloudStats p0 = ctx.byId.get("p0").accounting().snapshot();
      assertThat(p0.speculationsKept()).isEqualTo(1);
      assertThat(p0.speculativeBytes()).isEqualTo(4000);
      java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
      try (java.io.InputStream in = open.get().stream()) {
        // The first part is in hand as readM ends: no virtual time needs to pass for it (without
        // anticipation this read would wait forever, virtual time standing still).
        got.write(
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(20), () -> in.readNBytes(4000)));
        while (got.size() < value.length) {
          h.scheduler.runUntilIdle();
          got.write(in.readNBytes(4000));
        }
        h.scheduler.runUntilIdle();
        assertThat(in.read()).isEqualTo(-1);
      }
      assertThat(got.toByteArray()).isEqualTo(value);
    }
  }

  /**
   * An anticipated fetch is bound to one (version, signed entry): a read of another version, or of
   * the same version with an entry that differs in anything signed (here its hash, as a writer's
   * crashed incarnation or a forger would produce), refuses it.
   */
  @Test
  void anAnticipatedFetchServesOnlyTheIdenticalEntry() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).build()) {
      h.run(store.write(KEY, bytes(1024, 13)));
      h.run(store.write(KEY, bytes(1024, 14)));
      io.rafestore.internal.protocol.context.Context ctx =
          new io.rafestore.internal.protocol.context.Context(Harness.settings(store));
      io.rafestore.internal.protocol.metadata.View view =
          h.run(io.rafestore.internal.protocol.quorum.MetadataRead.run(ctx, KEY));
      var newest = view.visible.get(0);
      var older = view.visible.get(1);
      var a =
          io.rafestore.internal.protocol.layout.Anticipation.start(ctx, KEY, view, older, 0)
              .orElseThrow();
      var e = older.entry();
      var lookalike =
          new io.rafestore.internal.protocol.metadata.View.Item(
              older.version(),
              io.rafestore.internal.protocol.metadata.LogEntry.replica(
                      e.timestamp(),
                      e.createdAtMillis(),
                      e.dataObject(),
                      e.size(),
                      new byte[32],
                      e.holders())
                  .withIncarnation(e.incarnation()));
      assertThat(a.isFor(older)).isTrue();
      assertThat(a.isFor(newest)).isFalse();
      assertThat(a.isFor(lookalike)).isFalse();
      for (var other : java.util.List.of(newest, lookalike)) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () ->
                    io.rafestore.internal.protocol.layout.ValueRead.of(ctx, KEY, view, other)
                        .anticipated(a))
            .isInstanceOf(IllegalArgumentException.class);
      }
      a.cancel();
      h.scheduler.runUntilIdle();
    }
  }

  /**
   * p0, the fastest, withholds its log (it dropped the write): its valid "not found" names nothing,
   * so the next cloud's log (p1, 315 ms) starts the fetch from p1, done before readM ends.
   */
  @Test
  void aWithheldFirstLogLeavesTheAnticipationToTheNextCloud() throws Exception {
    Harness h = table1();
    h.clouds.get(0).behave(Behaviour.DROP_WRITES);
    try (RafeStore store = config2(h, ProtocolMode.FAST).build()) {
      byte[] value = bytes(1024, 15);
      h.run(store.write(KEY, value));
      h.scheduler.advance(Duration.ofSeconds(5));
      CompletableFuture<StoredValue> read = store.read(KEY);
      Duration took = timed(h, read);
      assertThat(read.get().value()).isEqualTo(value);
      assertThat(took.toNanos()).isLessThanOrEqualTo((long) (QUORUM_RTT.toNanos() * 1.1));
      assertThat(store.stats().get("p0").speculations()).isZero();
      assertThat(store.stats().get("p1").speculationsKept()).isEqualTo(1);
      assertThat(total(store, CloudStats::speculationsWasted)).isZero();
    }
  }

  @Test
  void aStaleFirstLogWastesOneFetchAndTheReadStaysExact() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).build()) {
      h.run(store.write(KEY, bytes(1024, 8)));
      // p0, the fastest, now answers with the log it had before the next write: a replay.
      h.clouds.get(0).behave(Behaviour.STALE);
      byte[] v2 = bytes(1024, 9);
      WriteReceipt w2 = h.run(store.write(KEY, v2));
      h.scheduler.advance(Duration.ofSeconds(5));
      StoredValue read = h.run(store.read(KEY));
      assertThat(read.version()).isEqualTo(w2.version());
      assertThat(read.value()).isEqualTo(v2);
      CloudStats p0 = store.stats().get("p0");
      assertThat(p0.speculations()).isEqualTo(1);
      assertThat(p0.speculationsWasted()).isEqualTo(1);
      assertThat(p0.speculationsKept()).isZero();
    }
  }

  /**
   * A wasted anticipated fetch that is still running when readM decides is cancelled together with
   * its request, not left to download: p0 replays the log from before the second write, which names
   * a 256 KiB value on p1 (about 1.4 s away at 2 Mbit/s); readM decides the newer version at 750
   * ms, and the older version's get on p1 is cancelled then.
   */
  @Test
  void aWastedFetchStillRunningIsCancelledWithItsRequest() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).build()) {
      h.run(store.write(KEY, bytes(256 << 10, 20)));
      h.clouds.get(0).behave(Behaviour.STALE);
      byte[] v2 = bytes(256 << 10, 21);
      WriteReceipt w2 = h.run(store.write(KEY, v2));
      assertThat(w2.info().dataClouds()).contains("p1");
      h.scheduler.advance(Duration.ofSeconds(5));
      Map<String, CloudStats> before = store.stats();
      StoredValue read = h.run(store.read(KEY));
      h.scheduler.runUntilIdle();
      assertThat(read.version()).isEqualTo(w2.version());
      assertThat(read.value()).isEqualTo(v2);
      assertThat(store.stats().get("p0").speculationsWasted()).isEqualTo(1);
      CloudStats p1 = store.stats().get("p1").minus(before.get("p1"));
      assertThat(p1.cancelled()).as("the wasted get on p1, cancelled").isEqualTo(1);
    }
  }

  /**
   * A read that the operation timeout ends while it waits for its kept anticipated fetch cancels
   * that fetch: a 1 MiB value on p1 takes about 4 s to arrive at 2 Mbit/s, the timeout is 1 s.
   */
  @Test
  void aTimedOutReadCancelsItsAnticipatedFetch() throws Exception {
    Harness h = table1();
    try (RafeStore writer = config2(h, ProtocolMode.FAST).build()) {
      h.run(writer.write(KEY, bytes(1 << 20, 22)));
    }
    h.scheduler.advance(Duration.ofSeconds(30));
    try (RafeStore store =
        config2(h, ProtocolMode.FAST).operationTimeout(Duration.ofSeconds(1)).build()) {
      Map<String, CloudStats> before = store.stats();
      CompletableFuture<StoredValue> read = store.read(KEY);
      h.scheduler.runUntilIdle();
      assertThat(read).isCompletedExceptionally();
      assertThat(store.stats().get("p0").speculationsKept()).isEqualTo(1);
      // The kept fetch (and a hedge, if the fresh client's model expected the value sooner) is
      // cancelled at the timeout rather than left to download the whole value afterwards.
      assertThat(since(store, before, CloudStats::cancelled, "p1", "p2"))
          .as("data gets cancelled at the timeout")
          .isPositive();
      assertThat(since(store, before, CloudStats::bytesDown, "p1", "p2"))
          .as("bytes downloaded from the holders")
          .isLessThan(1 << 20);
    }
  }

  /**
   * Without anticipation too: a read that the operation timeout ends while its data fetch (started
   * after readM) still downloads cancels that fetch, whether it read the latest version or a named
   * one, and whatever the value's layout, rather than leave the holders sending a 1 MiB value
   * (about 4 s at 2 Mbit/s; the timeout is 2 s) to nobody.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "FAST, false, whole",
    "FAST, true, whole",
    "FAST, false, parts",
    "FAST, true, parts",
    "FAST, false, coded",
    "FAST, true, coded parts",
    "FAST, false, sealed",
    "FAST, true, sealed parts",
    "PAPER, false, whole",
    // DepSky-A's copy on p0 arrives in time; DepSky-CA needs a fragment from a remote cloud.
    "DEPSKY_CA, true, whole"
  })
  void aTimedOutReadCancelsItsDataFetchWithoutAnticipation(
      ProtocolMode mode, boolean named, String layout) throws Exception {
    Harness h = table1();
    WriteReceipt w;
    try (RafeStore writer = laidOut(config2(h, mode), layout).build()) {
      w = h.run(writer.write(KEY, bytes(1 << 20, 24)));
    }
    h.scheduler.advance(Duration.ofSeconds(30));
    try (RafeStore store =
        config2(h, mode).speculativeReads(false).operationTimeout(Duration.ofSeconds(2)).build()) {
      Map<String, CloudStats> before = store.stats();
      CompletableFuture<StoredValue> read = named ? store.read(KEY, w.version()) : store.read(KEY);
      h.scheduler.runUntilIdle();
      assertThat(read).isCompletedExceptionally();
      assertThat(store.stats().get("p0").speculationsKept()).isZero();
      fetchStopped(store, before);
    }
  }

  /**
   * As above for a read the read tier serves without readM (the version's signed entry known from
   * an earlier readM, its bytes not cached): the timeout cancels its fetch, and the read does not
   * fall back to readM after it ended.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"whole", "parts"})
  void aTimedOutReadOfAKnownEntryCancelsItsFetch(String layout) throws Exception {
    Harness h = table1();
    WriteReceipt w;
    try (RafeStore writer = laidOut(config2(h, ProtocolMode.FAST), layout).build()) {
      w = h.run(writer.write(KEY, bytes(1 << 20, 25)));
    }
    h.scheduler.advance(Duration.ofSeconds(30));
    try (RafeStore store =
        config2(h, ProtocolMode.FAST)
            .valueCache(new MapValueCache(4 << 20))
            .speculativeReads(false)
            .operationTimeout(Duration.ofSeconds(2))
            .build()) {
      // The first read's readM makes the entry known; its fetch times out too.
      CompletableFuture<StoredValue> first = store.read(KEY, w.version());
      h.scheduler.runUntilIdle();
      assertThat(first).isCompletedExceptionally();
      Map<String, CloudStats> before = store.stats();
      CompletableFuture<StoredValue> read = store.read(KEY, w.version());
      h.scheduler.runUntilIdle();
      assertThat(read).isCompletedExceptionally();
      assertThat(since(store, before, CloudStats::gets, "p0"))
          .as("no readM on p0 (metadata only)")
          .isZero();
      fetchStopped(store, before);
    }
  }

  /**
   * A kept anticipated fetch that the read never takes (a range of no bytes needs no part) is
   * cancelled when the read ends, not left running.
   */
  @Test
  void aKeptFetchTheReadNeverTakesIsCancelledWhenTheReadEnds() throws Exception {
    Harness h = table1();
    try (RafeStore store = config2(h, ProtocolMode.FAST).partSize(256 << 10).build()) {
      byte[] value = bytes(1 << 20, 23);
      WriteReceipt w = h.run(store.write(KEY, value));
      h.scheduler.advance(Duration.ofSeconds(30));
      Map<String, CloudStats> before = store.stats();
      assertThat(h.run(store.read(KEY, w.version(), 0, 0))).isEmpty();
      h.scheduler.runUntilIdle();
      assertThat(store.stats().get("p0").speculationsKept()).isEqualTo(1);
      long cancelledData = 0;
      for (String c : java.util.List.of("p1", "p2")) {
        cancelledData += store.stats().get(c).minus(before.get(c)).cancelled();
      }
      assertThat(cancelledData).isEqualTo(1);
    }
  }

  /**
   * Equal round trips (50 ms) and 8 Mbit/s per cloud: a 1 MiB value in 64 KiB parts takes at least
   * 1.05 s of transfer from one holder alone; its two holders share the parts and deliver it in
   * about 0.8 s (half the transfer, plus the round trips between a holder's parts). One holder
   * corrupting every part it serves costs time, never exactness.
   */
  @ParameterizedTest
  @EnumSource(
      value = Behaviour.class,
      names = {"CORRECT", "CORRUPT"})
  void aLargeValueIsReadFromSeveralHoldersAtOnce(Behaviour holder) throws Exception {
    Harness h = new Harness(1, 4).rtts(50, 50, 50, 50);
    for (TestCloud c : h.clouds) {
      c.bandwidth(8_000_000);
    }
    try (RafeStore store = h.builder(ProtocolMode.FAST).partSize(64 << 10).build()) {
      int size = 1 << 20;
      byte[] value = bytes(size, 11);
      WriteReceipt w = h.run(store.write(KEY, value));
      assertThat(w.info().dataClouds()).hasSize(2);
      h.scheduler.advance(Duration.ofSeconds(5));
      String second = w.info().dataClouds().get(1);
      if (holder == Behaviour.CORRUPT) {
        UnaryOperator<byte[]> none = b -> b;
        h.clouds.get(Integer.parseInt(second.substring(1))).forger(none).behave(holder);
      }
      Map<String, CloudStats> before = store.stats();
      CompletableFuture<StoredValue> read = store.read(KEY);
      Duration took = timed(h, read);
      assertThat(read.get().value()).isEqualTo(value);
      Duration oneHolder = Duration.ofNanos(size * 8L * 1_000_000_000L / 8_000_000);
      if (holder == Behaviour.CORRECT) {
        // One holder alone cannot deliver it in less than its transfer time (1.05 s).
        assertThat(took).isLessThan(oneHolder.multipliedBy(85).dividedBy(100));
        for (String c : w.info().dataClouds()) {
          long gets = store.stats().get(c).gets() - before.get(c).gets();
          assertThat(gets).as("gets of %s", c).isGreaterThan(4);
        }
      }
    }
  }
}
