package io.rafestore.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rafestore.CloudRole;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.clouds.WanEmulator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The meters after a run of writes and reads on four in-memory clouds (f = 1) on virtual time, the
 * paper's Table 1 round-trip times, with one cloud faulty through the project's fault decorators.
 */
class RafeStoreMetricsTest {
  private static final long[] RTT_MS = {5, 315, 750, 1200};
  private static final List<String> CLOUDS = List.of("p0", "p1", "p2", "p3");
  private static final int WRITES = 5;

  private final VirtualScheduler scheduler = new VirtualScheduler();
  private final WanEmulator network = WanEmulator.builder(scheduler).seed(7).build();
  private final List<FaultyCloud> faulty = new ArrayList<>();
  private final List<ByzantineCloud> byzantine = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RafeStoreMetrics metrics = new RafeStoreMetrics(Tags.of("store", "test"));

  /** p0..p3 with Table 1's RTTs; p3 holds metadata only (Table 2, Configuration 1). */
  private RafeStore store() {
    metrics.bindTo(registry);
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .executor(Runnable::run)
            .scheduler(scheduler)
            .writer("alice", SigningKeys.generate())
            // The meters under test are the data clouds' (writeDf, a corrupt data get): values
            // this small would otherwise travel inside the signed log and touch no data cloud.
            .inlineThreshold(0)
            .listener(metrics.listener());
    for (int i = 0; i < CLOUDS.size(); i++) {
      ByzantineCloud liar = new ByzantineCloud(new MemoryCloud(CLOUDS.get(i)), 100 + i);
      FaultyCloud f = new FaultyCloud(liar, scheduler, 200 + i);
      byzantine.add(liar);
      faulty.add(f);
      Duration rtt = Duration.ofMillis(RTT_MS[i]);
      b.cloud(
          network.wrap(f, WanEmulator.Link.rtt(rtt)),
          i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA,
          rtt);
    }
    return b.build();
  }

  private <T> T run(CompletableFuture<T> f) throws Exception {
    return scheduler.runUntilDone(f);
  }

  private void writeAndRead(RafeStore store) throws Exception {
    for (int i = 0; i < WRITES; i++) {
      byte[] value = ("post " + i).getBytes(StandardCharsets.UTF_8);
      run(store.write("forum/topic", value));
      assertThat(run(store.read("forum/topic")).value()).isEqualTo(value);
    }
    scheduler.runUntilIdle();
  }

  private double faults(String cloud) {
    return registry.find("rafestore.cloud.faults").tag("cloud", cloud).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private double requests(String cloud, String outcome) {
    return registry
        .find("rafestore.cloud.requests")
        .tag("cloud", cloud)
        .tag("outcome", outcome)
        .counters()
        .stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private double bytes(String cloud, String direction) {
    Counter c =
        registry
            .find("rafestore.cloud.bytes")
            .tags("cloud", cloud, "direction", direction)
            .counter();
    return c == null ? 0 : c.count();
  }

  private Timer phase(String name) {
    return registry.find("rafestore.phases").tag("phase", name).timer();
  }

  @Test
  void aCorruptCloudsFaultsAreCountedOnItAloneAndEveryOtherMeterMoves() throws Exception {
    try (RafeStore store = store()) {
      byzantine.get(0).behave(ByzantineCloud.Behaviour.CORRUPT);
      writeAndRead(store);
    }

    // p0 returns corrupt bytes to every get: counted on p0 as corrupt data, on no other cloud.
    assertThat(
            registry
                .get("rafestore.cloud.faults")
                .tags("cloud", "p0", "kind", "corrupt_data")
                .counter()
                .count())
        .isPositive();
    for (String healthy : List.of("p1", "p2", "p3")) {
      assertThat(faults(healthy)).as(healthy).isZero();
      // Present at zero, so a dashboard shows the cloud as healthy rather than unknown.
      assertThat(
              registry
                  .get("rafestore.cloud.faults")
                  .tags("cloud", healthy, "kind", "error")
                  .counter())
          .isNotNull();
    }
    // Every cloud answered requests and received bytes (every cloud holds the metadata).
    for (String cloud : CLOUDS) {
      assertThat(requests(cloud, "ok")).as(cloud).isPositive();
      assertThat(bytes(cloud, "up")).as(cloud).isPositive();
      assertThat(
              registry.find("rafestore.cloud.latency").tag("cloud", cloud).timers().stream()
                  .mapToLong(Timer::count)
                  .sum())
          .as(cloud)
          .isPositive();
    }
    assertThat(bytes("p0", "down")).isPositive();
    // The reads were served by p1, the fastest holder that returns the signed bytes.
    assertThat(registry.get("rafestore.reads.served").tag("cloud", "p1").counter().count())
        .isEqualTo(WRITES);
    assertThat(registry.find("rafestore.reads.served").tag("cloud", "p0").counter()).isNull();

    // Operations and phases: one of each per write and per read; readM of both.
    Timer writes = registry.get("rafestore.operations").tag("operation", "write").timer();
    Timer reads = registry.get("rafestore.operations").tag("operation", "read").timer();
    assertThat(writes.count()).isEqualTo(WRITES);
    assertThat(reads.count()).isEqualTo(WRITES);
    assertThat(phase("writeDo").count()).isEqualTo(WRITES);
    assertThat(phase("writeM").count()).isEqualTo(WRITES);
    assertThat(phase("readM").count()).isEqualTo(2L * WRITES);
    assertThat(phase("dataFetch").count()).isGreaterThanOrEqualTo(WRITES);
    // readM waits for n - f = 3 clouds: p2's 750 ms round trip.
    assertThat(phase("readM").max(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(750);
    assertThat(phase("writeDf")).isNull();
    assertThat(registry.get("rafestore.writes.writedf").counter().count()).isZero();
    assertThat(
            registry
                .get("rafestore.tenant.operations")
                .tags("tenant", "default", "outcome", "ok")
                .timer()
                .count())
        .isEqualTo(2L * WRITES);
    assertThat(
            registry.get("rafestore.tenant.requests").tag("tenant", "default").counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count)
                .sum())
        .isPositive();
    // Every meter carries the binder's tags.
    for (Meter m : registry.getMeters()) {
      assertThat(m.getId().getTag("store")).as(m.getId().toString()).isEqualTo("test");
    }
  }

  @Test
  void aCrashedCloudsFailedRequestsAndErrorsAreCountedOnItAlone() throws Exception {
    try (RafeStore store = store()) {
      faulty.get(2).crash();
      writeAndRead(store);
    }
    assertThat(
            registry
                .get("rafestore.cloud.faults")
                .tags("cloud", "p2", "kind", "error")
                .counter()
                .count())
        .isPositive();
    assertThat(requests("p2", "failed")).isPositive();
    assertThat(requests("p2", "ok")).isZero();
    for (String healthy : List.of("p0", "p1", "p3")) {
      assertThat(faults(healthy)).as(healthy).isZero();
      assertThat(requests(healthy, "failed")).as(healthy).isZero();
      assertThat(requests(healthy, "ok")).as(healthy).isPositive();
    }
  }

  @Test
  void aSlowDataCloudShowsAsTheWriteDfRate() throws Exception {
    try (RafeStore store = store()) {
      // p1 is slow, not faulty: the first write's crucial check fails and writeDf adds p2; the
      // latency model then learns (from the cancelled upload) that p1 is slow, and later writes
      // send to p0 and p2 from the start.
      faulty.get(1).slowDown(Duration.ofSeconds(20));
      writeAndRead(store);
    }
    double writes = registry.get("rafestore.operations").tag("operation", "write").timer().count();
    double writeDf = registry.get("rafestore.writes.writedf").counter().count();
    assertThat(writes).isEqualTo(WRITES);
    assertThat(writeDf / writes).isEqualTo(1.0 / WRITES);
    assertThat(phase("writeDf").count()).isEqualTo(1);
    // A slow cloud is no fault: its uploads are cancelled as useless, not failed.
    assertThat(faults("p1")).isZero();
    assertThat(requests("p1", "cancelled")).isPositive();
  }

  private long operations(String operation, String outcome) {
    Timer t =
        registry
            .find("rafestore.operations")
            .tags("operation", operation, "outcome", outcome)
            .timer();
    return t == null ? 0 : t.count();
  }

  @Test
  void everyOperationIsTimedByKindAndOutcome() throws Exception {
    try (RafeStore store = store()) {
      faulty.get(2).crash();
      io.rafestore.WriteReceipt w = null;
      for (int i = 0; i < 3; i++) {
        w = run(store.write("forum/topic", ("post " + i).getBytes(StandardCharsets.UTF_8)));
      }
      assertThat(run(store.read("forum/topic", w.version(), 5, 1))).containsExactly('2');
      run(store.verify("forum/topic"));
      run(store.repair("forum/topic"));
      run(store.collect("forum/topic", io.rafestore.RetentionPolicy.keepLast(1)));
      run(store.keys());
      run(store.delete("forum/topic"));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> run(store.read("forum/topic")))
          .hasCauseInstanceOf(io.rafestore.KeyNotFoundException.class);
      scheduler.runUntilIdle();
    }
    assertThat(operations("write", "ok")).isEqualTo(3);
    for (String op : List.of("ranged_read", "verify", "repair", "collect", "keys", "delete")) {
      assertThat(operations(op, "ok")).as(op).isEqualTo(1);
    }
    assertThat(operations("read", "not_found")).isEqualTo(1);
    assertThat(operations("read", "ok")).isZero();
    // The delete and the collection each timed their readM and writeM; the ranged read its fetch.
    assertThat(phase("writeM").count()).isEqualTo(3 + 2);
    assertThat(phase("dataFetch").count()).isEqualTo(1);
    // Every operation timer has both tags, as registries with fixed tag sets (Prometheus) need.
    assertThat(registry.find("rafestore.operations").timers())
        .allSatisfy(
            t -> {
              assertThat(t.getId().getTag("operation")).isNotNull();
              assertThat(t.getId().getTag("outcome")).isNotNull();
            });
    // The crashed cloud's faults are counted; it changed no operation's outcome.
    assertThat(faults("p2")).isPositive();
  }
}
