package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudFault;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The metadata parser on hostile input: only MalformedMetadataException, never an allocation of a
 * claimed size.
 */
class MetadataCodecTest {
  static final int MAX = 1 << 20;

  static MetadataLog sample(int entries) {
    List<LogEntry> list = new ArrayList<>();
    for (int i = 1; i <= entries; i++) {
      byte[] sha = new byte[32];
      sha[0] = (byte) i;
      list.add(LogEntry.replica(i, 1000L * i, "d/k/alice-" + i, 10L * i, sha, List.of("p0", "p1")));
    }
    List<byte[]> pieces = List.of(new byte[32], new byte[32], new byte[32]);
    list.add(
        new LogEntry(
            LogEntry.Kind.VALUE,
            entries + 1,
            5,
            "d/k/alice-ca",
            99,
            new byte[32],
            List.of("p0", "p1", "p2"),
            LogEntry.Coding.DEPSKY_CA,
            2,
            pieces,
            List.of(),
            List.of()));
    list.add(LogEntry.tombstone(entries + 2, 42));
    return new MetadataLog("k", "alice", 7, list);
  }

  /** The sample plus a sealed entry (confidentiality option), so format 2 is written. */
  static MetadataLog sealedSample(int entries) {
    MetadataLog plain = sample(entries);
    List<LogEntry> list = new ArrayList<>(plain.entries());
    byte[] h1 = new byte[32];
    h1[5] = 1;
    byte[] h2 = new byte[32];
    h2[5] = 2;
    list.add(
        LogEntry.replica(entries + 3, 77, "d/k/alice-sealed", 123, new byte[32], List.of("p1"))
            .sealed(List.of("p0", "p1"), List.of(h1, h2)));
    return new MetadataLog("k", "alice", 8, list);
  }

  @Test
  void sealedEntriesRoundTripInFormatTwoAndPlainLogsStayFormatOne() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    byte[] plain = codec.encode(sample(2), Harness.ALICE.getPrivate());
    assertThat(plain[4]).isEqualTo((byte) MetadataCodec.FORMAT);
    MetadataLog log = sealedSample(2);
    byte[] bytes = codec.encode(log, Harness.ALICE.getPrivate());
    assertThat(bytes[4]).isEqualTo((byte) MetadataCodec.FORMAT_SEALED);
    assertThat(codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), MAX)).isEqualTo(log);
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= 0x21;
      assertThatThrownBy(
              () -> new MetadataCodec().decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .as("flipping byte %d", i)
          .isInstanceOf(MalformedMetadataException.class);
    }
  }

  @Test
  void envelopesCarryPerCloudSharesAndRejectHostileBytes() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    byte[] signed = codec.encode(sealedSample(1), Harness.ALICE.getPrivate());
    java.util.TreeMap<Long, byte[]> shares = new java.util.TreeMap<>();
    shares.put(4L, new byte[] {1, 2, 3});
    byte[] env = MetadataCodec.envelope(signed, shares);
    MetadataCodec.Envelope back =
        codec.decodeEnvelope(env, "k", "alice", Harness.ALICE.getPublic(), MAX);
    assertThat(back.log()).isEqualTo(sealedSample(1));
    assertThat(back.shares()).containsOnlyKeys(4L);
    assertThat(back.shares().get(4L)).containsExactly(1, 2, 3);
    // A plain signed log is read too, with no shares.
    assertThat(codec.decodeEnvelope(signed, "k", "alice", Harness.ALICE.getPublic(), MAX).shares())
        .isEmpty();
    for (int n = 0; n < env.length; n++) {
      byte[] cut = Arrays.copyOf(env, n);
      assertThatThrownBy(
              () ->
                  new MetadataCodec()
                      .decodeEnvelope(cut, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .isInstanceOf(MalformedMetadataException.class);
    }
    // A claimed log length of 4 GiB is refused before any allocation.
    byte[] huge = env.clone();
    huge[5] = (byte) 0xFF;
    huge[6] = (byte) 0xFF;
    huge[7] = (byte) 0xFF;
    huge[8] = (byte) 0xFF;
    assertThatThrownBy(
            () -> codec.decodeEnvelope(huge, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .hasMessageContaining("exceeds");
  }

  @Test
  void roundTrip() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    MetadataLog log = sample(5);
    byte[] bytes = codec.encode(log, Harness.ALICE.getPrivate());
    assertThat(codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), MAX)).isEqualTo(log);
    // Deterministic signatures: identical bytes every time, so clouds agree byte for byte.
    assertThat(codec.encode(log, Harness.ALICE.getPrivate())).isEqualTo(bytes);
  }

  @Test
  void everySingleByteChangeIsRejected() {
    byte[] bytes = new MetadataCodec().encode(sample(2), Harness.ALICE.getPrivate());
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= 0x5A;
      MetadataCodec fresh = new MetadataCodec();
      assertThatThrownBy(() -> fresh.decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .as("flipping byte %d", i)
          .isInstanceOf(MalformedMetadataException.class);
    }
  }

  @Test
  void everyTruncationIsRejected() {
    byte[] bytes = new MetadataCodec().encode(sample(2), Harness.ALICE.getPrivate());
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = Arrays.copyOf(bytes, n);
      assertThatThrownBy(
              () -> new MetadataCodec().decode(cut, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .isInstanceOf(MalformedMetadataException.class);
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(
            () -> new MetadataCodec().decode(longer, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .hasMessageContaining("trailing");
  }

  @Test
  void wrongKeyWriterOrSignerIsRejected() {
    MetadataCodec codec = new MetadataCodec();
    byte[] bytes = codec.encode(sample(1), Harness.ALICE.getPrivate());
    assertThatThrownBy(() -> codec.decode(bytes, "other", "alice", Harness.ALICE.getPublic(), MAX))
        .hasMessageContaining("for key 'k', not 'other'");
    assertThatThrownBy(() -> codec.decode(bytes, "k", "bob", Harness.ALICE.getPublic(), MAX))
        .hasMessageContaining("by writer 'alice', not 'bob'");
    byte[] forged = codec.encode(sample(1), Harness.MALLORY.getPrivate());
    assertThatThrownBy(
            () -> new MetadataCodec().decode(forged, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOfSatisfying(
            MalformedMetadataException.class,
            e -> assertThat(e.kind()).isEqualTo(CloudFault.Kind.BAD_SIGNATURE));
  }

  @Test
  void hugeClaimedCountsAndOversizedObjectsAreRefusedWithoutAllocating() {
    // A header that claims 2^32-1 entries in a few bytes.
    ByteBuffer b = ByteBuffer.allocate(64);
    b.put(MetadataCodec.MAGIC)
        .put((byte) 1)
        .putShort((short) 1)
        .put((byte) 'k')
        .put((byte) 1)
        .put((byte) 'a');
    b.putLong(1).putInt(-1);
    byte[] claim = Arrays.copyOf(b.array(), b.position());
    assertThatThrownBy(
            () -> new MetadataCodec().decode(claim, "k", "a", Harness.ALICE.getPublic(), MAX))
        .hasMessageContaining("entry count 4294967295 exceeds");
    byte[] big = new byte[MAX + 1];
    assertThatThrownBy(
            () -> new MetadataCodec().decode(big, "k", "a", Harness.ALICE.getPublic(), MAX))
        .hasMessageContaining("exceeds " + MAX);
  }

  @Test
  void randomGarbageOnlyEverGivesMalformed() {
    Random r = new Random(7);
    byte[] valid = new MetadataCodec().encode(sample(3), Harness.ALICE.getPrivate());
    for (int i = 0; i < 5000; i++) {
      byte[] input;
      if (i % 2 == 0) {
        input = new byte[r.nextInt(400)];
        r.nextBytes(input);
        if (input.length > 5 && r.nextBoolean()) {
          System.arraycopy(MetadataCodec.MAGIC, 0, input, 0, 4);
          input[4] = 1;
        }
      } else {
        input = valid.clone();
        for (int k = 0; k < 1 + r.nextInt(4); k++) {
          input[r.nextInt(input.length)] ^= (byte) (1 + r.nextInt(255));
        }
      }
      byte[] in = input;
      assertThatThrownBy(
              () -> new MetadataCodec().decode(in, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .isInstanceOf(MalformedMetadataException.class);
    }
  }
}
