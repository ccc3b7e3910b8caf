package io.rafestore.internal.protocol.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRequest;
import io.rafestore.CloudStats;
import io.rafestore.Pricing;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.ScrubEvent;
import io.rafestore.ScrubOptions;
import io.rafestore.ScrubStatus;
import io.rafestore.Scrubber;
import io.rafestore.VerifyReport;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.util.Names;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background scrubber on virtual time: it finds and repairs damage within its budgets, one
 * request per cloud at a time; it resumes after a restart from its state file without checking
 * again what it finished; a corrupt state file is reported and the scrub starts from the first key.
 */
class ScrubberTest {
  static final int PART = 16 * 1024;

  /** Records scrub events, and the span of every request to each cloud once {@code on}. */
  static final class Recorder implements RafeStoreListener {
    final Harness h;
    final List<ScrubEvent> events = new CopyOnWriteArrayList<>();
    final Map<String, List<long[]>> spans = new HashMap<>();
    volatile boolean on;

    Recorder(Harness h) {
      this.h = h;
    }

    @Override
    public void scrubEvent(ScrubEvent event) {
      events.add(event);
    }

    @Override
    public synchronized void cloudRequest(CloudRequest r) {
      if (on) {
        long end = h.scheduler.nanoTime();
        spans
            .computeIfAbsent(r.cloudId(), c -> new ArrayList<>())
            .add(new long[] {end - r.duration().toNanos(), end});
      }
    }

    List<String> keysWith(ScrubEvent.Kind kind) {
      List<String> out = new ArrayList<>();
      for (ScrubEvent e : events) {
        if (e.kind() == kind && !out.contains(e.key())) {
          out.add(e.key());
        }
      }
      return out;
    }
  }

  static Harness harness() {
    // p0 and p1 (the fastest) hold the data; p1 joins parts into one object.
    return new Harness(
            1,
            4,
            i -> i == 1 ? MemoryCloud.withMultipart("p1", 1024, 10_000) : new MemoryCloud("p" + i))
        .rtts(10, 20, 200, 300);
  }

  static RafeStore store(Harness h, Recorder r) {
    return h.builder(ProtocolMode.PAPER)
        .partSize(PART)
        .listener(r)
        .pricing("p3", new Pricing(0.01, 0.001, 0.01, 0.2, 0.03))
        .build();
  }

  static String key(int i) {
    return String.format("k%02d", i);
  }

  static long sum(Map<String, CloudStats> stats, java.util.function.ToLongFunction<CloudStats> f) {
    return stats.values().stream().mapToLong(f).sum();
  }

  @Test
  void findsAndRepairsDamageWithinItsBudget() throws Exception {
    Harness h = harness();
    Recorder rec = new Recorder(h);
    try (RafeStore store = store(h, rec)) {
      List<byte[]> values = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        byte[] v = PartRepairTest.random(i % 2 == 0 ? 3 * PART + 5 : 500, i);
        values.add(v);
        h.run(store.write(key(i), v));
      }
      // Damage: a part of k00 on p0 (part objects) and on p1 (joined), in different parts; k01's
      // data on p0; k03's log on p2.
      PartRepairTest.corruptPartOf(h.stores.get(0), "k00", 0, (3 * PART + 5 + 3) / 4);
      PartRepairTest.corruptPartOf(h.stores.get(1), "k00", 2, (3 * PART + 5 + 3) / 4);
      VerifyRepairTest.wipePrefix(h.stores.get(0), "d/k01/");
      h.stores.get(2).delete(Names.metadataObject("k03", "alice")).join();
      h.scheduler.runUntilIdle();

      long perHour = 3_600; // one request a second
      long egressPerHour = 36_000_000; // 10,000 bytes a second
      double dollarsPerHour = 0.036; // a hundredth of a cent a second
      Scrubber scrubber =
          store.scrubber(
              ScrubOptions.defaults()
                  .withRequestsPerHour(perHour)
                  .withEgressBytesPerHour(egressPerHour)
                  .withDollarsPerHour(dollarsPerHour)
                  .withPasses(1));
      assertThat(scrubber.status().state()).isEqualTo(ScrubStatus.State.NEW);
      Map<String, CloudStats> before = store.stats();
      long t0 = h.scheduler.nanoTime();
      rec.on = true;
      ScrubStatus end = h.run(scrubber.start());
      rec.on = false;
      double hours = (h.scheduler.nanoTime() - t0) / 3.6e12;
      Map<String, CloudStats> after = store.stats();

      assertThat(end.state()).isEqualTo(ScrubStatus.State.DONE);
      assertThat(end.keysChecked()).isEqualTo(8);
      assertThat(end.passesCompleted()).isEqualTo(1);
      assertThat(end.damageFound()).isEqualTo(4);
      assertThat(end.repaired()).isEqualTo(4);
      assertThat(end.repairFailed()).isZero();
      assertThat(rec.keysWith(ScrubEvent.Kind.DAMAGE_FOUND)).containsExactly("k00", "k01", "k03");
      assertThat(rec.keysWith(ScrubEvent.Kind.REPAIRED)).containsExactly("k00", "k01", "k03");
      assertThat(rec.keysWith(ScrubEvent.Kind.PASS_COMPLETED)).containsExactly("");
      assertThat(h.run(store.verifyAll())).allMatch(VerifyReport::isClean);
      for (int i = 0; i < 8; i++) {
        assertThat(h.run(store.read(key(i))).value()).isEqualTo(values.get(i));
      }

      // Within budget: what was spent fits the rate over the time taken, plus one request.
      Map<String, CloudStats> spent = new HashMap<>();
      after.forEach((id, s) -> spent.put(id, s.minus(before.get(id))));
      long requests = sum(spent, CloudStats::scrubRequests);
      long bytes = sum(spent, CloudStats::scrubBytesDown);
      assertThat(requests).isEqualTo(end.requests()).isEqualTo(sum(spent, CloudStats::requests));
      assertThat(bytes).isEqualTo(end.egressBytes()).isPositive();
      assertThat(requests).isLessThanOrEqualTo((long) (perHour * hours) + 1);
      assertThat(bytes).isLessThanOrEqualTo((long) (egressPerHour * hours) + 3 * PART);
      assertThat(end.dollars()).isPositive().isLessThanOrEqualTo(dollarsPerHour * hours + 0.001);
      assertThat(sum(spent, CloudStats::scrubFindings)).isEqualTo(4);
      assertThat(sum(spent, CloudStats::scrubRepairs)).isEqualTo(4);
      // The budget, not the clouds, set the pace: about one request a second.
      assertThat(hours * 3600).isGreaterThan(requests - 2);
    }
  }

  /**
   * With budget to spare, the scrub still sends one request at a time to each cloud: a value of 24
   * parts is checked part by part (ranged reads of the joined object, one part object at a time),
   * never many parts at once, and with a damaged part on each holder it is repaired in the pass.
   */
  @Test
  void oneRequestPerCloudAtATimeEvenWithBudgetToSpare() throws Exception {
    Harness h = harness();
    Recorder rec = new Recorder(h);
    try (RafeStore store = store(h, rec)) {
      byte[] v = PartRepairTest.random(24 * PART, 9);
      h.run(store.write("big", v));
      PartRepairTest.corruptPart(h.stores.get(0), 5, PART);
      PartRepairTest.corruptPart(h.stores.get(1), 17, PART);
      h.scheduler.runUntilIdle(); // the write's last log puts, so that only the scrub's are seen
      rec.on = true;
      ScrubStatus end =
          h.run(
              store
                  .scrubber(
                      ScrubOptions.defaults()
                          .withRequestsPerHour(1_000_000_000)
                          .withEgressBytesPerHour(Long.MAX_VALUE)
                          .withDollarsPerHour(1e9)
                          .withPasses(1))
                  .start());
      rec.on = false;
      assertThat(end.repaired()).isEqualTo(2);
      assertThat(h.run(store.verify("big")).isClean()).isTrue();
      assertThat(rec.spans.get("p0").size()).isGreaterThan(24);
      rec.spans.forEach(
          (cloud, spans) -> {
            spans.sort((a, b) -> Long.compare(a[0], b[0]));
            for (int i = 1; i < spans.size(); i++) {
              assertThat(spans.get(i)[0])
                  .as("request %d on %s starts after the one before it ended", i, cloud)
                  .isGreaterThanOrEqualTo(spans.get(i - 1)[1]);
            }
          });
    }
  }

  /**
   * A dry run over 12 keys, each missing its log on p3 (so each key checked reports damage), is
   * stopped after 5 keys; a new client with the same state file goes on with the 6th and checks
   * each of the others once, then a third run starts the next pass from the first key.
   */
  @Test
  void resumesAfterARestartWithoutCheckingAgainWhatItFinished(@TempDir Path dir) throws Exception {
    Harness h = harness();
    Path file = dir.resolve("state").resolve("scrub.state");
    List<String> keys = new ArrayList<>();
    try (RafeStore store = store(h, new Recorder(h))) {
      for (int i = 0; i < 12; i++) {
        keys.add(key(i));
        h.run(store.write(key(i), ("v" + i).getBytes(StandardCharsets.UTF_8)));
        h.stores.get(3).delete(Names.metadataObject(key(i), "alice")).join();
      }
    }
    ScrubOptions options =
        ScrubOptions.defaults().withDryRun(true).withStateFile(file).withPasses(1);

    Recorder first = new Recorder(h);
    try (RafeStore store = store(h, first)) {
      Scrubber s = store.scrubber(options);
      s.start();
      while (s.status().keysThisPass() < 5) {
        assertThat(h.scheduler.runNext()).as("the scrub goes on").isTrue();
      }
      ScrubStatus stopped = h.run(s.stop());
      assertThat(stopped.state()).isEqualTo(ScrubStatus.State.STOPPED);
      assertThat(stopped.cursor()).hasValue(key(4));
    }
    assertThat(first.keysWith(ScrubEvent.Kind.DAMAGE_FOUND)).isEqualTo(keys.subList(0, 5));
    assertThat(Files.exists(file)).isTrue();

    Recorder second = new Recorder(h);
    try (RafeStore store = store(h, second)) {
      ScrubStatus end = h.run(store.scrubber(options).start());
      assertThat(end.state()).isEqualTo(ScrubStatus.State.DONE);
      assertThat(end.keysChecked()).isEqualTo(12);
      assertThat(end.passesCompleted()).isEqualTo(1);
      assertThat(end.pass()).isEqualTo(2);
      assertThat(end.cursor()).isEmpty();
      assertThat(end.note()).isEmpty();
      assertThat(end.damageFound()).as("counted over both runs").isEqualTo(12);
    }
    List<String> rest = new ArrayList<>(keys.subList(5, 12));
    assertThat(second.keysWith(ScrubEvent.Kind.DAMAGE_FOUND)).isEqualTo(rest);
    assertThat(second.events.stream().filter(e -> e.kind() == ScrubEvent.Kind.DAMAGE_FOUND).count())
        .as("each key once")
        .isEqualTo(7);
    assertThat(second.keysWith(ScrubEvent.Kind.REPAIRED)).as("a dry run").isEmpty();

    Recorder third = new Recorder(h);
    try (RafeStore store = store(h, third)) {
      ScrubStatus end = h.run(store.scrubber(options).start());
      assertThat(end.keysChecked()).isEqualTo(24);
      assertThat(end.passesCompleted()).isEqualTo(2);
    }
    assertThat(third.keysWith(ScrubEvent.Kind.DAMAGE_FOUND)).isEqualTo(keys);
  }

  @Test
  void aCorruptStateFileIsReportedAndTheScrubStartsFromTheFirstKey(@TempDir Path dir)
      throws Exception {
    Harness h = harness();
    Path file = dir.resolve("scrub.state");
    ScrubOptions options = ScrubOptions.defaults().withStateFile(file).withPasses(1);
    try (RafeStore store = store(h, new Recorder(h))) {
      for (int i = 0; i < 4; i++) {
        h.run(store.write(key(i), ("v" + i).getBytes(StandardCharsets.UTF_8)));
      }
      Scrubber s = store.scrubber(options);
      s.start();
      while (s.status().keysThisPass() < 2) {
        assertThat(h.scheduler.runNext()).isTrue();
      }
      h.run(s.stop());
    }
    byte[] good = Files.readAllBytes(file);
    assertThat(ScrubState.parse(good).cursor).isEqualTo(key(1));

    List<byte[]> corrupt = new ArrayList<>();
    byte[] flipped = good.clone();
    flipped[good.length / 2] ^= 1;
    corrupt.add(flipped);
    corrupt.add(java.util.Arrays.copyOf(good, good.length / 2));
    corrupt.add(new byte[0]);
    corrupt.add("garbage\n".getBytes(StandardCharsets.UTF_8));
    for (byte[] bad : corrupt) {
      Files.write(file, bad);
      Recorder rec = new Recorder(h);
      try (RafeStore store = store(h, rec)) {
        ScrubStatus end = h.run(store.scrubber(options).start());
        assertThat(end.state()).isEqualTo(ScrubStatus.State.DONE);
        assertThat(end.note()).hasValueSatisfying(n -> assertThat(n).contains("corrupt"));
        assertThat(end.keysChecked()).as("from the first key").isEqualTo(4);
        assertThat(rec.keysWith(ScrubEvent.Kind.STATE_RESET)).containsExactly("");
      }
      assertThat(ScrubState.parse(Files.readAllBytes(file)).keysChecked).isEqualTo(4);
    }

    // A state file of another store (other clouds) is not resumed either.
    Files.write(file, good);
    Harness other = new Harness(1, 4, i -> new MemoryCloud("q" + i));
    try (RafeStore store = other.client(ProtocolMode.PAPER)) {
      ScrubStatus end = other.run(store.scrubber(options).start());
      assertThat(end.note()).hasValueSatisfying(n -> assertThat(n).contains("another store"));
    }
  }

  @Test
  void pricingAndOptionsAreValidated() {
    assertThatThrownBy(() -> new Pricing(-1, 0, 0, 0, 0)).hasMessageContaining("putsPer1000");
    assertThatThrownBy(() -> new Pricing(0, 0, 0, Double.NaN, 0))
        .hasMessageContaining("egressPerGB");
    assertThat(Pricing.DEFAULT.perGet()).isEqualTo(0.0004 / 1000);
    assertThatThrownBy(() -> ScrubOptions.defaults().withRequestsPerHour(0))
        .hasMessageContaining("requestsPerHour");
    assertThatThrownBy(() -> ScrubOptions.defaults().withDollarsPerHour(0))
        .hasMessageContaining("dollarsPerHour");
    assertThatThrownBy(() -> ScrubOptions.defaults().withPauseBetweenPasses(Duration.ofSeconds(-1)))
        .hasMessageContaining("pauseBetweenPasses");
    Harness h = harness();
    assertThatThrownBy(() -> h.builder(ProtocolMode.PAPER).pricing("nope", Pricing.FREE).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pricing: no cloud has id 'nope'");
  }
}
