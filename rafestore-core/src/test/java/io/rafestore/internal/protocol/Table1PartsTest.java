package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudStats;
import io.rafestore.ProbeOptions;
import io.rafestore.ProbeReport;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.WriteReceipt;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The paper's Table 3, Configuration 1, fixed: with Table 1's RTTs and bandwidths of 100 Mbit/s
 * (the local p0) and 2 Mbit/s (the three public clouds), the paper's writes of 256 KB and more
 * contacted 2f+1 data clouds every time (0 of 60). After a probe teaches the model the bandwidths,
 * readM is started late enough that it ends after the slowest writeDo upload, and every write from
 * 1 KB to 16 MB contacts only f+1 data clouds, in both modes, counted with the per-cloud
 * accounting.
 */
class Table1PartsTest {
  static final long[] SIZES = {
    1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20
  };

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void configurationOneContactsOnlyFPlusOneDataCloudsAtEverySize(ProtocolMode mode)
      throws Exception {
    Harness h = new Harness(1, 4).rtts(ProtocolTest.TABLE1);
    h.clouds.get(0).bandwidth(100_000_000);
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).bandwidth(2_000_000);
    }
    RafeStore store = ProtocolTest.config1(h, mode);

    ProbeReport probe = h.run(store.probe(new ProbeOptions(10, 1 << 20, 3, 16 << 20)));
    ProbeReport.CloudProbe p1 = probe.clouds().get(1);
    assertThat(p1.rttMedian().toMillis()).isEqualTo(315);
    assertThat(p1.bytesPerSecond()).isCloseTo(250_000, Offset.offset(2_500.0));
    assertThat(probe.clouds().get(0).bytesPerSecond()).isCloseTo(12_500_000, Offset.offset(1e5));
    assertThat(probe.recommended().writeDo()).containsExactly("p0", "p1");
    assertThat(probe.recommended().metadataOnly()).containsExactly("p3");
    // The paper's finding, now predicted: Condition 1 holds up to 64 KB and fails from 256 KB.
    assertThat(probe.conditionSmall().holds()).isTrue();
    assertThat(store.conditionOne(64 << 10).holds()).isTrue();
    assertThat(store.conditionOne(256 << 10).holds()).isFalse();
    assertThat(probe.conditionForSize().holds()).isFalse();
    assertThat(probe.conditionForSize().hhCloud()).isEqualTo("p1");
    for (var m : h.stores) {
      assertThat(h.run(m.list(ProbeOptions.PREFIX))).as("probe objects deleted").isEmpty();
    }

    Map<String, CloudStats> before = store.stats();
    int writes = 0;
    for (long size : SIZES) {
      int rounds = size >= (4 << 20) ? 1 : 3;
      for (int i = 0; i < rounds; i++) {
        byte[] v = PartsTest.random((int) size, size + i);
        WriteReceipt r = h.run(store.write("feed", v));
        writes++;
        assertThat(r.dataCloudsContacted()).as("%d bytes", size).containsExactly("p0", "p1");
        assertThat(r.writeDfUsed()).as("%d bytes", size).isFalse();
        if (i == 0 && size == SIZES[SIZES.length - 1]) {
          assertThat(h.run(store.read("feed")).value()).isEqualTo(v);
        }
      }
    }
    Map<String, CloudStats> after = store.stats();
    // p2 (writeDf's extra) and p3 (metadata only) got one put per write: the metadata log.
    for (String meta : new String[] {"p2", "p3"}) {
      assertThat(after.get(meta).puts() - before.get(meta).puts()).isEqualTo(writes);
      assertThat(after.get(meta).bytesUp() - before.get(meta).bytesUp()).isLessThan(1 << 20);
    }
  }

  /**
   * The control: without a probe the model assumes 100 Mbit/s everywhere, readM is timed for that,
   * and a 1 MB write hits the paper's problem (p1 still uploading when readM ends: writeDf). The
   * timing above is what the measured bandwidths buy.
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER"})
  void withoutMeasuredBandwidthsALargeWriteNeedsWriteDf(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(ProtocolTest.TABLE1);
    h.clouds.get(0).bandwidth(100_000_000);
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).bandwidth(2_000_000);
    }
    RafeStore store = ProtocolTest.config1(h, mode);
    WriteReceipt r = h.run(store.write("feed", PartsTest.random(1 << 20, 1)));
    assertThat(r.writeDfUsed()).isTrue();
    assertThat(r.dataCloudsContacted()).containsExactly("p0", "p1", "p2");
  }
}
