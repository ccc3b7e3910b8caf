package io.rafestore.internal.protocol.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.ProbeOptions;
import io.rafestore.ProbeReport;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.protocol.TestCloud;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The probe on virtual time: measurements, errors, the report, the live model it feeds. */
class ProbeTest {
  @Test
  void reportsEachCloudAndFeedsTheModel() throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 315, 750, 1200);
    h.clouds.get(2).behave(TestCloud.Behaviour.CRASH);
    RafeStore store = h.client(ProtocolMode.PAPER);
    ProbeReport r = h.run(store.probe(new ProbeOptions(10, 64 * 1024, 2, 64 * 1024)));
    assertThat(r.clouds())
        .extracting(ProbeReport.CloudProbe::cloud)
        .containsExactly("p0", "p1", "p2", "p3");
    ProbeReport.CloudProbe p0 = r.clouds().get(0);
    assertThat(p0.rttMedian().toMillis()).isEqualTo(5);
    assertThat(p0.rttP90().toMillis()).isEqualTo(5);
    assertThat(p0.succeeded()).isEqualTo(12);
    assertThat(p0.errors()).isEmpty();
    ProbeReport.CloudProbe p2 = r.clouds().get(2);
    assertThat(p2.succeeded()).isZero();
    // 10 small puts, 2 large puts and 12 deletes failed, each named.
    assertThat(p2.errors()).hasSize(24).anyMatch(e -> e.startsWith("put probe/"));
    assertThat(r.recommended().writeDo()).containsExactly("p0", "p1");
    assertThat(r.conditionSmall().holds()).isTrue();
    assertThat(r.toString())
        .contains("p1")
        .contains("315 ms")
        .contains("recommended: data [p0, p1]")
        .contains("Condition 1");
  }

  /**
   * A cloud that stops answering puts, and one so slow that its rounds outlast half the operation
   * timeout: the probe still reports every cloud, well within the operation timeout, naming why
   * each was cut short. Before, the probe waited on the hung cloud until the operation timeout and
   * reported nothing.
   */
  @Test
  void aHungOrVerySlowCloudIsCutShortAndTheOthersStillReported() throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 315, 750, 1200);
    Duration timeout = Duration.ofSeconds(40);
    h.clouds.get(3).faulty().affecting(io.rafestore.clouds.FaultyCloud.Operation.PUT).hang();
    h.clouds.get(2).faulty().slowDown(Duration.ofSeconds(3));
    try (RafeStore store = h.builder(ProtocolMode.PAPER).operationTimeout(timeout).build()) {
      long start = h.scheduler.nanoTime();
      ProbeReport r = h.run(store.probe(new ProbeOptions(10, 64 * 1024, 2, 64 * 1024)));
      Duration took = Duration.ofNanos(h.scheduler.nanoTime() - start);
      assertThat(took).isLessThanOrEqualTo(timeout.multipliedBy(3).dividedBy(4));
      assertThat(r.clouds().get(0).succeeded()).isEqualTo(12);
      assertThat(r.clouds().get(1).succeeded()).isEqualTo(12);
      ProbeReport.CloudProbe slow = r.clouds().get(2);
      // 3.75 s a put: five rounds fit in 20 s, and the sixth starts after.
      assertThat(slow.succeeded()).as(slow.toString()).isBetween(5, 6);
      assertThat(slow.errors())
          .as(slow.toString())
          .singleElement()
          .asString()
          .startsWith("rounds stopped after half the operation timeout (PT20S)");
      ProbeReport.CloudProbe hung = r.clouds().get(3);
      assertThat(hung.succeeded()).isZero();
      assertThat(hung.errors())
          .as(hung.toString())
          .anyMatch(e -> e.startsWith("put probe/") && e.contains("did not answer within PT5S"))
          .contains("rounds stopped: the cloud did not answer a put in time");
      // The one put sent, and its delete, each waited once: no further rounds were sent to it.
      assertThat(hung.errors()).hasSize(2);
    }
  }

  @Test
  void optionsAreValidated() {
    assertThatThrownBy(() -> new ProbeOptions(0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rttRounds");
    assertThatThrownBy(() -> new ProbeOptions(10, 100, 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("payloadBytes");
    assertThatThrownBy(() -> new ProbeOptions(10, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("valueSize");
  }
}
