package io.rafestore.internal.protocol.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudFault;
import io.rafestore.internal.protocol.Harness;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The metadata parser on hostile input: only MalformedMetadataException, never an allocation of a
 * claimed size. Public for its sample logs, which ParserFuzzTest mutates.
 */
public class MetadataCodecTest {
  static final int MAX = 1 << 20;

  public static MetadataLog sample(int entries) {
    List<LogEntry> list = new ArrayList<>();
    for (int i = 1; i <= entries; i++) {
      byte[] sha = new byte[32];
      sha[0] = (byte) i;
      list.add(LogEntry.replica(i, 1000L * i, "d/k/alice-" + i, 10L * i, sha, List.of("p0", "p1")));
    }
    List<byte[]> pieces = List.of(new byte[32], new byte[32], new byte[32]);
    list.add(
        LogEntry.coded(
            entries + 1,
            5,
            "d/k/alice-ca",
            99,
            new byte[32],
            List.of("p0", "p1", "p2"),
            LogEntry.Coding.DEPSKY_CA,
            2,
            pieces));
    byte[] p0 = new byte[32];
    byte[] p1 = new byte[32];
    byte[] p2 = new byte[32];
    p1[31] = 1;
    p2[31] = 2;
    list.add(
        LogEntry.parts(
            entries + 2,
            6,
            "d/k/alice-parts",
            21,
            new byte[32],
            List.of("p1", "p0"),
            List.of(p0, p1, p2)));
    list.add(LogEntry.tombstone(entries + 3, 42));
    return new MetadataLog("k", "alice", 7, 0, list);
  }

  /** The sample plus a sealed entry (confidentiality option), so format 2 is written. */
  public static MetadataLog sealedSample(int entries) {
    MetadataLog plain = sample(entries);
    List<LogEntry> list = new ArrayList<>(plain.entries());
    byte[] h1 = new byte[32];
    h1[5] = 1;
    byte[] h2 = new byte[32];
    h2[5] = 2;
    list.add(
        LogEntry.replica(entries + 4, 77, "d/k/alice-sealed", 123, new byte[32], List.of("p1"))
            .sealed(List.of("p0", "p1"), List.of(h1, h2)));
    return new MetadataLog("k", "alice", 8, 0, list);
  }

  static final long INC_A = 0x1234_5678_9abc_def0L;
  static final long INC_B = -0x0fed_cba9_8765_4321L;

  /**
   * A log of incarnation B holding a legacy entry (incarnation 0), two entries of one timestamp
   * from incarnations B and A (a fork merged by B; B sorts first, being lower), a tombstone and a
   * watermark through a version of incarnation A; sealed or not.
   */
  public static MetadataLog incarnationSample(boolean sealed) {
    byte[] h = new byte[32];
    h[3] = 7;
    List<LogEntry> list = new ArrayList<>();
    list.add(LogEntry.replica(1, 10, "d/k/alice-1", 5, h, List.of("p0", "p1")));
    list.add(
        LogEntry.replica(2, 20, "d/k/alice-2b", 6, h, List.of("p0", "p1")).withIncarnation(INC_B));
    LogEntry a = LogEntry.replica(2, 21, "d/k/alice-2a", 7, h, List.of("p1", "p2"));
    if (sealed) {
      a = a.sealed(List.of("p0", "p1"), List.of(h, h));
    }
    list.add(a.withIncarnation(INC_A));
    list.add(LogEntry.tombstone(3, 30).withIncarnation(INC_B));
    list.add(
        LogEntry.collected(4, 40, new io.rafestore.Version(2, "alice", INC_A))
            .withIncarnation(INC_B));
    return new MetadataLog("k", "alice", 9, INC_B, list);
  }

  /**
   * A log of incarnation A with an inline value, a sealed inline value, a packed value (sealed or
   * not) and a replica: the new codings 16 and 17 beside an old one, for the codec and fuzz tests.
   */
  public static MetadataLog inlineSample(boolean sealed) {
    byte[] value = "an inline value".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] h = io.rafestore.internal.codec.Sha256.hash(value);
    byte[] s1 = new byte[32];
    s1[1] = 1;
    byte[] s2 = new byte[32];
    s2[1] = 2;
    byte[] sealedBytes = new byte[value.length + (int) LogEntry.SEALED_PART_OVERHEAD];
    Arrays.fill(sealedBytes, (byte) 0x5C);
    List<LogEntry> list = new ArrayList<>();
    list.add(LogEntry.replica(1, 10, "d/k/alice-1", 5, h, List.of("p0", "p1")));
    LogEntry packedFrom =
        sealed
            ? LogEntry.inline(
                2,
                20,
                "d/k/alice-2",
                value.length,
                h,
                sealedBytes,
                List.of("p0", "p1"),
                List.of(s1, s2))
            : LogEntry.inline(2, 20, "d/k/alice-2", value.length, h, value, List.of(), List.of());
    list.add(
        packedFrom.packed(new LogEntry.Pack("d/k/alice-pack", 100, s2, 7), List.of("p2", "p0")));
    list.add(LogEntry.inline(3, 30, "d/k/alice-3", value.length, h, value, List.of(), List.of()));
    if (sealed) {
      list.add(
          LogEntry.inline(
              4,
              40,
              "d/k/alice-4",
              value.length,
              h,
              sealedBytes,
              List.of("p0", "p1"),
              List.of(s1, s2)));
    }
    List<LogEntry> stamped = new ArrayList<>();
    for (LogEntry e : list) {
      stamped.add(e.withIncarnation(INC_A));
    }
    return new MetadataLog("k", "alice", 3, INC_A, stamped);
  }

  @Test
  void inlineAndPackedEntriesRoundTripAndEveryFlipAndCutIsRefused() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    for (boolean sealed : new boolean[] {false, true}) {
      MetadataLog log = inlineSample(sealed);
      byte[] bytes = codec.encode(log, Harness.ALICE.getPrivate());
      MetadataLog back = codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), MAX);
      assertThat(back).isEqualTo(log);
      assertThat(back.entries().get(1).coding()).isEqualTo(LogEntry.Coding.PACKED);
      assertThat(back.entries().get(1).pack().offset()).isEqualTo(7);
      assertThat(back.entries().get(2).inline()).isEqualTo(log.entries().get(2).inline());
      // Canonical: re-encoding gives the same bytes.
      assertThat(codec.encode(back, Harness.ALICE.getPrivate())).isEqualTo(bytes);
      for (int i = 0; i < bytes.length; i++) {
        byte[] bad = bytes.clone();
        bad[i] ^= 0x21;
        assertThatThrownBy(
                () -> new MetadataCodec().decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
            .as("flipping byte %d", i)
            .isInstanceOf(MalformedMetadataException.class);
      }
      for (int n = 0; n < bytes.length; n++) {
        byte[] cut = Arrays.copyOf(bytes, n);
        assertThatThrownBy(
                () -> new MetadataCodec().decode(cut, "k", "alice", Harness.ALICE.getPublic(), MAX))
            .as("cut to %d bytes", n)
            .isInstanceOf(MalformedMetadataException.class);
      }
    }
  }

  @Test
  void theNewCodingsExistOnlyInLogsWithIncarnationsAndInlineEntriesHoldNoHolders() {
    byte[] value = new byte[] {1, 2, 3};
    byte[] h = io.rafestore.internal.codec.Sha256.hash(value);
    LogEntry inline = LogEntry.inline(1, 1, "d/k/a-1", 3, h, value, List.of(), List.of());
    assertThatThrownBy(
            () ->
                new MetadataCodec()
                    .encode(
                        new MetadataLog("k", "alice", 1, 0, List.of(inline)),
                        Harness.ALICE.getPrivate()))
        .isInstanceOf(IllegalArgumentException.class);
    // The stored length must be the signed size (plus the seal's overhead if sealed).
    assertThatThrownBy(() -> LogEntry.inline(1, 1, "d/k/a-1", 4, h, value, List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    // A pack must hold the value's bytes at its offset.
    assertThatThrownBy(() -> inline.packed(new LogEntry.Pack("d/k/p", 4, h, 2), List.of("p0")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> inline.packed(new LogEntry.Pack("d/k/p", 9, h, 0), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    LogEntry packed = inline.packed(new LogEntry.Pack("d/k/p", 9, h, 6), List.of("p0"));
    assertThat(packed.packs(inline)).isTrue();
    assertThat(packed.version("alice")).isEqualTo(inline.version("alice"));
    assertThat(packed.dataObjects()).containsExactly("d/k/p");
    assertThat(inline.dataObjects()).isEmpty();
  }

  @Test
  void aHugeClaimedInlineLengthIsRefusedWithoutAllocating() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    MetadataLog log = inlineSample(false);
    byte[] bytes = codec.encode(log, Harness.ALICE.getPrivate());
    byte[] value = log.entries().get(2).inline();
    // The u32 length sits just before the inline bytes of entry 2: claim 2^31 - 1 bytes.
    int at = indexOf(bytes, value) - 4;
    byte[] bad = bytes.clone();
    ByteBuffer.wrap(bad, at, 4).putInt(Integer.MAX_VALUE);
    assertThatThrownBy(() -> codec.decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("inline length");
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new IllegalArgumentException("not found");
  }

  @Test
  void incarnationLogsRoundTripInFormatsThreeAndFourAndEveryFlipIsRefused() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    for (boolean sealed : new boolean[] {false, true}) {
      MetadataLog log = incarnationSample(sealed);
      byte[] bytes = codec.encode(log, Harness.ALICE.getPrivate());
      assertThat(bytes[4])
          .isEqualTo(
              (byte)
                  (sealed
                      ? MetadataCodec.FORMAT_SEALED_INCARNATIONS
                      : MetadataCodec.FORMAT_INCARNATIONS));
      MetadataLog back = codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), MAX);
      assertThat(back).isEqualTo(log);
      assertThat(back.incarnation()).isEqualTo(INC_B);
      assertThat(back.entries().get(2).version("alice"))
          .isEqualTo(new io.rafestore.Version(2, "alice", INC_A));
      assertThat(back.entries().get(4).collectedThrough())
          .isEqualTo(new io.rafestore.Version(2, "alice", INC_A));
      for (int i = 0; i < bytes.length; i++) {
        byte[] bad = bytes.clone();
        bad[i] ^= 0x21;
        assertThatThrownBy(
                () -> new MetadataCodec().decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
            .as("flipping byte %d", i)
            .isInstanceOf(MalformedMetadataException.class);
      }
    }
  }

  @Test
  void aLogOfIncarnationZeroKeepsTheOldFormatAndCannotCarryLaterIncarnations() {
    MetadataCodec codec = new MetadataCodec();
    List<LogEntry> list = List.of(LogEntry.tombstone(1, 1).withIncarnation(INC_A));
    assertThatThrownBy(
            () ->
                codec.encode(new MetadataLog("k", "alice", 1, 0, list), Harness.ALICE.getPrivate()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("incarnation 0");
  }

  @Test
  void entriesOfOneTimestampMustBeOrderedByIncarnation() {
    List<LogEntry> list =
        List.of(
            LogEntry.tombstone(2, 1).withIncarnation(INC_A),
            LogEntry.tombstone(2, 1).withIncarnation(INC_B));
    // INC_B < INC_A: out of order.
    assertThatThrownBy(() -> new MetadataLog("k", "alice", 1, INC_A, list))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("increasing");
  }

  @Test
  void envelopeSharesAreNamedByTimestampAndIncarnation() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    byte[] signed = codec.encode(incarnationSample(true), Harness.ALICE.getPrivate());
    java.util.TreeMap<LogEntry.Id, byte[]> shares = new java.util.TreeMap<>();
    shares.put(new LogEntry.Id(2, INC_A), new byte[] {1});
    shares.put(new LogEntry.Id(2, INC_B), new byte[] {2});
    byte[] env = MetadataCodec.envelope(signed, shares);
    assertThat(env[4]).isEqualTo((byte) MetadataCodec.ENVELOPE_FORMAT_INCARNATIONS);
    MetadataCodec.Envelope back =
        codec.decodeEnvelope(env, "k", "alice", Harness.ALICE.getPublic(), MAX);
    assertThat(back.shares().get(new LogEntry.Id(2, INC_A))).containsExactly(1);
    assertThat(back.shares().get(new LogEntry.Id(2, INC_B))).containsExactly(2);
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
    java.util.TreeMap<LogEntry.Id, byte[]> shares = new java.util.TreeMap<>();
    shares.put(new LogEntry.Id(4, 0), new byte[] {1, 2, 3});
    byte[] env = MetadataCodec.envelope(signed, shares);
    MetadataCodec.Envelope back =
        codec.decodeEnvelope(env, "k", "alice", Harness.ALICE.getPublic(), MAX);
    assertThat(back.log()).isEqualTo(sealedSample(1));
    assertThat(back.shares()).containsOnlyKeys(new LogEntry.Id(4, 0));
    assertThat(back.shares().get(new LogEntry.Id(4, 0))).containsExactly(1, 2, 3);
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
  void partsEntryRoundTripsWithItsLayout() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    byte[] bytes = codec.encode(sample(1), Harness.ALICE.getPrivate());
    MetadataLog back = codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), MAX);
    LogEntry parts = back.entries().get(2);
    assertThat(parts.coding()).isEqualTo(LogEntry.Coding.PARTS);
    assertThat(parts.partCount()).isEqualTo(3);
    // 21 bytes in 3 parts: 7 + 7 + 7.
    assertThat(parts.partLength()).isEqualTo(7);
    assertThat(parts.partSize(2)).isEqualTo(7);
    assertThat(parts.dataObjects())
        .containsExactly("d/k/alice-parts.p0", "d/k/alice-parts.p1", "d/k/alice-parts.p2");
    assertThat(parts.pieceHashes().get(2)[31]).isEqualTo((byte) 2);
  }

  /**
   * The sample plus a value in coded parts (coding 10): 21 bytes in 3 parts, k = 2 on 3 holders,
   * hash byte 0 = part or 10 + part * 3 + holder.
   */
  public static MetadataLog codedPartsSample() {
    List<LogEntry> list = new ArrayList<>(sample(1).entries());
    List<byte[]> partHashes = new ArrayList<>();
    List<List<byte[]>> fragments = new ArrayList<>();
    for (int j = 0; j < 3; j++) {
      byte[] h = new byte[32];
      h[0] = (byte) j;
      partHashes.add(h);
      List<byte[]> per = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        byte[] f = new byte[32];
        f[0] = (byte) (10 + j * 3 + i);
        per.add(f);
      }
      fragments.add(per);
    }
    list.add(
        LogEntry.codedParts(
            10,
            8,
            "d/k/alice-cp",
            21,
            new byte[32],
            List.of("p2", "p0", "p1"),
            2,
            partHashes,
            fragments));
    return new MetadataLog("k", "alice", 9, 0, list);
  }

  @Test
  void codedPartsEntryRoundTripsWithEveryFragmentHash() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    byte[] bytes = codec.encode(codedPartsSample(), Harness.ALICE.getPrivate());
    MetadataLog back = codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), MAX);
    assertThat(back).isEqualTo(codedPartsSample());
    LogEntry e = back.entries().get(back.entries().size() - 1);
    assertThat(e.coding()).isEqualTo(LogEntry.Coding.CODED_PARTS);
    assertThat(e.k()).isEqualTo(2);
    assertThat(e.partCount()).isEqualTo(3);
    assertThat(e.partLength()).isEqualTo(7);
    assertThat(e.partHashUnsafe(2)[0]).isEqualTo((byte) 2);
    assertThat(e.fragmentHashUnsafe(2, 1)[0]).isEqualTo((byte) 17);
    assertThat(e.dataObjects())
        .containsExactly("d/k/alice-cp.p0", "d/k/alice-cp.p1", "d/k/alice-cp.p2");
    assertThat(e.allDataObjects()).isEqualTo(e.dataObjects());
    // The entry's wire bytes: code 10, k, the part count, then 3 + 9 hashes.
    int at = indexOfCode(bytes);
    assertThat(bytes[at + 1]).isEqualTo((byte) 2);
    assertThat(java.nio.ByteBuffer.wrap(bytes, at + 2, 4).getInt()).isEqualTo(3);
  }

  /** Where the coded-parts entry's coding byte is: just before k, the count and 12 hashes. */
  static int indexOfCode(byte[] bytes) {
    int sig = bytes.length - 66;
    return sig - 12 * 32 - 4 - 1 - 1;
  }

  @Test
  void aCodedPartsCountBeyondTheBytesIsRejectedBeforeAllocating() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    byte[] bytes = codec.encode(codedPartsSample(), Harness.ALICE.getPrivate());
    int at = indexOfCode(bytes);
    assertThat(bytes[at]).isEqualTo((byte) 10);
    byte[] huge = bytes.clone();
    java.nio.ByteBuffer.wrap(huge, at + 2, 4).putInt(0x7FFFFFFF);
    assertThatThrownBy(() -> codec.decode(huge, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("exceeds");
    byte[] badK = bytes.clone();
    badK[at + 1] = 4;
    assertThatThrownBy(() -> codec.decode(badK, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("k=4");
    assertThatThrownBy(
            () ->
                LogEntry.coded(
                    1,
                    0,
                    "d/x",
                    21,
                    new byte[32],
                    List.of("p0", "p1"),
                    LogEntry.Coding.CODED_PARTS,
                    1,
                    List.of(new byte[32], new byte[32])))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CODED_PARTS");
  }

  /** A log whose parted entry has joined holders (native multipart), so coding 9 is written. */
  static MetadataLog joinedSample() {
    List<LogEntry> list = new ArrayList<>(sample(1).entries());
    byte[] h = new byte[32];
    h[7] = 9;
    list.add(
        LogEntry.parts(
                9,
                7,
                "d/k/alice-joined",
                40,
                new byte[32],
                List.of("p2", "p0", "p1"),
                List.of(h, h))
            .withJoined(List.of("p1", "p2")));
    return new MetadataLog("k", "alice", 3, 0, list);
  }

  /** Offset of the joined entry's layout bytes: just before the signature trailer. */
  private static int layoutAt(byte[] bytes) {
    return bytes.length - 66 - 3;
  }

  @Test
  void joinedHoldersRoundTripAsCodingNineAndOthersKeepCodingEight() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    MetadataLog log = joinedSample();
    byte[] bytes = codec.encode(log, Harness.ALICE.getPrivate());
    MetadataLog back = codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), MAX);
    assertThat(back).isEqualTo(log);
    LogEntry joined = back.entries().get(back.entries().size() - 1);
    // Recorded in holder order whatever order they were given in.
    assertThat(joined.joinedHolders()).containsExactly("p2", "p1");
    assertThat(joined.joinedOn("p0")).isFalse();
    assertThat(joined.dataObjectsOn("p1")).containsExactly("d/k/alice-joined");
    assertThat(joined.dataObjectsOn("p0"))
        .containsExactly("d/k/alice-joined.p0", "d/k/alice-joined.p1");
    assertThat(joined.allDataObjects()).contains("d/k/alice-joined", "d/k/alice-joined.p1");
    int at = layoutAt(bytes);
    assertThat(Arrays.copyOfRange(bytes, at, at + 3)).containsExactly(1, 0, 1);
    assertThat(bytes[at - 2 * 32 - 4 - 1]).isEqualTo((byte) MetadataCodec.PARTS_JOINED_CODE);
    // The parted entry without joined holders is still written with code 8.
    LogEntry plain = back.entries().get(2);
    assertThat(plain.joinedHolders()).isEmpty();
    byte[] plainBytes = codec.encode(sample(1), Harness.ALICE.getPrivate());
    assertThat(new MetadataCodec().decode(plainBytes, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isEqualTo(sample(1));
  }

  @Test
  void badLayoutBytesAreMalformed() {
    MetadataCodec codec = new MetadataCodec();
    byte[] bytes = codec.encode(joinedSample(), Harness.ALICE.getPrivate());
    int at = layoutAt(bytes);
    byte[] unknown = bytes.clone();
    unknown[at + 1] = 2;
    assertThatThrownBy(
            () -> new MetadataCodec().decode(unknown, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("unknown layout 2");
    byte[] none = bytes.clone();
    none[at] = 0;
    none[at + 2] = 0;
    assertThatThrownBy(
            () -> new MetadataCodec().decode(none, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("no joined holder");
    assertThatThrownBy(
            () ->
                LogEntry.parts(
                        1,
                        0,
                        "d/k/a",
                        40,
                        new byte[32],
                        List.of("p0"),
                        List.of(new byte[32], new byte[32]))
                    .withJoined(List.of("p9")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("p9");
  }

  @Test
  void everyByteChangeAndTruncationOfAJoinedLogIsRejected() {
    byte[] bytes = new MetadataCodec().encode(joinedSample(), Harness.ALICE.getPrivate());
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= 0x5A;
      assertThatThrownBy(
              () -> new MetadataCodec().decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .as("flipping byte %d", i)
          .isInstanceOf(MalformedMetadataException.class);
    }
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = Arrays.copyOf(bytes, n);
      assertThatThrownBy(
              () -> new MetadataCodec().decode(cut, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .as("cut to %d bytes", n)
          .isInstanceOf(MalformedMetadataException.class);
    }
  }

  @Test
  void partLayoutsWithAnEmptyPartAreRefused() {
    // 4 bytes in 3 parts of ceil(4/3) = 2 would leave the last part empty.
    assertThat(LogEntry.partsFit(4, 3)).isFalse();
    assertThat(LogEntry.partsFit(10, 3)).isTrue();
    assertThat(LogEntry.partsFit(5, 1)).isFalse();
    assertThat(LogEntry.partsFit(5, 6)).isFalse();
    assertThatThrownBy(
            () ->
                LogEntry.parts(
                    1,
                    0,
                    "d/k/a",
                    4,
                    new byte[32],
                    List.of("p0"),
                    List.of(new byte[32], new byte[32], new byte[32])))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PARTS");
  }

  @Test
  void hugePartCountIsRejectedBeforeAllocation() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    List<LogEntry> one =
        List.of(
            LogEntry.parts(
                1,
                0,
                "d/k/a",
                64,
                new byte[32],
                List.of("p0"),
                List.of(new byte[32], new byte[32])));
    byte[] bytes =
        codec.encode(new MetadataLog("k", "alice", 1, 0, one), Harness.ALICE.getPrivate());
    // The part count sits right before the two hashes and the 66-byte signature trailer.
    int countAt = bytes.length - 66 - 64 - 4;
    assertThat(ByteBuffer.wrap(bytes, countAt, 4).getInt()).isEqualTo(2);
    byte[] bad = bytes.clone();
    ByteBuffer.wrap(bad, countAt, 4).putInt(0x7FFFFFFF);
    assertThatThrownBy(() -> codec.decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("part count");
  }

  /**
   * The verified-log cache is each codec's (each client's): bytes another codec signed or verified
   * are verified here once, then recognised by their hash; a codec's own signed bytes are not
   * verified at all.
   */
  @Test
  void aLogAnotherCodecSignedOrVerifiedIsVerifiedOnceByThisOne() throws Exception {
    java.security.KeyPair keys = io.rafestore.SigningKeys.generate();
    MetadataLog log = sample(3);
    io.rafestore.internal.codec.GatedSignatures writerSigs = opened();
    MetadataCodec writer = new MetadataCodec(writerSigs);
    byte[] bytes = writer.encode(log, keys.getPrivate());
    writer.rememberSigned(bytes, log, keys.getPublic());
    assertThat(writer.decode(bytes, "k", "alice", keys.getPublic(), MAX)).isEqualTo(log);
    assertThat(writerSigs.verifies()).as("the signer reading its own bytes").isZero();
    for (int reader = 0; reader < 2; reader++) {
      io.rafestore.internal.codec.GatedSignatures sigs = opened();
      MetadataCodec codec = new MetadataCodec(sigs);
      // As from four clouds: the same bytes, verified once.
      for (int cloud = 0; cloud < 4; cloud++) {
        assertThat(codec.decode(bytes.clone(), "k", "alice", keys.getPublic(), MAX)).isEqualTo(log);
      }
      assertThat(sigs.verifies()).as("reader %d", reader).isEqualTo(1);
    }
  }

  /**
   * A codec's own signed bytes are recognised only byte for byte and only under their own name: a
   * copy with one byte changed is verified (and refused), and the same bytes asked for under
   * another key or writer are refused by the name check, never taken from what the codec signed.
   */
  @Test
  void ownSignedBytesAreRecognisedOnlyExactlyAndUnderTheirName() throws Exception {
    java.security.KeyPair keys = io.rafestore.SigningKeys.generate();
    MetadataLog log = sample(3);
    io.rafestore.internal.codec.GatedSignatures sigs = opened();
    MetadataCodec codec = new MetadataCodec(sigs);
    byte[] bytes = codec.encode(log, keys.getPrivate());
    codec.rememberSigned(bytes, log, keys.getPublic());
    for (int i = 0; i < bytes.length; i += 7) {
      byte[] bad = bytes.clone();
      bad[i] ^= 0x01;
      assertThatThrownBy(() -> codec.decode(bad, "k", "alice", keys.getPublic(), MAX))
          .as("byte %d changed", i)
          .isInstanceOf(MalformedMetadataException.class);
    }
    assertThat(sigs.verifies()).as("each changed copy verified or refused by parsing").isPositive();
    assertThatThrownBy(() -> codec.decode(bytes, "other", "alice", keys.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("not 'other'");
    assertThatThrownBy(() -> codec.decode(bytes, "k", "bob", keys.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("not 'bob'");
    long before = sigs.verifies();
    assertThat(codec.decode(bytes.clone(), "k", "alice", keys.getPublic(), MAX)).isEqualTo(log);
    assertThat(sigs.verifies()).as("the exact bytes, recognised").isEqualTo(before);
    // A newer log of the same name replaces the one remembered: the older bytes are verified.
    MetadataLog newer = sample(4);
    byte[] newerBytes = codec.encode(newer, keys.getPrivate());
    codec.rememberSigned(newerBytes, newer, keys.getPublic());
    before = sigs.verifies();
    assertThat(codec.decode(newerBytes, "k", "alice", keys.getPublic(), MAX)).isEqualTo(newer);
    assertThat(codec.decode(bytes, "k", "alice", keys.getPublic(), MAX)).isEqualTo(log);
    assertThat(sigs.verifies()).as("only the older bytes verified").isEqualTo(before + 1);
  }

  private static io.rafestore.internal.codec.GatedSignatures opened() {
    io.rafestore.internal.codec.GatedSignatures s =
        new io.rafestore.internal.codec.GatedSignatures(
            io.rafestore.internal.codec.Signatures.fast());
    s.open();
    return s;
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

  /**
   * A signed log with its trailer replaced: algorithm {@code algo}, signature of {@code message}.
   */
  private static byte[] resigned(byte[] signedLog, int algo, byte[] message) {
    byte[] out = signedLog.clone();
    int body = out.length - 66;
    byte[] sig =
        io.rafestore.internal.codec.Signatures.fast()
            .sign(message, message.length, Harness.ALICE.getPrivate());
    out[body] = (byte) algo;
    System.arraycopy(sig, 0, out, body + 2, 64);
    return out;
  }

  @Test
  void logsAreSignedOverTheBodysDigestAndOlderLogsSignedOverTheBodyStillRead()
      throws MalformedMetadataException {
    MetadataCodec codec = new MetadataCodec();
    MetadataLog log = sample(3);
    byte[] bytes = codec.encode(log, Harness.ALICE.getPrivate());
    int body = bytes.length - 66;
    assertThat(bytes[body]).isEqualTo((byte) MetadataCodec.SIG_ED25519_SHA256);
    assertThat(bytes[body + 1]).isEqualTo((byte) 64);
    // Algorithm 2 signs the domain and the body's SHA-256: the same 64 bytes as signing it
    // directly.
    byte[] message = MetadataCodec.digestMessage(bytes, body);
    assertThat(new String(message, 0, 13, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo("RFSM-SHA-256:");
    assertThat(Arrays.copyOfRange(message, 13, 45))
        .isEqualTo(io.rafestore.internal.codec.Sha256.hash(bytes, 0, body));
    assertThat(resigned(bytes, MetadataCodec.SIG_ED25519_SHA256, message)).isEqualTo(bytes);
    // A log signed over the body itself (algorithm 1, as every earlier version wrote) still reads.
    byte[] body1 = Arrays.copyOf(bytes, body);
    byte[] older = resigned(bytes, MetadataCodec.SIG_ED25519, body1);
    MetadataLog back =
        new MetadataCodec().decode(older, "k", "alice", Harness.ALICE.getPublic(), MAX);
    assertThat(codec.encode(back, Harness.ALICE.getPrivate())).isEqualTo(bytes);
    // Neither signature passes under the other algorithm's byte: the algorithm is not malleable.
    byte[] twoAsOne = bytes.clone();
    twoAsOne[body] = (byte) MetadataCodec.SIG_ED25519;
    byte[] oneAsTwo = older.clone();
    oneAsTwo[body] = (byte) MetadataCodec.SIG_ED25519_SHA256;
    for (byte[] bad : List.of(twoAsOne, oneAsTwo)) {
      assertThatThrownBy(
              () -> new MetadataCodec().decode(bad, "k", "alice", Harness.ALICE.getPublic(), MAX))
          .isInstanceOfSatisfying(
              MalformedMetadataException.class,
              e -> assertThat(e.kind()).isEqualTo(CloudFault.Kind.BAD_SIGNATURE));
    }
    // Any changed body byte changes the digest, so the signature fails.
    byte[] flipped = bytes.clone();
    flipped[body - 1] ^= 1;
    assertThatThrownBy(
            () -> new MetadataCodec().decode(flipped, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class);
    // Algorithm 3 (a batch's) needs a path after the signature; algorithm 4 is unknown.
    byte[] three = bytes.clone();
    three[body] = 3;
    assertThatThrownBy(
            () -> new MetadataCodec().decode(three, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("truncated");
    byte[] four = bytes.clone();
    four[body] = 4;
    assertThatThrownBy(
            () -> new MetadataCodec().decode(four, "k", "alice", Harness.ALICE.getPublic(), MAX))
        .hasMessageContaining("unsupported signature algorithm 4/64");
  }

  @Test
  void theEncoderSizesItsBufferExactlyForEveryKindOfEntry() {
    MetadataCodec codec = new MetadataCodec();
    List<MetadataLog> logs =
        List.of(
            sample(0),
            sample(3),
            sealedSample(2),
            codedPartsSample(),
            joinedSample(),
            incarnationSample(false),
            incarnationSample(true),
            inlineSample(false),
            inlineSample(true));
    for (MetadataLog log : logs) {
      assertThat(codec.encode(log, Harness.ALICE.getPrivate()))
          .hasSize(MetadataCodec.encodedLength(log));
    }
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
    b.put(MetadataCodec.magic())
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
          System.arraycopy(MetadataCodec.magic(), 0, input, 0, 4);
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
