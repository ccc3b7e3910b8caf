package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.WriteReceipt;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Data clouds are chosen by the latency model that every request updates: a cloud slowed tenfold
 * mid-run is demoted within a few writes and comes back after it recovers, with no restart.
 */
class SelectionTest {
  @Test
  void slowedCloudIsDemotedAndPromotedBack() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 50, 100, 200);
    RafeStore store = h.client(ProtocolMode.PAPER);
    byte[] v = "x".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < 5; i++) {
      assertThat(h.run(store.write("k", v)).info().dataClouds()).containsExactly("p0", "p1");
    }

    h.clouds.get(1).rtt(Duration.ofMillis(500)); // p1 ten times slower
    int demotedAfter = -1;
    for (int i = 1; i <= 20; i++) {
      WriteReceipt r = h.run(store.write("k", v));
      if (!r.dataCloudsContacted().contains("p1")) {
        demotedAfter = i;
        break;
      }
    }
    assertThat(demotedAfter).as("writes until p1 is no longer chosen").isBetween(1, 20);
    assertThat(h.run(store.write("k", v)).info().dataClouds()).containsExactly("p0", "p2");

    h.clouds.get(1).rtt(Duration.ofMillis(50)); // recovered
    int promotedAfter = -1;
    for (int i = 1; i <= 20; i++) {
      WriteReceipt r = h.run(store.write("k", v));
      if (r.info().dataClouds().equals(java.util.List.of("p0", "p1"))) {
        promotedAfter = i;
        break;
      }
    }
    // Metadata requests (readM, writeM) reach every cloud on every write, so the model keeps
    // measuring p1 even while it holds no data.
    assertThat(promotedAfter).as("writes until p1 is chosen again").isBetween(1, 20);
  }
}
