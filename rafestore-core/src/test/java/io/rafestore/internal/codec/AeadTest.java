package io.rafestore.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AeadTest {
  private static final byte[] AAD = "forum/thread-1@v7".getBytes(StandardCharsets.UTF_8);

  @Test
  void roundTripsAnyLengthWithAndWithoutAssociatedData() throws Exception {
    Aead aead = Aead.withKey(Aead.newKey());
    Random random = new Random(1);
    for (int length : new int[] {0, 1, 15, 16, 17, 1000, 1 << 20}) {
      byte[] plaintext = ReedSolomonTest.randomBytes(random, length);
      byte[] sealed = aead.encrypt(plaintext, AAD);
      assertThat(sealed).hasSize(length + Aead.OVERHEAD);
      assertThat(aead.decrypt(sealed, AAD)).isEqualTo(plaintext);
      assertThat(aead.decrypt(aead.encrypt(plaintext, null), null)).isEqualTo(plaintext);
      assertThat(aead.decrypt(aead.encrypt(plaintext, null), new byte[0])).isEqualTo(plaintext);
    }
  }

  @Test
  void encryptionsOfTheSamePlaintextDifferInNonceAndCiphertext() {
    Aead aead = Aead.withKey(Aead.newKey());
    byte[] plaintext = new byte[64];
    byte[] a = aead.encrypt(plaintext, AAD);
    byte[] b = aead.encrypt(plaintext, AAD);
    assertThat(Arrays.copyOf(a, Aead.NONCE_BYTES)).isNotEqualTo(Arrays.copyOf(b, Aead.NONCE_BYTES));
    assertThat(Arrays.copyOfRange(a, Aead.NONCE_BYTES, a.length))
        .isNotEqualTo(Arrays.copyOfRange(b, Aead.NONCE_BYTES, b.length));
    // And the ciphertext is not the plaintext.
    assertThat(Arrays.copyOfRange(a, Aead.NONCE_BYTES, Aead.NONCE_BYTES + 64))
        .isNotEqualTo(plaintext);
  }

  /** Flipping any single bit of nonce, ciphertext or tag is detected. */
  @Test
  void everyBitFlipIsDetected() {
    Aead aead = Aead.withKey(Aead.newKey());
    byte[] sealed = aead.encrypt("attack at dawn".getBytes(StandardCharsets.UTF_8), AAD);
    for (int bit = 0; bit < sealed.length * 8; bit++) {
      byte[] tampered = sealed.clone();
      tampered[bit / 8] ^= (byte) (1 << (bit % 8));
      String region =
          bit / 8 < Aead.NONCE_BYTES
              ? "nonce"
              : bit / 8 < sealed.length - Aead.TAG_BYTES ? "ciphertext" : "tag";
      assertThatThrownBy(() -> aead.decrypt(tampered, AAD))
          .as("bit %d in %s", bit, region)
          .isInstanceOf(MalformedInputException.class)
          .hasMessageContaining("authentication failed");
    }
  }

  @Test
  void wrongAssociatedDataOrKeyIsDetected() {
    byte[] key = Aead.newKey();
    Aead aead = Aead.withKey(key);
    byte[] sealed = aead.encrypt(new byte[100], AAD);
    byte[] otherAad = AAD.clone();
    otherAad[otherAad.length - 1] ^= 1;
    assertThatThrownBy(() -> aead.decrypt(sealed, otherAad))
        .isInstanceOf(MalformedInputException.class);
    assertThatThrownBy(() -> aead.decrypt(sealed, null))
        .isInstanceOf(MalformedInputException.class);
    byte[] otherKey = key.clone();
    otherKey[0] ^= 1;
    assertThatThrownBy(() -> Aead.withKey(otherKey).decrypt(sealed, AAD))
        .isInstanceOf(MalformedInputException.class);
  }

  @Test
  void truncatedOrExtendedInputIsRejected() {
    Aead aead = Aead.withKey(Aead.newKey());
    byte[] sealed = aead.encrypt(new byte[10], AAD);
    for (int cut = 0; cut < sealed.length; cut++) {
      byte[] truncated = Arrays.copyOf(sealed, cut);
      assertThatThrownBy(() -> aead.decrypt(truncated, AAD))
          .isInstanceOf(MalformedInputException.class);
    }
    byte[] extended = Arrays.copyOf(sealed, sealed.length + 1);
    assertThatThrownBy(() -> aead.decrypt(extended, AAD))
        .isInstanceOf(MalformedInputException.class);
    assertThatThrownBy(() -> aead.decrypt(new byte[3], AAD))
        .hasMessageContaining("3 bytes, at least 28 needed");
  }

  @Test
  void keyIsValidatedAndCopied() throws Exception {
    assertThatThrownBy(() -> Aead.withKey(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must be 32 bytes (AES-256), was 16");
    byte[] key = Aead.newKey();
    assertThat(key).hasSize(32).isNotEqualTo(Aead.newKey());
    Aead aead = Aead.withKey(key);
    byte[] sealed = aead.encrypt(new byte[] {1}, null);
    key[0] ^= 1;
    assertThat(aead.decrypt(sealed, null)).containsExactly(1);
  }
}
