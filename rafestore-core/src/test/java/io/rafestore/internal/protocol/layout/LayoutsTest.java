package io.rafestore.internal.protocol.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ByteRange;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The layout lookup and the parts of the {@link ValueLayout} contract that need no cloud: which
 * layout a signed entry gets, which objects each holder stores, and what verify accepts from a
 * holder. Reads, repair and collection through the layouts run in the protocol tests.
 */
class LayoutsTest {
  private static final byte[] VALUE =
      "twelve bytes".getBytes(java.nio.charset.StandardCharsets.UTF_8);
  private static final List<String> HOLDERS = List.of("p0", "p1", "p2");

  private static LogEntry replica() {
    return LogEntry.replica(1, 0, "d/k/w-1", VALUE.length, Sha256.hash(VALUE), HOLDERS);
  }

  private static LogEntry coded(LogEntry.Coding coding) {
    List<byte[]> pieces =
        List.of(
            Sha256.hash(new byte[] {0}), Sha256.hash(new byte[] {1}), Sha256.hash(new byte[] {2}));
    return LogEntry.coded(
        1, 0, "d/k/w-1", VALUE.length, Sha256.hash(VALUE), HOLDERS, coding, 2, pieces);
  }

  /** Twelve bytes in three parts of four, p1 keeping them joined in one object. */
  private static LogEntry parts() {
    List<byte[]> hashes = List.of(part(0), part(1), part(2));
    return LogEntry.parts(1, 0, "d/k/w-1", VALUE.length, Sha256.hash(VALUE), HOLDERS, hashes)
        .withJoined(List.of("p1"));
  }

  /** Twelve bytes in three parts of four, each coded k = 2 on the three holders. */
  private static LogEntry codedParts() {
    List<List<byte[]>> fragments = new java.util.ArrayList<>();
    for (int j = 0; j < 3; j++) {
      fragments.add(
          List.of(
              Sha256.hash(new byte[] {(byte) j, 0}),
              Sha256.hash(new byte[] {(byte) j, 1}),
              Sha256.hash(new byte[] {(byte) j, 2})));
    }
    return LogEntry.codedParts(
        1,
        0,
        "d/k/w-1",
        VALUE.length,
        Sha256.hash(VALUE),
        HOLDERS,
        2,
        List.of(part(0), part(1), part(2)),
        fragments);
  }

  private static byte[] part(int i) {
    return Sha256.hash(java.util.Arrays.copyOfRange(VALUE, 4 * i, 4 * i + 4));
  }

  private static LogEntry sealedOf(LogEntry e) {
    return e.sealed(
        HOLDERS, List.of(new byte[32], Sha256.hash(new byte[] {1}), Sha256.hash(new byte[] {2})));
  }

  @Test
  void eachCodingHasItsLayoutAndKeySharesSealAny() {
    assertThat(Layouts.of(replica())).isInstanceOf(ReplicaLayout.class);
    assertThat(Layouts.of(coded(LogEntry.Coding.REED_SOLOMON)))
        .isInstanceOf(ReedSolomonLayout.class);
    assertThat(Layouts.of(coded(LogEntry.Coding.DEPSKY_CA))).isInstanceOf(DepSkyLayout.class);
    assertThat(Layouts.of(parts())).isInstanceOf(PartsLayout.class);
    assertThat(Layouts.of(codedParts())).isInstanceOf(CodedPartsLayout.class);
    for (LogEntry e :
        List.of(replica(), coded(LogEntry.Coding.REED_SOLOMON), parts(), codedParts())) {
      assertThat(Layouts.of(sealedOf(e))).isInstanceOf(SealedLayout.class);
      assertThat(Layouts.stored(sealedOf(e))).isInstanceOf(Layouts.of(e).getClass());
    }
  }

  @Test
  void entriesThatStoreNoValueHaveNoLayout() {
    assertThatThrownBy(() -> Layouts.of(LogEntry.tombstone(2, 0)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aWholeValueIsOneObjectOnEveryHolder() {
    ValueLayout l = Layouts.of(replica());
    assertThat(l.objectsOn("p0")).containsExactly("d/k/w-1");
    assertThat(l.allObjects()).containsExactly("d/k/w-1");
    assertThat(l.objectsToDelete("p9", true)).containsExactly("d/k/w-1");
    assertThat(l.checksOn("p2"))
        .containsExactly(new ValueLayout.Check("d/k/w-1", Optional.empty(), 0, ""));
  }

  @Test
  void partsLieInPartObjectsOrOneJoinedObject() {
    ValueLayout l = Layouts.of(parts());
    assertThat(l.objectsOn("p0")).containsExactly("d/k/w-1.p0", "d/k/w-1.p1", "d/k/w-1.p2");
    assertThat(l.objectsOn("p1")).containsExactly("d/k/w-1");
    assertThat(l.allObjects()).contains("d/k/w-1", "d/k/w-1.p2");
    // A cloud with native uploads may hold a joined object a cancelled upload left.
    assertThat(l.objectsToDelete("p2", false)).doesNotContain("d/k/w-1");
    assertThat(l.objectsToDelete("p2", true)).contains("d/k/w-1");
    assertThat(l.objectsToDelete("p1", false)).contains("d/k/w-1");
    assertThat(l.checksOn("p1"))
        .extracting(ValueLayout.Check::range)
        .containsExactly(
            Optional.of(ByteRange.of(0, 4)),
            Optional.of(ByteRange.of(4, 4)),
            Optional.of(ByteRange.of(8, 4)));
    assertThat(l.checksOn("p0")).extracting(ValueLayout.Check::note).containsOnly("");
  }

  @Test
  void codedPartsLieInPartObjectsEachHolderItsOwnFragment() {
    ValueLayout l = Layouts.of(codedParts());
    assertThat(l.objectsOn("p2")).containsExactly("d/k/w-1.p0", "d/k/w-1.p1", "d/k/w-1.p2");
    assertThat(l.allObjects()).containsExactly("d/k/w-1.p0", "d/k/w-1.p1", "d/k/w-1.p2");
    assertThat(l.objectsToDelete("p9", true)).doesNotContain("d/k/w-1");
    ValueLayout.Check second = l.checksOn("p1").get(1);
    assertThat(second.object()).isEqualTo("d/k/w-1.p1");
    // Holder 1 must hold fragment 1 of part 1, not another part's or another holder's.
    assertThat(l.holds("p1", second, new byte[] {1, 1})).isTrue();
    assertThat(l.holds("p2", second, new byte[] {1, 1})).isFalse();
    assertThat(l.holds("p1", second, new byte[] {0, 1})).isFalse();
  }

  @Test
  void verifyAcceptsOnlyWhatTheEntrySigns() {
    ValueLayout replica = Layouts.of(replica());
    ValueLayout.Check whole = replica.checksOn("p0").get(0);
    assertThat(replica.holds("p0", whole, VALUE)).isTrue();
    assertThat(replica.holds("p0", whole, new byte[VALUE.length])).isFalse();

    ValueLayout parts = Layouts.of(parts());
    ValueLayout.Check second = parts.checksOn("p1").get(1);
    assertThat(parts.holds("p1", second, java.util.Arrays.copyOfRange(VALUE, 4, 8))).isTrue();
    assertThat(parts.holds("p1", second, java.util.Arrays.copyOfRange(VALUE, 0, 4))).isFalse();

    // Holder i of a coded value must hold piece i, not another holder's piece.
    ValueLayout rs = Layouts.of(coded(LogEntry.Coding.REED_SOLOMON));
    ValueLayout.Check piece = rs.checksOn("p1").get(0);
    assertThat(rs.holds("p1", piece, new byte[] {1})).isTrue();
    assertThat(rs.holds("p2", piece, new byte[] {1})).isFalse();
  }

  @Test
  void aSealedReplicaIsTheSealedValueWithItsOverhead() {
    byte[] sealed = new byte[VALUE.length + Aead.OVERHEAD];
    LogEntry e =
        sealedOf(LogEntry.replica(1, 0, "d/k/w-1", VALUE.length, Sha256.hash(sealed), HOLDERS));
    ValueLayout l = Layouts.of(e);
    ValueLayout.Check whole = l.checksOn("p0").get(0);
    assertThat(l.holds("p0", whole, sealed)).isTrue();
    assertThat(e.storedSize()).isEqualTo(VALUE.length + Aead.OVERHEAD);
  }

  private static LogEntry inline() {
    return LogEntry.inline(
        1, 0, "d/k/w-1", VALUE.length, Sha256.hash(VALUE), VALUE, List.of(), List.of());
  }

  @Test
  void anInlineValueStoresNoObjectAndItsPackedFormLivesInItsPack() {
    assertThat(Layouts.of(inline())).isInstanceOf(InlineLayout.class);
    ValueLayout in = Layouts.of(inline());
    assertThat(in.objectsOn("p0")).isEmpty();
    assertThat(in.allObjects()).isEmpty();
    assertThat(in.objectsToDelete("p0", true)).isEmpty();
    assertThat(in.checksOn("p0")).isEmpty();
    assertThat(in.anticipate(null, 0)).isEmpty();

    byte[] pack = new byte[40];
    System.arraycopy(VALUE, 0, pack, 10, VALUE.length);
    LogEntry packed =
        inline()
            .packed(
                new LogEntry.Pack("d/k/w-pack", 40, Sha256.hash(pack), 10), List.of("p0", "p2"));
    ValueLayout l = Layouts.of(packed);
    assertThat(l).isInstanceOf(PackedLayout.class);
    assertThat(l.objectsOn("p2")).containsExactly("d/k/w-pack");
    assertThat(l.allObjects()).containsExactly("d/k/w-pack");
    assertThat(l.objectsToDelete("p1", false)).containsExactly("d/k/w-pack");
    // Verify checks the whole pack against the pack's signed size and hash, like a replica.
    ValueLayout.Check whole = l.checksOn("p0").get(0);
    assertThat(whole.object()).isEqualTo("d/k/w-pack");
    assertThat(whole.range()).isEmpty();
    assertThat(l.holds("p0", whole, pack)).isTrue();
    assertThat(l.holds("p0", whole, VALUE)).isFalse();
    pack[0] = 1;
    assertThat(l.holds("p0", whole, pack)).isFalse();
  }

  @Test
  void sealedInlineAndPackedValuesAreSealedAroundTheirLayouts() {
    byte[] sealed = new byte[VALUE.length + Aead.OVERHEAD];
    LogEntry e =
        LogEntry.inline(
            1,
            0,
            "d/k/w-1",
            VALUE.length,
            Sha256.hash(sealed),
            sealed,
            HOLDERS,
            List.of(new byte[32], new byte[32], new byte[32]));
    assertThat(Layouts.of(e)).isInstanceOf(SealedLayout.class);
    assertThat(Layouts.stored(e)).isInstanceOf(InlineLayout.class);
    LogEntry p =
        e.packed(new LogEntry.Pack("d/k/w-pack", sealed.length, new byte[32], 0), List.of("p0"));
    assertThat(Layouts.of(p)).isInstanceOf(SealedLayout.class);
    assertThat(Layouts.stored(p)).isInstanceOf(PackedLayout.class);
    assertThat(p.storedSize()).isEqualTo(sealed.length);
  }
}
