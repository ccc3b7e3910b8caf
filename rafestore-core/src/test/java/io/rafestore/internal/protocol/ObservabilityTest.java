package io.rafestore.internal.protocol;

import static io.rafestore.internal.protocol.ProtocolTest.TABLE1;
import static io.rafestore.internal.protocol.ProtocolTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudFault;
import io.rafestore.CloudRequest;
import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.KeyNotFoundException;
import io.rafestore.OperationReceipt;
import io.rafestore.OperationReceipt.Kind;
import io.rafestore.OperationReceipt.Outcome;
import io.rafestore.Phase;
import io.rafestore.PhaseTiming;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.ReadReceipt;
import io.rafestore.RetentionPolicy;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * What a client tells its listener: each operation's phases with their timings on virtual time
 * (Table 1's round-trip times, so the timings are exact), read receipts, every request per cloud
 * and faults naming the faulty cloud.
 */
class ObservabilityTest {

  /** Table 2, Configuration 1 (data p0, p1; extra p2; metadata only p3), with a listener. */
  private static RafeStore config1(Harness h, ProtocolMode mode, RafeStoreListener listener) {
    return config1(h, mode, listener, true);
  }

  /** Configuration 1, reads anticipating their data fetch or not ({@code anticipate}). */
  private static RafeStore config1(
      Harness h, ProtocolMode mode, RafeStoreListener listener, boolean anticipate) {
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .writer("alice", Harness.ALICE)
            .speculativeReads(anticipate)
            .listener(listener);
    for (int i = 0; i < h.clouds.size(); i++) {
      TestCloud c = h.clouds.get(i);
      b.cloud(c, i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA, c.rtt());
    }
    return b.build();
  }

  private static PhaseTiming phase(List<PhaseTiming> phases, Phase p) {
    return phases.stream().filter(t -> t.phase() == p).findFirst().orElseThrow();
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  @Test
  void aWriteReportsWriteDoReadMAndWriteMWithTheirTimings() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      WriteReceipt r = h.run(store.write("feed", utf8("item")));

      assertThat(r.phases())
          .extracting(PhaseTiming::phase)
          .containsExactly(Phase.WRITE_DO, Phase.READ_M, Phase.WRITE_M);
      // writeDo to p0 (5 ms) and p1 (315 ms) from the start; readM on p0's acknowledgement, on
      // n - f = 3 clouds (p0, p1, p2: 750 ms); writeM when readM ends, on 3 clouds again.
      PhaseTiming writeDo = phase(r.phases(), Phase.WRITE_DO);
      PhaseTiming readM = phase(r.phases(), Phase.READ_M);
      PhaseTiming writeM = phase(r.phases(), Phase.WRITE_M);
      assertThat(writeDo.start()).isEqualTo(Duration.ZERO);
      assertThat(readM.start()).isEqualTo(ms(5));
      assertThat(readM.duration()).isEqualTo(ms(750));
      // The data quorum was held at 315 ms, but writeM waits for readM (the crucial check).
      assertThat(writeDo.end()).isEqualTo(readM.end());
      assertThat(writeM.start()).isEqualTo(readM.end());
      assertThat(writeM.duration()).isEqualTo(ms(750));
      assertThat(r.latency()).isEqualTo(writeM.end());

      // The listener got the same phases, as they ended, and then the receipt.
      assertThat(seen.phases)
          .extracting(RecordingListener.PhaseEnd::timing)
          .containsExactlyInAnyOrderElementsOf(r.phases());
      assertThat(seen.phases).allSatisfy(p -> assertThat(p.key()).isEqualTo("feed"));
      assertThat(seen.writes).containsExactly(r);
    }
  }

  @Test
  void aSlowDataCloudShowsWriteDfStartingWhenReadMEnds() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(1).behave(Behaviour.SLOW);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      WriteReceipt r = h.run(store.write("feed", utf8("slow p1")));

      assertThat(r.writeDfUsed()).isTrue();
      assertThat(r.phases())
          .extracting(PhaseTiming::phase)
          .containsExactly(Phase.WRITE_DO, Phase.READ_M, Phase.WRITE_DF, Phase.WRITE_M);
      PhaseTiming readM = phase(r.phases(), Phase.READ_M);
      PhaseTiming writeDf = phase(r.phases(), Phase.WRITE_DF);
      PhaseTiming writeM = phase(r.phases(), Phase.WRITE_M);
      assertThat(writeDf.start()).isEqualTo(readM.end());
      // p2 (750 ms) takes the place of the slow p1; writeM starts with its acknowledgement.
      assertThat(writeDf.duration()).isEqualTo(ms(750));
      assertThat(writeM.start()).isEqualTo(writeDf.end());
      assertThat(seen.phases).extracting(p -> p.timing().phase()).contains(Phase.WRITE_DF);
    }
  }

  @Test
  void aReadReportsItsReceiptWithReadMAndTheDataFetch() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen, false)) {
      WriteReceipt w = h.run(store.write("feed", utf8("twelve bytes")));
      seen.clear();
      StoredValue v = h.run(store.read("feed"));

      assertThat(seen.reads).hasSize(1);
      ReadReceipt r = seen.reads.get(0);
      assertThat(r.key()).isEqualTo("feed");
      assertThat(r.version()).isEqualTo(w.version());
      assertThat(r.servedBy()).isEqualTo(v.servedBy()).isEqualTo("p0");
      assertThat(r.bytes()).isEqualTo(12);
      assertThat(r.phases())
          .extracting(PhaseTiming::phase)
          .containsExactly(Phase.READ_M, Phase.DATA_FETCH);
      PhaseTiming readM = phase(r.phases(), Phase.READ_M);
      PhaseTiming fetch = phase(r.phases(), Phase.DATA_FETCH);
      assertThat(readM.start()).isEqualTo(Duration.ZERO);
      assertThat(readM.duration()).isEqualTo(ms(750));
      assertThat(fetch.start()).isEqualTo(readM.end());
      // p0, the fastest holder, serves the value in one round trip.
      assertThat(fetch.duration()).isEqualTo(ms(5));
      assertThat(r.latency()).isEqualTo(fetch.end());
      assertThat(seen.phases)
          .extracting(RecordingListener.PhaseEnd::timing)
          .containsExactlyElementsOf(r.phases());
    }
  }

  @Test
  void anAnticipatedReadReportsOnlyWhatItsFetchAddsAfterReadM() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      h.run(store.write("feed", utf8("twelve bytes")));
      seen.clear();
      assertThat(h.run(store.read("feed")).servedBy()).isEqualTo("p0");

      ReadReceipt r = seen.reads.get(0);
      assertThat(r.phases())
          .extracting(PhaseTiming::phase)
          .containsExactly(Phase.READ_M, Phase.DATA_FETCH);
      PhaseTiming readM = phase(r.phases(), Phase.READ_M);
      PhaseTiming fetch = phase(r.phases(), Phase.DATA_FETCH);
      assertThat(readM.duration()).isEqualTo(ms(750));
      // p0's log (5 ms) started the fetch from p0, done at 10 ms: nothing is left after readM.
      assertThat(fetch.start()).isEqualTo(readM.end());
      assertThat(fetch.duration()).isZero();
      assertThat(r.latency()).isEqualTo(ms(750));
    }
  }

  @Test
  void everyRequestIsReportedWithItsCloudBytesAndDuration() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      for (int i = 0; i < 3; i++) {
        h.run(store.write("feed", utf8("item " + i)));
        h.run(store.read("feed"));
      }
      h.scheduler.runUntilIdle();
      Map<String, CloudStats> stats = store.stats();
      for (String cloud : List.of("p0", "p1", "p2", "p3")) {
        List<CloudRequest> mine =
            seen.requests.stream().filter(q -> q.cloudId().equals(cloud)).toList();
        CloudStats s = stats.get(cloud);
        assertThat((long) mine.size()).as(cloud).isEqualTo(s.requests());
        assertThat(bytes(mine, CloudRequest.Kind.PUT)).as(cloud).isEqualTo(s.bytesUp());
        assertThat(bytes(mine, CloudRequest.Kind.GET)).as(cloud).isEqualTo(s.bytesDown());
        assertThat(mine.stream().filter(q -> q.outcome() == CloudRequest.Outcome.CANCELLED))
            .as(cloud)
            .hasSize((int) s.cancelled());
      }
      // Answered requests take one round trip of their cloud (no bandwidth limit here).
      assertThat(seen.requests)
          .filteredOn(q -> q.cloudId().equals("p1") && q.outcome() == CloudRequest.Outcome.OK)
          .isNotEmpty()
          .allSatisfy(q -> assertThat(q.duration()).isEqualTo(ms(315)));
    }
  }

  private static long bytes(List<CloudRequest> requests, CloudRequest.Kind kind) {
    return requests.stream().filter(q -> q.kind() == kind).mapToLong(CloudRequest::bytes).sum();
  }

  @Test
  void faultsAndFailedRequestsNameOnlyTheFaultyCloud() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(2).behave(Behaviour.CRASH);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      h.run(store.write("feed", utf8("item")));
      assertThat(h.run(store.read("feed")).utf8()).isEqualTo("item");

      assertThat(seen.faults).isNotEmpty();
      assertThat(seen.faults)
          .allSatisfy(
              f -> {
                assertThat(f.fault().cloudId()).isEqualTo("p2");
                assertThat(f.fault().kind()).isEqualTo(CloudFault.Kind.ERROR);
                assertThat(f.key()).isEqualTo("feed");
              });
      assertThat(seen.requests)
          .filteredOn(q -> q.outcome() == CloudRequest.Outcome.FAILED)
          .isNotEmpty()
          .allSatisfy(q -> assertThat(q.cloudId()).isEqualTo("p2"));
    }
  }

  @Test
  void aCorruptCloudIsNamedWithTheKindOfItsLie() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(0).behave(Behaviour.CORRUPT);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      h.run(store.write("feed", utf8("item")));
      StoredValue v = h.run(store.read("feed"));
      assertThat(v.utf8()).isEqualTo("item");
      assertThat(seen.reads)
          .singleElement()
          .satisfies(r -> assertThat(r.servedBy()).isEqualTo("p1"));
      assertThat(seen.faults).extracting(f -> f.fault().cloudId()).containsOnly("p0");
      assertThat(seen.faults)
          .extracting(f -> f.fault().kind())
          .contains(CloudFault.Kind.CORRUPT_DATA);
    }
  }

  @Test
  void aThrowingListenerChangesNoOutcome() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(0).behave(Behaviour.CORRUPT);
    AtomicInteger calls = new AtomicInteger();
    RafeStoreListener hostile =
        new RecordingListener() {
          @Override
          public void phaseCompleted(String key, PhaseTiming phase) {
            calls.incrementAndGet();
            throw new IllegalStateException("listener bug");
          }

          @Override
          public void cloudRequest(CloudRequest request) {
            calls.incrementAndGet();
            throw new IllegalStateException("listener bug");
          }

          @Override
          public void cloudFault(String key, CloudFault fault) {
            calls.incrementAndGet();
            throw new IllegalStateException("listener bug");
          }
        };
    try (RafeStore store = config1(h, ProtocolMode.PAPER, hostile)) {
      h.run(store.write("feed", utf8("item")));
      assertThat(h.run(store.read("feed")).utf8()).isEqualTo("item");
    }
    assertThat(calls.get()).isPositive();
  }

  @Test
  void allListenersTellEachEventToEveryListenerEvenPastOneThatThrows() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener first = new RecordingListener();
    RafeStoreListener throwing =
        new RafeStoreListener() {
          @Override
          public void writeCompleted(WriteReceipt receipt) {
            throw new IllegalStateException("listener bug");
          }
        };
    RecordingListener last = new RecordingListener();
    try (RafeStore store =
        config1(h, ProtocolMode.PAPER, RafeStoreListener.all(first, throwing, last))) {
      WriteReceipt r = h.run(store.write("feed", utf8("item")));
      h.run(store.read("feed"));
      assertThat(first.writes).containsExactly(r);
      assertThat(last.writes).containsExactly(r);
      assertThat(last.reads).hasSize(1);
      assertThat(last.phases).hasSameSizeAs(first.phases).isNotEmpty();
      assertThat(last.requests).hasSameSizeAs(first.requests).isNotEmpty();
    }
  }

  private static OperationReceipt last(RecordingListener seen, Kind kind) {
    List<OperationReceipt> of = seen.operations.stream().filter(o -> o.kind() == kind).toList();
    assertThat(of).as("receipts of " + kind).isNotEmpty();
    return of.get(of.size() - 1);
  }

  private static List<Phase> phases(OperationReceipt r) {
    return r.phases().stream().map(PhaseTiming::phase).toList();
  }

  @Test
  void writesAndReadsEndWithOneOperationReceiptAfterTheirOwnReceipt() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      WriteReceipt w = h.run(store.write("feed", utf8("twelve bytes")));
      assertThat(seen.order).last().isEqualTo("operation");
      assertThat(seen.order.get(seen.order.size() - 2)).isEqualTo("write");
      OperationReceipt op = seen.operations.get(0);
      assertThat(op.kind()).isEqualTo(Kind.WRITE);
      assertThat(op.key()).isEqualTo("feed");
      assertThat(op.outcome()).isEqualTo(Outcome.OK);
      assertThat(op.failure()).isEmpty();
      assertThat(op.bytes()).isEqualTo(12);
      assertThat(op.phases()).isEqualTo(w.phases());
      assertThat(op.duration()).isEqualTo(w.latency());

      seen.clear();
      h.run(store.read("feed"));
      assertThat(seen.order).endsWith("read", "operation");
      ReadReceipt r = seen.reads.get(0);
      assertThat(seen.operations)
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.kind()).isEqualTo(Kind.READ);
                assertThat(o.bytes()).isEqualTo(12);
                assertThat(o.phases()).isEqualTo(r.phases());
                assertThat(o.duration()).isEqualTo(r.latency());
              });
    }
  }

  @Test
  void aRangedReadReportsReadMAndTheDataFetchOfItsRange() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      WriteReceipt w = h.run(store.write("feed", utf8("twelve bytes")));
      seen.clear();
      assertThat(h.run(store.read("feed", w.version(), 7, 5))).isEqualTo(utf8("bytes"));

      OperationReceipt r = last(seen, Kind.RANGED_READ);
      assertThat(r.outcome()).isEqualTo(Outcome.OK);
      assertThat(r.bytes()).isEqualTo(5);
      assertThat(phases(r)).containsExactly(Phase.READ_M, Phase.DATA_FETCH);
      // readM on n - f = 3 clouds (p2's 750 ms); the whole value was fetched from p0 during it
      // (anticipated on p0's log at 5 ms), so the data fetch adds nothing after readM; then cut.
      assertThat(phase(r.phases(), Phase.READ_M).duration()).isEqualTo(ms(750));
      assertThat(phase(r.phases(), Phase.DATA_FETCH).start()).isEqualTo(ms(750));
      assertThat(phase(r.phases(), Phase.DATA_FETCH).duration()).isZero();
      assertThat(r.duration()).isEqualTo(ms(750));
      assertThat(seen.phases).extracting(RecordingListener.PhaseEnd::timing).isEqualTo(r.phases());
      // A ranged read has no read receipt of a whole value.
      assertThat(seen.reads).isEmpty();

      seen.clear();
      Version never = new Version(w.version().timestamp() + 5, "alice");
      assertThatFails(h, store.read("feed", never, 0, 1));
      OperationReceipt missing = last(seen, Kind.RANGED_READ);
      assertThat(missing.outcome()).isEqualTo(Outcome.NOT_FOUND);
      assertThat(missing.failure()).contains("VersionNotFoundException");
      assertThat(phases(missing)).containsExactly(Phase.READ_M);
    }
  }

  @Test
  void deleteHistoryAndCollectReportTheirReadMAndWriteM() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      for (int i = 0; i < 3; i++) {
        h.run(store.write("feed", utf8("item " + i)));
      }
      seen.clear();
      assertThat(h.run(store.history("feed", Optional.empty(), 10)).versions()).hasSize(3);
      OperationReceipt history = last(seen, Kind.HISTORY);
      assertThat(phases(history)).containsExactly(Phase.READ_M);
      assertThat(history.duration()).isEqualTo(ms(750));

      h.run(store.collect("feed", RetentionPolicy.keepLast(1)));
      OperationReceipt collect = last(seen, Kind.COLLECT);
      assertThat(collect.outcome()).isEqualTo(Outcome.OK);
      assertThat(phases(collect)).containsExactly(Phase.READ_M, Phase.WRITE_M);
      // A collection's readM is patient: after its quorum (750 ms) it waits as long again for the
      // other clouds, and p3 answers at 1,200 ms, so readM ends then (every cloud answered). The
      // watermark goes to n - f = 3 clouds once readM ended; the data deletions follow it.
      assertThat(phase(collect.phases(), Phase.READ_M).duration()).isEqualTo(ms(1200));
      assertThat(phase(collect.phases(), Phase.WRITE_M).start()).isEqualTo(ms(1200));
      assertThat(phase(collect.phases(), Phase.WRITE_M).duration()).isEqualTo(ms(750));
      assertThat(collect.duration()).isGreaterThanOrEqualTo(ms(1950));

      h.run(store.delete("feed"));
      OperationReceipt delete = last(seen, Kind.DELETE);
      assertThat(delete.outcome()).isEqualTo(Outcome.OK);
      assertThat(delete.key()).isEqualTo("feed");
      assertThat(phases(delete)).containsExactly(Phase.READ_M, Phase.WRITE_M);
      PhaseTiming tombstone = phase(delete.phases(), Phase.WRITE_M);
      assertThat(tombstone.start()).isEqualTo(ms(750));
      assertThat(tombstone.duration()).isEqualTo(ms(750));
      // The data objects are deleted after the tombstone is on a quorum.
      assertThat(delete.duration()).isGreaterThan(tombstone.end());

      // Every phase the listener was told belongs to one of these operations, in their order.
      assertThat(seen.phases)
          .extracting(RecordingListener.PhaseEnd::timing)
          .containsExactlyElementsOf(
              seen.operations.stream().flatMap(o -> o.phases().stream()).toList());
    }
  }

  @Test
  void maintenanceListingsAndTheProbeEndWithAReceiptWithoutPhases() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(0).behave(Behaviour.CORRUPT);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      h.run(store.write("a", utf8("one")));
      h.run(store.write("b", utf8("two")));
      seen.clear();
      h.run(store.verify("a"));
      h.run(store.repair("a"));
      assertThat(h.run(store.keys())).containsExactly("a", "b");
      assertThat(h.run(store.verifyAll())).hasSize(2);
      h.run(store.collectOrphans("a", Duration.ZERO));

      assertThat(seen.operations)
          .extracting(OperationReceipt::kind)
          .containsExactly(
              Kind.VERIFY,
              Kind.REPAIR,
              Kind.KEYS,
              Kind.VERIFY,
              Kind.VERIFY,
              Kind.VERIFY_ALL,
              Kind.COLLECT_ORPHANS);
      assertThat(seen.operations)
          .allSatisfy(
              o -> {
                assertThat(o.outcome()).isEqualTo(Outcome.OK);
                assertThat(o.phases()).isEmpty();
                assertThat(o.duration()).isPositive();
              });
      assertThat(seen.operations)
          .filteredOn(o -> o.kind() == Kind.KEYS || o.kind() == Kind.VERIFY_ALL)
          .allSatisfy(o -> assertThat(o.key()).isEmpty());
      assertThat(seen.operations.get(0).key()).isEqualTo("a");
      // verifyAll takes as long as its listing and its verifies, one after another.
      OperationReceipt all = last(seen, Kind.VERIFY_ALL);
      Duration each =
          seen.operations.subList(3, 5).stream()
              .map(OperationReceipt::duration)
              .reduce(Duration.ZERO, Duration::plus);
      assertThat(all.duration()).isGreaterThan(each);
    }
  }

  @Test
  void failuresAreReportedWithTheirOutcome() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .listener(seen)
            .operationTimeout(Duration.ofSeconds(10))
            .build()) {
      assertThatFails(h, store.read("missing"));
      OperationReceipt notFound = last(seen, Kind.READ);
      assertThat(notFound.outcome()).isEqualTo(Outcome.NOT_FOUND);
      assertThat(notFound.failure()).contains(KeyNotFoundException.class.getSimpleName());
      assertThat(phases(notFound)).containsExactly(Phase.READ_M);

      // Two of four clouds hang (more than f): readM never gets its quorum; the timeout ends it.
      h.clouds.get(2).behave(Behaviour.HANG);
      h.clouds.get(3).behave(Behaviour.HANG);
      assertThatFails(h, store.read("missing"));
      OperationReceipt timeout = last(seen, Kind.READ);
      assertThat(timeout.outcome()).isEqualTo(Outcome.TIMEOUT);
      assertThat(timeout.duration()).isEqualTo(Duration.ofSeconds(10));
      // The phase still running when the operation ended is ended with it.
      assertThat(phase(timeout.phases(), Phase.READ_M).end()).isEqualTo(Duration.ofSeconds(10));
      assertThatFails(h, store.delete("gone"));
      assertThat(last(seen, Kind.DELETE).outcome()).isEqualTo(Outcome.TIMEOUT);

      // Two crashed clouds: readM fails at once for want of a quorum.
      h.clouds.get(2).behave(Behaviour.CRASH);
      h.clouds.get(3).behave(Behaviour.CRASH);
      assertThatFails(h, store.history("missing", Optional.empty(), 1));
      assertThat(last(seen, Kind.HISTORY).outcome()).isEqualTo(Outcome.UNAVAILABLE);
    }
  }

  @Test
  void aCancelledOperationIsReportedCancelled() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    RecordingListener seen = new RecordingListener();
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
      var verify = store.verify("feed");
      h.scheduler.advance(ms(100));
      verify.cancel(true);
      h.scheduler.runUntilIdle();
      OperationReceipt r = last(seen, Kind.VERIFY);
      assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
      assertThat(r.duration()).isEqualTo(ms(100));
    }
  }

  @Test
  void aStreamReadEndsWhenTheStreamEndsOrIsClosed() throws Exception {
    // openStream blocks its caller, so these clouds answer at once (no virtual time to drive);
    // p0 lies about every value it returns, from the first read on.
    RecordingListener seen = new RecordingListener();
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .writer("alice", Harness.ALICE)
            .listener(seen);
    ByzantineCloud liar = new ByzantineCloud(new MemoryCloud("p0"), 1);
    b.cloud(liar, CloudRole.DATA_AND_METADATA, ms(1));
    for (int i = 1; i < 4; i++) {
      b.cloud(new MemoryCloud("p" + i), CloudRole.DATA_AND_METADATA, ms(1 + i));
    }
    try (RafeStore store = b.build()) {
      var s = store.blocking();
      s.write("feed", utf8("twelve bytes"));
      liar.behave(ByzantineCloud.Behaviour.CORRUPT);
      seen.clear();
      try (InputStream in = s.openStream("feed")) {
        assertThat(in.readAllBytes()).isEqualTo(utf8("twelve bytes"));
        // Ended at the stream's end, before the close.
        assertThat(seen.operations).hasSize(1);
      }
      OperationReceipt whole = last(seen, Kind.STREAM_READ);
      assertThat(whole.outcome()).isEqualTo(Outcome.OK);
      assertThat(whole.bytes()).isEqualTo(12);
      assertThat(phases(whole)).containsExactly(Phase.READ_M, Phase.DATA_FETCH);
      // Whichever holder served it, the bytes are the signed ones; a lie, if met, named p0 only.
      // It may not be met: p0's metadata may arrive after readM's quorum and its data not be asked
      // for (the clouds answer at once, so which holder the model predicts fastest varies).
      assertThat(seen.faults).extracting(f -> f.fault().cloudId()).allMatch("p0"::equals);

      seen.clear();
      try (InputStream in = s.openStream("feed")) {
        assertThat(in.readNBytes(6)).isEqualTo(utf8("twelve"));
        assertThat(seen.operations).isEmpty();
      }
      OperationReceipt early = last(seen, Kind.STREAM_READ);
      assertThat(early.outcome()).isEqualTo(Outcome.CANCELLED);
      assertThat(early.bytes()).isEqualTo(6);
      assertThat(early.failure()).contains("closed after 6 bytes");

      seen.clear();
      Assertions.assertThatThrownBy(() -> s.openStream("missing"))
          .isInstanceOf(KeyNotFoundException.class);
      OperationReceipt missing = last(seen, Kind.STREAM_READ);
      assertThat(missing.outcome()).isEqualTo(Outcome.NOT_FOUND);
      assertThat(phases(missing)).containsExactly(Phase.READ_M);
    }
  }

  private static void assertThatFails(Harness h, java.util.concurrent.CompletableFuture<?> f) {
    Assertions.assertThatThrownBy(() -> h.run(f)).isInstanceOf(ExecutionException.class);
  }
}
