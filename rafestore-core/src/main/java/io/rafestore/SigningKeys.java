package io.rafestore;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

/**
 * Ed25519 keys for writers: generation and a text form (Base64 of the standard X.509 / PKCS#8
 * encodings) for configuration files. Uses only the JDK's own Ed25519. Thread-safe.
 */
public final class SigningKeys {
  private SigningKeys() {}

  /** A new random Ed25519 key pair. */
  public static KeyPair generate() {
    try {
      return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no Ed25519", e);
    }
  }

  /** Base64 text of a public key. */
  public static String encodePublic(PublicKey key) {
    return Base64.getEncoder().encodeToString(key.getEncoded());
  }

  /** Base64 text of a private key. Keep it secret. */
  public static String encodePrivate(PrivateKey key) {
    return Base64.getEncoder().encodeToString(key.getEncoded());
  }

  /**
   * Parses {@link #encodePublic} text.
   *
   * @throws IllegalArgumentException if it is not a Base64 Ed25519 public key
   */
  public static PublicKey decodePublic(String base64) {
    try {
      return KeyFactory.getInstance("Ed25519")
          .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64.strip())));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not a Base64 X.509 Ed25519 public key", e);
    }
  }

  /**
   * Parses {@link #encodePrivate} text.
   *
   * @throws IllegalArgumentException if it is not a Base64 Ed25519 private key
   */
  public static PrivateKey decodePrivate(String base64) {
    try {
      return KeyFactory.getInstance("Ed25519")
          .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64.strip())));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not a Base64 PKCS#8 Ed25519 private key", e);
    }
  }
}
