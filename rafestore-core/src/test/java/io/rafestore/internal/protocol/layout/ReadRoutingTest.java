package io.rafestore.internal.protocol.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudStats;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.protocol.TestCloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.selection.ReadRouting;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reads routed by kind, and stealing (issue 19), through {@link DataFetch} on virtual time: four
 * in-memory clouds behind the WAN emulator at 10, 50, 100 and 150 ms and 100 Mbit/s each (what the
 * model assumes before measuring), values put straight into the holders' stores.
 */
class ReadRoutingTest {
  static final long MBIT100 = 100_000_000L;

  Harness h;
  RafeStore store;
  Context ctx;
  int objects;

  @BeforeEach
  void setUp() {
    h = new Harness(1, 4).rtts(10, 50, 100, 150);
    for (TestCloud c : h.clouds) {
      c.bandwidth(MBIT100);
    }
    store = h.client(ProtocolMode.FAST);
    ctx = new Context(Harness.settings(store));
  }

  @AfterEach
  void tearDown() {
    ctx.close();
    store.close();
  }

  /** A value of {@code size} random bytes stored whole on the clouds {@code holders}. */
  record Value(VersionInfo info, String object, byte[] bytes) {}

  Value value(int size, int... holders) {
    byte[] bytes = new byte[size];
    new Random(size + 31L * objects).nextBytes(bytes);
    String object = "d/v" + objects++;
    List<String> ids = Arrays.stream(holders).mapToObj(i -> "p" + i).toList();
    for (int i : holders) {
      h.stores.get(i).put(ObjectKey.of(object), bytes).join();
    }
    VersionInfo info =
        new VersionInfo(
            "k", new Version(objects, "alice", 0), size, Sha256.hash(bytes), ids, Instant.EPOCH);
    return new Value(info, object, bytes);
  }

  CompletableFuture<StoredValue> read(Value v) {
    return DataFetch.run(ctx, "k", v.info(), v.object());
  }

  StoredValue readNow(Value v) throws Exception {
    StoredValue s = h.run(read(v));
    assertThat(s.value()).isEqualTo(v.bytes());
    return s;
  }

  CloudStats stats(int i) {
    return ctx.byId.get("p" + i).accounting().snapshot();
  }

  long total(java.util.function.ToLongFunction<CloudStats> f) {
    long t = 0;
    for (int i = 0; i < 4; i++) {
      t += f.applyAsLong(stats(i));
    }
    return t;
  }

  @Test
  void smallReadsGoToTheFastestHolder() throws Exception {
    Value v = value(1024, 1, 0, 2);
    for (int i = 0; i < 3; i++) {
      assertThat(readNow(v).servedBy()).isEqualTo("p0");
    }
    assertThat(stats(0).routedSmall()).isEqualTo(3);
    assertThat(stats(0).routedBulk()).isZero();
    assertThat(stats(1).gets() + stats(2).gets()).isZero();
    assertThat(total(CloudStats::steals)).isZero();
  }

  @Test
  void bulkReadsAvoidTheHolderSmallReadsUse() throws Exception {
    Value small = value(1024, 0, 1);
    Value large = value(2 << 20, 0, 1); // 2 MiB: 10 + 168 ms on p0, 50 + 168 ms on p1 (< 1.25 x)
    // With no small read yet, a bulk read takes the fastest holder.
    assertThat(readNow(large).servedBy()).isEqualTo("p0");
    assertThat(readNow(small).servedBy()).isEqualTo("p0");
    assertThat(readNow(large).servedBy()).isEqualTo("p1");
    assertThat(stats(0).routedBulk()).isEqualTo(1);
    assertThat(stats(1).routedBulk()).isEqualTo(1);
    assertThat(stats(0).routedSmall()).isEqualTo(1);
    // Two seconds without small reads on p0: bulk reads may use it again.
    h.scheduler.advance(ReadRouting.SMALL_READ_MEMORY);
    assertThat(readNow(large).servedBy()).isEqualTo("p0");
  }

  @Test
  void bulkReadsStayOnTheSmallReadHolderWhenTheOtherIsMuchSlower() throws Exception {
    Value small = value(1024, 0, 3);
    Value large = value(2 << 20, 0, 3); // p3: 150 + 168 ms, more than 1.25 x p0's 178 ms
    assertThat(readNow(small).servedBy()).isEqualTo("p0");
    assertThat(readNow(large).servedBy()).isEqualTo("p0");
    assertThat(stats(0).routedBulk()).isEqualTo(1);
  }

  @Test
  void aBusyHolderLosesToAnIdleOne() throws Exception {
    Value stream = value(8 << 20, 0); // 8 MiB only on p0: 670 ms of its link
    Value small = value(1024, 0, 1);
    CompletableFuture<StoredValue> running = read(stream);
    h.scheduler.advance(Duration.ofMillis(1)); // the stream's request is on its way
    assertThat(ctx.model.bytesInFlight("p0")).isEqualTo(8 << 20);
    // p0: 10 ms + 8 MiB / 12.5 MB/s behind the stream; p1: 50 ms idle.
    assertThat(readNow(small).servedBy()).isEqualTo("p1");
    assertThat(running).isNotDone();
    assertThat(h.run(running).value()).isEqualTo(stream.bytes());
    // Once the stream is done, p0 is the fastest again, and nothing is left counted in flight.
    assertThat(ctx.model.requestsInFlight("p0")).isZero();
    assertThat(ctx.model.bytesInFlight("p0")).isZero();
    assertThat(readNow(small).servedBy()).isEqualTo("p0");
    assertThat(stats(1).routedSmall()).isEqualTo(1);
    assertThat(stats(0).routedSmall()).isEqualTo(1);
  }

  /**
   * A small read goes to p0 (predicted 10 ms, idle), whose link has in truth slowed to 2 s; right
   * after it a stream of 8 MiB starts on p0. When p0 was predicted to answer it is 670 ms of queue
   * away, and p1 (50 ms) is idle: p1 steals the read, long before the hedge would have asked it.
   */
  Value stealSetUp(int... holders) {
    Value small = value(1024, holders);
    Value stream = value(8 << 20, 0);
    h.clouds.get(0).rtt(Duration.ofSeconds(2));
    CompletableFuture<StoredValue> s = read(small);
    CompletableFuture<StoredValue> streaming = read(stream);
    assertThat(stats(0).routedSmall()).isEqualTo(1);
    pending = s;
    this.stream = streaming;
    return small;
  }

  CompletableFuture<StoredValue> pending;
  CompletableFuture<StoredValue> stream;

  @Test
  void anIdleHolderStealsFromABusyOneAndWins() throws Exception {
    Value small = stealSetUp(0, 1, 2);
    StoredValue got = h.run(pending);
    assertThat(got.value()).isEqualTo(small.bytes());
    assertThat(got.servedBy()).isEqualTo("p1");
    // The steal stood in for the hedge: p2 was never asked (the hedge at 25 ms would have).
    assertThat(stats(2).gets()).isZero();
    // Stolen at p0's predicted answer (~10 ms), answered by p1 50 ms later; a hedge would have
    // waited until 25 ms.
    assertThat(h.scheduler.nanoTime()).isLessThan(Duration.ofMillis(70).toNanos());
    assertThat(stats(1).steals()).isEqualTo(1);
    assertThat(stats(1).stealsWon()).isEqualTo(1);
    assertThat(stats(1).stealsWasted()).isZero();
    assertThat(stats(1).gets()).isEqualTo(1); // one request to p1: no hedge besides the steal
    assertThat(total(CloudStats::steals)).isEqualTo(1);
    h.run(stream);
    assertThat(ctx.model.requestsInFlight("p0")).isZero();
    assertThat(ctx.model.requestsInFlight("p1")).isZero();
  }

  @Test
  void aCorruptThiefIsDiscardedAndTheReadIsExact() throws Exception {
    h.clouds.get(1).behave(TestCloud.Behaviour.CORRUPT);
    Value small = stealSetUp(0, 1);
    StoredValue got = h.run(pending);
    assertThat(got.value()).isEqualTo(small.bytes());
    assertThat(got.servedBy()).isEqualTo("p0");
    assertThat(stats(1).steals()).isEqualTo(1);
    assertThat(stats(1).stealsWon()).isZero();
    assertThat(stats(1).stealsWasted()).isEqualTo(1);
    assertThat(stats(1).gets()).isEqualTo(1);
  }

  @Test
  void atMostOneStealPerFetch() throws Exception {
    // p1 (the thief) is slow too: after it the hedge asks p2, which is not another steal.
    h.clouds.get(1).rtt(Duration.ofSeconds(3));
    Value small = stealSetUp(0, 1, 2);
    StoredValue got = h.run(pending);
    assertThat(got.value()).isEqualTo(small.bytes());
    assertThat(got.servedBy()).isEqualTo("p2");
    assertThat(total(CloudStats::steals)).isEqualTo(1);
    assertThat(stats(1).steals()).isEqualTo(1);
    assertThat(stats(1).stealsWasted()).isEqualTo(1);
    assertThat(stats(2).steals()).isZero();
    assertThat(stats(2).gets()).isEqualTo(1);
  }

  @Test
  void noStealWhenTheHolderIsNotBusy() throws Exception {
    // p0 slow but with nothing queued: the ordinary hedge asks p1, no steal.
    Value small = value(1024, 0, 1);
    h.clouds.get(0).rtt(Duration.ofSeconds(2));
    StoredValue got = readNow(small);
    assertThat(got.servedBy()).isEqualTo("p1");
    assertThat(total(CloudStats::steals)).isZero();
  }

  @Test
  void partsOfAStreamAvoidTheHolderSmallReadsUse() throws Exception {
    Value small = value(1024, 0, 1);
    byte[] h1 = new byte[32];
    byte[] h2 = new byte[32];
    io.rafestore.internal.protocol.metadata.LogEntry parted =
        io.rafestore.internal.protocol.metadata.LogEntry.parts(
            1, 0, "d/parted", 4 << 20, new byte[32], List.of("p0", "p1"), List.of(h1, h2));
    // 2 MiB parts: 178 ms from p0, 218 ms from p1 (less than 1.25 x).
    Spread before = new Spread(ctx, parted);
    assertThat(before.pick()).isEqualTo("p0");
    assertThat(readNow(small).servedBy()).isEqualTo("p0");
    Spread after = new Spread(ctx, parted);
    assertThat(after.pick()).isEqualTo("p1");
  }

  @Test
  void aBatchOfPartsGoesToItsHoldersInRunsTheFirstPartsOnTheFastest() throws Exception {
    List<byte[]> hashes = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      hashes.add(new byte[32]);
    }
    io.rafestore.internal.protocol.metadata.LogEntry parted =
        io.rafestore.internal.protocol.metadata.LogEntry.parts(
            1, 0, "d/parted", 12 << 20, new byte[32], List.of("p0", "p1"), hashes);
    // 2 MiB parts: p0 10 ms + 168 ms a part, p1 50 ms + 168 ms. Placed one by one where each
    // finishes first they alternate (p0, p1, p0, p1, ...), and parts sent together to one holder
    // arrive together, so the second part waited for p1's whole share.
    Spread one = new Spread(ctx, parted);
    List<String> oneByOne = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      oneByOne.add(one.pick());
    }
    assertThat(oneByOne).containsExactly("p0", "p1", "p0", "p1", "p0", "p1");
    // As a batch: as many on each holder, in runs, the first parts on the fastest for one part.
    Spread batch = new Spread(ctx, parted);
    List<String> plan = batch.batch(List.of(1, 2, 3, 4, 5, 6));
    assertThat(plan).containsExactly("p0", "p0", "p0", "p1", "p1", "p1");
    assertThat(batch.pick(2)).isEqualTo("p0");
    assertThat(batch.pick(4)).isEqualTo("p1");
    // A part the plan does not name is placed one by one, as before (p0 carries 1 of its 3 now).
    assertThat(batch.pick(9)).isIn("p0", "p1");
    // One holder: nothing to plan.
    io.rafestore.internal.protocol.metadata.LogEntry single =
        io.rafestore.internal.protocol.metadata.LogEntry.parts(
            1, 0, "d/single", 12 << 20, new byte[32], List.of("p0"), hashes);
    assertThat(new Spread(ctx, single).batch(List.of(1, 2))).isEmpty();
  }
}
