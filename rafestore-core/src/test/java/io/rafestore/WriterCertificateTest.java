package io.rafestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.WriterTrustException.Reason;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The operator-signed forms (design.md section 4, "Writer certificates"): canonical encodings that
 * round-trip, whose every changed, cut or extended byte is refused (by the parser, or by the
 * signature), and whose checks name their reason.
 */
class WriterCertificateTest {
  static final KeyPair OPS = SigningKeys.generate();
  static final KeyPair OTHER = SigningKeys.generate();
  static final KeyPair BOB = SigningKeys.generate();
  static final Instant T0 = Instant.parse("2026-06-01T00:00:00.123Z");
  static final Map<String, java.security.PublicKey> TRUSTED = Map.of("ops", OPS.getPublic());

  static WriterCertificate bob() {
    return WriterCertificate.issue(
        "bob", BOB.getPublic(), T0, T0.plus(Duration.ofDays(90)), T0, "ops", OPS.getPrivate());
  }

  @Test
  void aCertificateRoundTripsInBytesAndText() throws Exception {
    WriterCertificate c = bob();
    c.verify(TRUSTED);
    WriterCertificate back = WriterCertificate.decode(c.encoded());
    assertThat(back).isEqualTo(c);
    assertThat(back.encoded()).isEqualTo(c.encoded());
    assertThat(back.writerId()).isEqualTo("bob");
    assertThat(back.writerKey()).isEqualTo(BOB.getPublic());
    assertThat(back.certifies(BOB.getPublic())).isTrue();
    assertThat(back.certifies(OTHER.getPublic())).isFalse();
    assertThat(back.notBefore()).isEqualTo(T0);
    assertThat(back.operatorKeyId()).isEqualTo("ops");
    assertThat(back.format()).isEqualTo(1);
    assertThat(WriterCertificate.parseText(c.toText())).isEqualTo(c);
    assertThat(c.encoded().length).isLessThanOrEqualTo(WriterCertificate.MAX_BYTES);
  }

  @Test
  void everyChangedByteOfACertificateIsRefused() {
    byte[] good = bob().encoded();
    for (int i = 0; i < good.length; i++) {
      for (int bit : new int[] {0x01, 0x80}) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) bit;
        assertThat(accepted(bad)).as("byte %d bit %x", i, bit).isFalse();
      }
    }
    for (int len = 0; len < good.length; len++) {
      assertThat(accepted(Arrays.copyOf(good, len))).as("cut to %d", len).isFalse();
    }
    assertThat(accepted(Arrays.copyOf(good, good.length + 1))).isFalse();
    assertThat(accepted(good)).isTrue();
  }

  /** Whether a reader trusting "ops" accepts {@code bytes} as a certificate. */
  private static boolean accepted(byte[] bytes) {
    try {
      WriterCertificate.decode(bytes).verify(TRUSTED);
      return true;
    } catch (WriterTrustException e) {
      assertThat(e.reason()).isIn(Reason.MALFORMED, Reason.BAD_SIGNATURE, Reason.UNKNOWN_OPERATOR);
      return false;
    }
  }

  @Test
  void checksNameTheirReason() throws Exception {
    WriterCertificate c = bob();
    assertThatThrownBy(() -> c.verify(Map.of("other", OPS.getPublic())))
        .isInstanceOf(WriterTrustException.class)
        .hasMessageContaining("UNKNOWN_OPERATOR");
    assertThatThrownBy(() -> c.verify(Map.of("ops", OTHER.getPublic())))
        .hasMessageContaining("BAD_SIGNATURE");
    assertThatThrownBy(() -> c.checkValidAt(T0.minusMillis(1)))
        .hasMessageContaining("NOT_YET_VALID");
    assertThatThrownBy(() -> c.checkValidAt(T0.plus(Duration.ofDays(91))))
        .hasMessageContaining("EXPIRED");
    c.checkValidAt(T0);
    c.checkValidAt(c.notAfter());
    assertThatThrownBy(() -> WriterCertificate.parseText("not a certificate"))
        .hasMessageContaining("MALFORMED");
  }

  @Test
  void issuingChecksItsArguments() {
    assertThatThrownBy(
            () ->
                WriterCertificate.issue(
                    "bob", BOB.getPublic(), T0, T0, T0, "ops", OPS.getPrivate()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("notAfter");
    assertThatThrownBy(
            () ->
                WriterCertificate.issue(
                    "b/ob", BOB.getPublic(), T0, T0.plusSeconds(1), T0, "ops", OPS.getPrivate()))
        .hasMessageContaining("writerId");
    assertThatThrownBy(
            () ->
                WriterCertificate.issue(
                    "bob", BOB.getPublic(), T0, T0.plusSeconds(1), T0, "o ps", OPS.getPrivate()))
        .hasMessageContaining("operator key id");
  }

  @Test
  void theNewerOfTwoCertificatesIsTheOneIssuedLater() {
    WriterCertificate a = bob();
    WriterCertificate b =
        WriterCertificate.issue(
            "bob",
            BOB.getPublic(),
            T0,
            T0.plus(Duration.ofDays(180)),
            T0.plusSeconds(60),
            "ops",
            OPS.getPrivate());
    assertThat(b.newerThan(a)).isTrue();
    assertThat(a.newerThan(b)).isFalse();
    assertThat(a.newerThan(a)).isFalse();
  }

  @Test
  void aRevocationListRoundTripsAndRefusesEveryChangedByte() throws Exception {
    RevocationList l =
        RevocationList.issue("ops", 3, T0, List.of("carol", "bob", "bob"), OPS.getPrivate());
    l.verify(TRUSTED);
    assertThat(l.revoked()).containsExactly("bob", "carol");
    assertThat(RevocationList.decode(l.encoded())).isEqualTo(l);
    assertThat(RevocationList.parseText(l.toText())).isEqualTo(l);
    RevocationList next = l.plus(List.of("dave"), T0, OPS.getPrivate());
    assertThat(next.sequence()).isEqualTo(4);
    assertThat(next.revoked()).containsExactly("bob", "carol", "dave");
    byte[] good = l.encoded();
    for (int i = 0; i < good.length; i++) {
      byte[] bad = good.clone();
      bad[i] ^= 1;
      assertThat(listAccepted(bad)).as("byte %d", i).isFalse();
    }
    for (int len = 0; len < good.length; len++) {
      assertThat(listAccepted(Arrays.copyOf(good, len))).as("cut to %d", len).isFalse();
    }
    assertThat(listAccepted(Arrays.copyOf(good, good.length + 1))).isFalse();
  }

  @Test
  void aRevocationListWithAHugeCountOrUnsortedIdsIsRefusedUnread() throws Exception {
    byte[] good = RevocationList.issue("ops", 1, T0, List.of("a", "b"), OPS.getPrivate()).encoded();
    // The count sits after magic, format, operator id (1 + 3), sequence and issuedAt.
    int countAt = 4 + 1 + 4 + 8 + 8;
    byte[] huge = good.clone();
    huge[countAt] = 0x7f;
    assertThatThrownBy(() -> RevocationList.decode(huge))
        .isInstanceOf(WriterTrustException.class)
        .hasMessageContaining("count");
    byte[] swapped = good.clone();
    // ids "a" then "b": swap their characters so they are in decreasing order.
    int first = countAt + 4 + 1;
    swapped[first] = 'b';
    swapped[first + 2] = 'a';
    assertThatThrownBy(() -> RevocationList.decode(swapped))
        .hasMessageContaining("strictly increasing");
  }

  private static boolean listAccepted(byte[] bytes) {
    try {
      RevocationList.decode(bytes).verify(TRUSTED);
      return true;
    } catch (WriterTrustException e) {
      return false;
    }
  }
}
