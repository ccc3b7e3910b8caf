package io.rafestore.internal.protocol;

import static io.rafestore.internal.protocol.ProtocolTest.TABLE1;
import static io.rafestore.internal.protocol.ProtocolTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudFault;
import io.rafestore.CloudRequest;
import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.Phase;
import io.rafestore.PhaseTiming;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.ReadReceipt;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a client tells its listener: each operation's phases with their timings on virtual time
 * (Table 1's round-trip times, so the timings are exact), read receipts, every request per cloud
 * and faults naming the faulty cloud.
 */
class ObservabilityTest {

  /** Table 2, Configuration 1 (data p0, p1; extra p2; metadata only p3), with a listener. */
  private static RafeStore config1(Harness h, ProtocolMode mode, RafeStoreListener listener) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .writer("alice", Harness.ALICE)
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
    try (RafeStore store = config1(h, ProtocolMode.PAPER, seen)) {
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
}
