package io.rafestore.internal.codec;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM authenticated encryption with a fresh random 96-bit nonce for every encryption and a
 * 128-bit tag.
 *
 * <p>Output format: {@code nonce (12 bytes) || ciphertext (plaintext length) || tag (16 bytes)}, so
 * a sealed value is {@link #OVERHEAD} bytes longer than its plaintext. The optional associated data
 * is authenticated but not stored: the caller passes the same bytes to {@link #decrypt} (RafeStore
 * binds the object key and version into it, so a cloud cannot swap one version's ciphertext for
 * another's).
 *
 * <p>Random nonces are safe for up to 2^32 encryptions under one key (NIST SP 800-38D, section
 * 8.3); RafeStore draws a new key for every value, far below that.
 *
 * <p>Immutable and safe for concurrent use: each call uses its own {@link Cipher}.
 */
public final class Aead {
  public static final int KEY_BYTES = 32;
  public static final int NONCE_BYTES = 12;
  public static final int TAG_BYTES = 16;

  /** Bytes a sealed value adds to its plaintext. */
  public static final int OVERHEAD = NONCE_BYTES + TAG_BYTES;

  private static final String TRANSFORMATION = "AES/GCM/NoPadding";
  private static final byte[] NO_ASSOCIATED_DATA = new byte[0];
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  private Aead(byte[] key) {
    this.key = new SecretKeySpec(key, "AES");
  }

  /** A new uniformly random 256-bit key. */
  public static byte[] newKey() {
    byte[] key = new byte[KEY_BYTES];
    RANDOM.nextBytes(key);
    return key;
  }

  /**
   * A cipher under {@code key}, which is copied.
   *
   * @throws IllegalArgumentException unless the key is {@value #KEY_BYTES} bytes
   */
  public static Aead withKey(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "key must be " + KEY_BYTES + " bytes (AES-256), was " + key.length);
    }
    return new Aead(key);
  }

  /**
   * Encrypts and authenticates {@code plaintext} together with {@code associatedData} (null for
   * none) under a fresh random nonce.
   *
   * @return {@code nonce || ciphertext || tag}, {@link #OVERHEAD} bytes longer than the plaintext
   */
  public byte[] encrypt(byte[] plaintext, byte[] associatedData) {
    Objects.requireNonNull(plaintext, "plaintext");
    if (plaintext.length > Integer.MAX_VALUE - OVERHEAD) {
      throw new IllegalArgumentException("plaintext too large: " + plaintext.length + " bytes");
    }
    byte[] sealed = new byte[plaintext.length + OVERHEAD];
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    System.arraycopy(nonce, 0, sealed, 0, NONCE_BYTES);
    try {
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, sealed, associatedData);
      int written = cipher.doFinal(plaintext, 0, plaintext.length, sealed, NONCE_BYTES);
      if (written != plaintext.length + TAG_BYTES) {
        throw new IllegalStateException("AES-GCM wrote " + written + " bytes");
      }
    } catch (GeneralSecurityException e) {
      // AES-GCM is mandatory in every Java SE platform and the key length is checked.
      throw new IllegalStateException("AES-GCM unavailable", e);
    }
    return sealed;
  }

  /**
   * Verifies and decrypts a value sealed by {@link #encrypt} under the same key and associated
   * data.
   *
   * @throws MalformedInputException if {@code sealed} is shorter than {@link #OVERHEAD} or any bit
   *     of the nonce, ciphertext, tag or associated data differs from what was encrypted
   */
  public byte[] decrypt(byte[] sealed, byte[] associatedData) throws MalformedInputException {
    Objects.requireNonNull(sealed, "sealed");
    if (sealed.length < OVERHEAD) {
      throw new MalformedInputException(
          "sealed value has " + sealed.length + " bytes, at least " + OVERHEAD + " needed");
    }
    byte[] plaintext = new byte[sealed.length - OVERHEAD];
    try {
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, sealed, associatedData);
      cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES, plaintext, 0);
    } catch (AEADBadTagException e) {
      throw new MalformedInputException(
          "AES-GCM authentication failed: ciphertext, nonce, tag or associated data altered", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM unavailable", e);
    }
    return plaintext;
  }

  private Cipher cipher(int mode, byte[] sealed, byte[] associatedData)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance(TRANSFORMATION);
    cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, sealed, 0, NONCE_BYTES));
    cipher.updateAAD(associatedData == null ? NO_ASSOCIATED_DATA : associatedData);
    return cipher;
  }
}
