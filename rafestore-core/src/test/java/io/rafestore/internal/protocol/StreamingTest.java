package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.BlockingRafeStore;
import io.rafestore.CloudRole;
import io.rafestore.KeyNotFoundException;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The streaming API on in-memory clouds that answer at once (the caller's thread reads the stream
 * and runs the uploads). The 1 GB run under a 256 MB heap is {@link LargeStreamTest}.
 */
class StreamingTest {
  static final int PART = 1024;

  final List<MemoryCloud> stores = new ArrayList<>();

  BlockingRafeStore store(ProtocolMode mode, UnaryOperator<CloudDriver> wrapSecond) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(mode)
            .writer("alice", Harness.ALICE)
            .partSize(PART)
            .partsInFlight(2);
    for (int i = 0; i < 4; i++) {
      MemoryCloud m = new MemoryCloud("p" + i);
      stores.add(m);
      b.cloud(
          i == 1 ? wrapSecond.apply(m) : m,
          CloudRole.DATA_AND_METADATA,
          java.time.Duration.ofMillis(10L * (i + 1)));
    }
    return b.build().blocking();
  }

  static int dataObjects(MemoryCloud m) {
    int n = 0;
    for (ObjectInfo o : m.list("d/").join()) {
      n += o.key().value().contains(".p") ? 1 : 0;
    }
    return n;
  }

  @Test
  void streamRoundTripsThroughParts() throws Exception {
    BlockingRafeStore s = store(ProtocolMode.PAPER, c -> c);
    byte[] v = PartsTest.random(64 * PART + 3, 7);
    WriteReceipt r = s.write("k", new ByteArrayInputStream(v), v.length);
    assertThat(r.onlyFPlusOneDataClouds()).isTrue();
    // 65,539 bytes over 1 KiB parts: 65 parts.
    assertThat(dataObjects(stores.get(0))).isEqualTo(65);
    try (InputStream in = s.openStream("k")) {
      assertThat(in.readAllBytes()).isEqualTo(v);
    }
    try (InputStream in = s.openStream("k", r.version())) {
      assertThat(in.readNBytes(10)).isEqualTo(java.util.Arrays.copyOf(v, 10));
    }
    assertThat(s.read("k").value()).isEqualTo(v);
  }

  @Test
  void smallValuesStreamWhole() throws Exception {
    BlockingRafeStore s = store(ProtocolMode.FAST, c -> c);
    byte[] v = PartsTest.random(PART, 8);
    s.write("k", new ByteArrayInputStream(v), v.length);
    assertThat(dataObjects(stores.get(0))).isZero();
    try (InputStream in = s.openStream("k")) {
      assertThat(in.readAllBytes()).isEqualTo(v);
    }
  }

  @Test
  void aStreamOfTheWrongSizeIsRefusedAndNothingBecomesVisible() throws Exception {
    BlockingRafeStore s = store(ProtocolMode.PAPER, c -> c);
    byte[] v = PartsTest.random(10 * PART, 9);
    assertThatThrownBy(() -> s.write("k", new ByteArrayInputStream(v), v.length + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stream ended after 10240 bytes")
        .hasMessageContaining("10241");
    assertThatThrownBy(() -> s.write("k", new ByteArrayInputStream(v), v.length - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than the declared size of 10239");
    assertThatThrownBy(() -> s.read("k")).isInstanceOf(KeyNotFoundException.class);
    // An earlier version is kept when a later stream is refused.
    s.write("k", new ByteArrayInputStream(v), v.length);
    assertThatThrownBy(() -> s.write("k", new ByteArrayInputStream(v), 20 * PART))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(s.read("k").value()).isEqualTo(v);
  }

  @Test
  void encryptedAndCodedValuesStayWholeAndStillReadByRangeAndStream() throws Exception {
    for (int variant = 0; variant < 2; variant++) {
      stores.clear();
      RafeStore.Builder b =
          RafeStore.builder()
              .faultsTolerated(1)
              .writer("alice", Harness.ALICE)
              .partSize(PART)
              .partsInFlight(2);
      if (variant == 0) {
        b.encryptValues(true);
      } else {
        b.erasureCoding(2);
      }
      for (int i = 0; i < 4; i++) {
        MemoryCloud m = new MemoryCloud("p" + i);
        stores.add(m);
        b.cloud(m);
      }
      BlockingRafeStore s = b.build().blocking();
      byte[] v = PartsTest.random(5 * PART + 7, 11 + variant);
      WriteReceipt r = s.write("k", v);
      assertThat(dataObjects(stores.get(0))).as("variant %d stored whole", variant).isZero();
      assertThat(s.read("k", r.version(), 1000, 3000))
          .isEqualTo(java.util.Arrays.copyOfRange(v, 1000, 4000));
      try (InputStream in = s.openStream("k")) {
        assertThat(in.readAllBytes()).isEqualTo(v);
      }
      byte[] small = PartsTest.random(PART, 13);
      s.write("k", new ByteArrayInputStream(small), small.length);
      assertThat(s.read("k").value()).isEqualTo(small);
      assertThatThrownBy(() -> s.write("k", new ByteArrayInputStream(v), v.length))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("encryptValues or erasureCoding");
    }
  }

  @Test
  void depSkyModesRefuseStreamingWrites() {
    BlockingRafeStore s = store(ProtocolMode.DEPSKY_CA, c -> c);
    assertThatThrownBy(() -> s.write("k", new ByteArrayInputStream(new byte[5000]), 5000))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("DEPSKY_CA");
  }

  @Test
  void aHolderFailingAfterPartsLeftTheWindowIsReplacedByCopiesFromHolders() throws Exception {
    // p1 fails part 40; by then parts 0..37 have left the 2-part window, so the replacement
    // cloud copies them from p0 (checked against their hashes); the stream is read once.
    BlockingRafeStore s =
        store(ProtocolMode.PAPER, c -> new FailingPuts(c, k -> k.value().endsWith(".p40")));
    byte[] v = PartsTest.random(64 * PART, 10);
    CountingStream in = new CountingStream(new ByteArrayInputStream(v));
    WriteReceipt r = s.write("k", in, v.length);
    assertThat(in.count).isEqualTo(v.length + 0L);
    assertThat(r.info().dataClouds()).containsExactly("p0", "p2");
    assertThat(dataObjects(stores.get(2))).isEqualTo(64);
    assertThat(s.read("k").value()).isEqualTo(v);
  }

  /** Counts the bytes read, to show the stream is read once. */
  static final class CountingStream extends java.io.FilterInputStream {
    long count;

    CountingStream(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws java.io.IOException {
      int n = super.read(b, off, len);
      count += Math.max(0, n);
      return n;
    }

    @Override
    public int read() throws java.io.IOException {
      int c = super.read();
      count += c < 0 ? 0 : 1;
      return c;
    }
  }
}
