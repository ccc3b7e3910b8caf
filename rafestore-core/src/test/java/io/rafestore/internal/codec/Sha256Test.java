package io.rafestore.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class Sha256Test {

  /** FIPS 180-2 test vectors. */
  @Test
  void knownAnswers() {
    assertThat(hex(Sha256.hash(new byte[0])))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assertThat(hex(Sha256.hash("abc".getBytes(StandardCharsets.US_ASCII))))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    byte[] framed = "xxabcyy".getBytes(StandardCharsets.US_ASCII);
    assertThat(hex(Sha256.hash(framed, 2, 3))).startsWith("ba7816bf");
  }

  @Test
  void comparison() {
    byte[] h = Sha256.hash(new byte[] {1});
    assertThat(Sha256.equal(h, h.clone())).isTrue();
    byte[] other = h.clone();
    other[31] ^= 1;
    assertThat(Sha256.equal(h, other)).isFalse();
    assertThat(Sha256.equal(h, new byte[0])).isFalse();
    assertThat(Sha256.matches(new byte[] {1}, h)).isTrue();
    assertThat(Sha256.matches(new byte[] {2}, h)).isFalse();
    assertThat(Sha256.matches(new byte[] {1}, null)).isFalse();
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
