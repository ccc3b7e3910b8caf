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
    return store(mode, wrapSecond, false);
  }

  /** Four in-memory clouds, the second wrapped; {@code encrypt}: the confidentiality option. */
  BlockingRafeStore store(
      ProtocolMode mode, UnaryOperator<CloudDriver> wrapSecond, boolean encrypt) {
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .mode(mode)
            .writer("alice", Harness.ALICE)
            .partSize(PART)
            .partsInFlight(2)
            .encryptValues(encrypt);
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

  /** Four in-memory clouds coded k = 2 (fragments on three), the second wrapped. */
  BlockingRafeStore codedStore(UnaryOperator<CloudDriver> wrapSecond, boolean encrypt) {
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .writer("alice", Harness.ALICE)
            .partSize(PART)
            .partsInFlight(2)
            .erasureCoding(2)
            .encryptValues(encrypt);
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

  @Test
  void erasureCodedValuesAboveThePartSizeAreCodedPartByPartAndReadByRangeAndStream()
      throws Exception {
    for (boolean encrypt : new boolean[] {false, true}) {
      stores.clear();
      BlockingRafeStore s = codedStore(c -> c, encrypt);
      byte[] v = text(5 * PART + 7);
      WriteReceipt r = s.write("k", v);
      // Six parts; each of the three holders stores its fragment of each part.
      assertThat(r.info().dataClouds()).hasSize(3);
      for (String holder : r.info().dataClouds()) {
        assertThat(dataObjects(stores.get(Integer.parseInt(holder.substring(1))))).isEqualTo(6);
      }
      assertThat(s.read("k", r.version(), 1000, 3000))
          .isEqualTo(java.util.Arrays.copyOfRange(v, 1000, 4000));
      try (InputStream in = s.openStream("k")) {
        assertThat(in.readAllBytes()).isEqualTo(v);
      }
      byte[] streamed = text(64 * PART + 3);
      CountingStream in = new CountingStream(new ByteArrayInputStream(streamed));
      WriteReceipt r2 = s.write("s", in, streamed.length);
      assertThat(in.count).isEqualTo(streamed.length + 0L);
      assertThat(r2.info().dataClouds()).hasSize(3);
      assertThat(s.read("s").value()).isEqualTo(streamed);
      assertThat(s.read("s", r2.version(), 30 * PART - 5, 10))
          .isEqualTo(java.util.Arrays.copyOfRange(streamed, 30 * PART - 5, 30 * PART + 5));
      try (InputStream stream = s.openStream("s")) {
        assertThat(stream.readAllBytes()).isEqualTo(streamed);
      }
      if (encrypt) {
        // No stored object holds a 16-byte window of the plaintext.
        for (MemoryCloud m : stores) {
          for (ObjectInfo o : m.list("").join()) {
            byte[] stored = m.get(o.key()).join();
            for (int at = 0; at + 16 <= streamed.length; at += 256) {
              assertThat(
                      ProtocolTest.indexOf(
                          stored, java.util.Arrays.copyOfRange(streamed, at, at + 16)))
                  .isEqualTo(-1);
            }
          }
        }
      }
    }
  }

  @Test
  void aCodedStreamKeepsAtMostTheWindowOfPartsInMemory() throws Exception {
    BlockingRafeStore s = codedStore(c -> c, false);
    byte[] v = PartsTest.random(64 * PART, 21);
    // Whenever part j is read from the stream, every holder already acknowledged parts up to j
    // less the window (partsInFlight = 2) and the one being produced: the producer waits for the
    // slowest upload, so at most about partsInFlight parts (and their fragments) are held.
    int[] worstLag = {0};
    InputStream watched =
        new java.io.FilterInputStream(new ByteArrayInputStream(v)) {
          long offset;

          @Override
          public int read(byte[] b, int off, int len) throws java.io.IOException {
            int part = (int) (offset / PART);
            int slowest = Integer.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
              slowest = Math.min(slowest, dataObjects(stores.get(i)));
            }
            worstLag[0] = Math.max(worstLag[0], part - slowest);
            int n = super.read(b, off, len);
            offset += Math.max(0, n);
            return n;
          }
        };
    s.write("k", watched, v.length);
    assertThat(worstLag[0]).isLessThanOrEqualTo(3);
    assertThat(s.read("k").value()).isEqualTo(v);
  }

  @Test
  void aCodedHolderFailingAfterPartsLeftTheWindowIsReplacedByRebuiltFragments() throws Exception {
    // p1 fails part 40; by then parts 0..37 have left the window, so the replacement (p3)
    // rebuilds its fragment of each from the other holders' fragments; the stream is read once.
    BlockingRafeStore s =
        codedStore(c -> new FailingPuts(c, k -> k.value().endsWith(".p40")), false);
    byte[] v = PartsTest.random(64 * PART, 22);
    CountingStream in = new CountingStream(new ByteArrayInputStream(v));
    WriteReceipt r = s.write("k", in, v.length);
    assertThat(in.count).isEqualTo(v.length + 0L);
    assertThat(r.info().dataClouds()).containsExactlyInAnyOrder("p0", "p2", "p3");
    assertThat(dataObjects(stores.get(3))).isEqualTo(64);
    assertThat(s.read("k").value()).isEqualTo(v);
    assertThat(s.verify("k").isClean()).isTrue();
  }

  @Test
  void aCorruptFragmentIsMaskedFoundByVerifyAndRebuiltByRepair() throws Exception {
    BlockingRafeStore s = codedStore(c -> c, false);
    byte[] v = PartsTest.random(4 * PART, 23);
    WriteReceipt r = s.write("k", v);
    MemoryCloud first = stores.get(Integer.parseInt(r.info().dataClouds().get(0).substring(1)));
    io.rafestore.spi.ObjectKey part2 = null;
    for (ObjectInfo o : first.list("d/").join()) {
      if (o.key().value().endsWith(".p2")) {
        part2 = o.key();
      }
    }
    byte[] bad = first.get(part2).join().clone();
    bad[3] ^= 1;
    first.put(part2, bad).join();
    assertThat(s.read("k").value()).isEqualTo(v);
    assertThat(s.read("k", r.version(), 2 * PART, 100))
        .isEqualTo(java.util.Arrays.copyOfRange(v, 2 * PART, 2 * PART + 100));
    io.rafestore.VerifyReport report = s.verify("k");
    assertThat(report.isClean()).isFalse();
    assertThat(report.findingsFor(first.id())).isNotEmpty();
    s.repair("k");
    assertThat(s.verify("k").isClean()).as("%s", s.verify("k")).isTrue();
    assertThat(first.get(part2).join()).isNotEqualTo(bad);
    // Two of three fragments of one part corrupt: that part cannot be read, the others can.
    MemoryCloud second = stores.get(Integer.parseInt(r.info().dataClouds().get(1).substring(1)));
    byte[] bad2 = second.get(part2).join().clone();
    bad2[3] ^= 1;
    second.put(part2, bad2).join();
    first.put(part2, bad).join();
    assertThatThrownBy(() -> s.read("k", r.version(), 2 * PART, 10))
        .isInstanceOf(io.rafestore.IntegrityException.class);
    assertThat(s.read("k", r.version(), 0, 2 * PART))
        .isEqualTo(java.util.Arrays.copyOf(v, 2 * PART));
  }

  /** A store with the confidentiality option whose second cloud is wrapped. */
  BlockingRafeStore sealedStore(UnaryOperator<CloudDriver> wrapSecond) {
    return store(ProtocolMode.PAPER, wrapSecond, true);
  }

  /** Text, so that a 16-byte window of it is unmistakable in a stored object. */
  static byte[] text(int bytes) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; sb.length() < bytes; i++) {
      sb.append("line ").append(i).append(": the vault code is 12-34-56\n");
    }
    return sb.substring(0, bytes).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  @Test
  void encryptedValuesAreSealedPartByPartAndReadByRangeAndStream() throws Exception {
    BlockingRafeStore s = sealedStore(c -> c);
    byte[] v = text(7 * PART + 300);
    byte[] streamed = text(20 * PART + 1);
    WriteReceipt r = s.write("k", v);
    assertThat(r.onlyFPlusOneDataClouds()).isTrue();
    WriteReceipt r2 = s.write("s", new ByteArrayInputStream(streamed), streamed.length);
    assertThat(r2.info().size()).isEqualTo(streamed.length);
    // 8 and 21 parts on each value's two data holders, each stored part 28 bytes longer. (On
    // these zero-latency clouds a holder may still be uploading when readM ends, so a third cloud
    // may get a writeDf copy; the holders are the ones the version names.)
    for (WriteReceipt w : List.of(r, r2)) {
      long parts = (w.info().size() + PART - 1) / PART;
      String object =
          io.rafestore.internal.util.Names.DATA_PREFIX
              + io.rafestore.internal.util.Names.encodeKey(w.info().key())
              + "/";
      for (String holder : w.info().dataClouds()) {
        MemoryCloud m = stores.get(Integer.parseInt(holder.substring(1)));
        int found = 0;
        for (ObjectInfo o : m.list(object).join()) {
          byte[] stored = m.get(o.key()).join();
          assertThat(stored.length).as(o.key().value()).isGreaterThan(28);
          assertThat(stored.length - 28L).as(o.key().value()).isLessThanOrEqualTo(PART);
          found++;
        }
        assertThat(found).as("parts of %s on %s", object, holder).isEqualTo(parts);
      }
    }
    // No stored object (data or metadata) holds a 16-byte window of either plaintext.
    for (MemoryCloud m : stores) {
      for (ObjectInfo o : m.list("").join()) {
        byte[] stored = m.get(o.key()).join();
        for (byte[] plain : List.of(v, streamed)) {
          for (int at = 0; at + 16 <= plain.length; at += 64) {
            assertThat(
                    ProtocolTest.indexOf(stored, java.util.Arrays.copyOfRange(plain, at, at + 16)))
                .as("plaintext at %d in %s on %s", at, o.key(), m.id())
                .isEqualTo(-1);
          }
        }
      }
    }
    assertThat(s.read("k").value()).isEqualTo(v);
    assertThat(s.read("k", r.version(), 1000, 3000))
        .isEqualTo(java.util.Arrays.copyOfRange(v, 1000, 4000));
    assertThat(s.read("s", r2.version(), 20 * PART - 5, 100))
        .isEqualTo(java.util.Arrays.copyOfRange(streamed, 20 * PART - 5, streamed.length));
    try (InputStream in = s.openStream("s")) {
      assertThat(in.readAllBytes()).isEqualTo(streamed);
    }
  }

  @Test
  void aSealedPartCorruptOnOneHolderIsMaskedAndOnEveryHolderIsAnIntegrityError() throws Exception {
    BlockingRafeStore s = sealedStore(c -> c);
    byte[] v = text(4 * PART);
    WriteReceipt r = s.write("k", v);
    MemoryCloud first = stores.get(Integer.parseInt(r.info().dataClouds().get(0).substring(1)));
    MemoryCloud second = stores.get(Integer.parseInt(r.info().dataClouds().get(1).substring(1)));
    String part2 = null;
    for (ObjectInfo o : first.list("d/").join()) {
      if (o.key().value().endsWith(".p2")) {
        part2 = o.key().value();
      }
    }
    assertThat(part2).isNotNull();
    io.rafestore.spi.ObjectKey key2 = io.rafestore.spi.ObjectKey.of(part2);
    byte[] good = first.get(key2).join();
    byte[] bad = good.clone();
    bad[40] ^= 1;
    first.put(key2, bad).join();
    assertThat(s.read("k").value()).isEqualTo(v);
    try (InputStream in = s.openStream("k")) {
      assertThat(in.readAllBytes()).isEqualTo(v);
    }
    second.put(key2, bad).join();
    assertThatThrownBy(() -> s.read("k", r.version(), 2 * PART, 10))
        .isInstanceOf(io.rafestore.IntegrityException.class);
    // The parts not touched still read.
    assertThat(s.read("k", r.version(), 0, 2 * PART))
        .isEqualTo(java.util.Arrays.copyOf(v, 2 * PART));
  }

  @Test
  void verifyFindsALostSealedPartAndRepairRestoresItFromTheOtherHolder() throws Exception {
    BlockingRafeStore s = sealedStore(c -> c);
    byte[] v = text(4 * PART + 9);
    WriteReceipt r = s.write("k", v);
    assertThat(s.verify("k").isClean()).isTrue();
    MemoryCloud first = stores.get(Integer.parseInt(r.info().dataClouds().get(0).substring(1)));
    for (ObjectInfo o : first.list("d/").join()) {
      if (o.key().value().endsWith(".p3")) {
        first.delete(o.key()).join();
      }
    }
    io.rafestore.VerifyReport report = s.verify("k");
    assertThat(report.isClean()).isFalse();
    assertThat(report.findingsFor(first.id())).isNotEmpty();
    s.repair("k");
    assertThat(s.verify("k").isClean()).as("%s", s.verify("k")).isTrue();
    assertThat(dataObjects(first)).isEqualTo(5);
    assertThat(s.read("k").value()).isEqualTo(v);
  }

  @Test
  void aSealedStreamReplacesAFailedHolderByCopyingSealedPartsFromAnother() throws Exception {
    BlockingRafeStore s = sealedStore(c -> new FailingPuts(c, k -> k.value().endsWith(".p40")));
    byte[] v = text(64 * PART);
    CountingStream in = new CountingStream(new ByteArrayInputStream(v));
    WriteReceipt r = s.write("k", in, v.length);
    assertThat(in.count).isEqualTo(v.length + 0L);
    assertThat(r.info().dataClouds()).containsExactly("p0", "p2");
    assertThat(dataObjects(stores.get(2))).isEqualTo(64);
    assertThat(s.read("k").value()).isEqualTo(v);
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
