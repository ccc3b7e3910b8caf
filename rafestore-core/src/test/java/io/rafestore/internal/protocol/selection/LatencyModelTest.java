package io.rafestore.internal.protocol.selection;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.internal.protocol.config.Settings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The latency model alone, on virtual time: EWMA, percentiles, size awareness, decay. */
class LatencyModelTest {
  final VirtualScheduler time = new VirtualScheduler();

  LatencyModel model(long... hintsMillis) {
    List<Settings.CloudSetting> clouds = new java.util.ArrayList<>();
    for (int i = 0; i < hintsMillis.length; i++) {
      clouds.add(
          new Settings.CloudSetting(
              new MemoryCloud("p" + i),
              CloudRole.DATA_AND_METADATA,
              Duration.ofMillis(hintsMillis[i])));
    }
    return new LatencyModel(time, clouds);
  }

  static long ms(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }

  @Test
  void ewmaMovesByAlphaPerSample() {
    LatencyModel m = model(10);
    m.record("p0", 10, ms(100)); // the first sample replaces the hint
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(100));
    m.record("p0", 10, ms(200)); // 0.7 * 100 + 0.3 * 200
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(130));
  }

  @Test
  void percentilesComeFromTheRecentWindow() {
    LatencyModel m = model(10);
    for (int i = 1; i <= 10; i++) {
      m.record("p0", 16, ms(i * 10L));
    }
    LatencyModel.Snapshot s = m.snapshot("p0");
    assertThat(s.rttMedian()).isEqualTo(Duration.ofMillis(50));
    assertThat(s.rttP90()).isEqualTo(Duration.ofMillis(90));
    // Only the last WINDOW samples count: old outliers leave the window.
    for (int i = 0; i < LatencyModel.WINDOW; i++) {
      m.record("p0", 16, ms(7));
    }
    assertThat(m.snapshot("p0").rttP90()).isEqualTo(Duration.ofMillis(7));
  }

  @Test
  void orderDependsOnSize() {
    // p0: near but thin (5 ms, 1 MB/s); p1: far but fat (100 ms, 100 MB/s).
    LatencyModel m = model(5, 100);
    m.record("p0", 16, ms(5));
    m.record("p1", 16, ms(100));
    m.record("p0", 1_000_000, ms(5 + 1000));
    m.record("p1", 1_000_000, ms(100 + 10));
    assertThat(m.fastestFirst(List.of("p0", "p1"), 1024)).containsExactly("p0", "p1");
    assertThat(m.fastestFirst(List.of("p0", "p1"), 4_000_000)).containsExactly("p1", "p0");
    // Predicted completion = RTT + size / bandwidth.
    assertThat(m.predict("p0", 2_000_000)).isEqualTo(Duration.ofMillis(2005));
    assertThat(m.snapshot("p0").bytesPerSecond()).isEqualTo(1e6);
  }

  @Test
  void staleEstimatesDriftBackToThePrior() {
    LatencyModel m = model(50);
    m.record("p0", 16, ms(500));
    m.record("p0", 1 << 20, ms(500) + 1_000_000_000L); // 1 MiB/s
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(500));
    time.advance(LatencyModel.STALE_AFTER); // still trusted
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(500));
    time.advance(LatencyModel.HALF_LIFE); // half way back to the 50 ms hint
    assertThat(m.predict("p0", 0)).isEqualTo(Duration.ofMillis(275));
    double halfBw = (m.snapshot("p0").bytesPerSecond());
    assertThat(halfBw)
        .isCloseTo(
            ((1 << 20) + LatencyModel.DEFAULT_BYTES_PER_NANO * 1e9) / 2,
            org.assertj.core.data.Offset.offset(1.0));
    time.advance(LatencyModel.HALF_LIFE.multipliedBy(20)); // forgotten
    assertThat(m.predict("p0", 0).toMillis()).isEqualTo(50);
    // A fresh sample is trusted at once again (blended with the decayed value).
    m.record("p0", 16, ms(500));
    assertThat(m.predict("p0", 0).toMillis()).isEqualTo(185);
  }
}
