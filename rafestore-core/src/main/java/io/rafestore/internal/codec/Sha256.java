package io.rafestore.internal.codec;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/** SHA-256 one-shot hashing and constant-time comparison of digests. Stateless and thread-safe. */
public final class Sha256 {
  /** Length of a digest. */
  public static final int BYTES = 32;

  private Sha256() {}

  /** The SHA-256 digest of {@code data}. */
  public static byte[] hash(byte[] data) {
    Objects.requireNonNull(data, "data");
    return hash(data, 0, data.length);
  }

  /** The SHA-256 digest of {@code data[off..off+len)}. */
  public static byte[] hash(byte[] data, int off, int len) {
    Objects.checkFromIndexSize(off, len, data.length);
    MessageDigest digest = newDigest();
    digest.update(data, off, len);
    return digest.digest();
  }

  /**
   * Whether two digests are equal, in time that depends only on their lengths, so a cloud probing
   * with forged digests learns nothing from timing. Null equals only null.
   */
  public static boolean equal(byte[] a, byte[] b) {
    return MessageDigest.isEqual(a, b);
  }

  /** Whether {@code data} hashes to {@code expected}, compared in constant time. */
  public static boolean matches(byte[] data, byte[] expected) {
    return expected != null && equal(hash(data), expected);
  }

  /**
   * A fresh digest to copy: cloning one costs a small array copy, where {@code getInstance} looks
   * the algorithm up among the providers on every call (a few percent of a small write's CPU). Null
   * if the provider's digest cannot be cloned.
   */
  private static final MessageDigest PROTOTYPE = prototype();

  private static MessageDigest prototype() {
    try {
      MessageDigest d = getInstance();
      d.clone();
      return d;
    } catch (CloneNotSupportedException e) {
      return null;
    }
  }

  private static MessageDigest newDigest() {
    if (PROTOTYPE != null) {
      try {
        return (MessageDigest) PROTOTYPE.clone();
      } catch (CloneNotSupportedException e) {
        // Not after the check above; fall through to a look-up.
      }
    }
    return getInstance();
  }

  private static MessageDigest getInstance() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      // SHA-256 is mandatory in every Java SE platform.
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
  }
}
