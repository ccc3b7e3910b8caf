package io.rafestore.internal.codec;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.PublicKeyFactory;

/**
 * Ed25519 (RFC 8032, pure, no context) signatures of metadata logs, on byte arrays.
 *
 * <p>Two implementations, one signature: Ed25519 is deterministic, so every correct implementation
 * makes the same 64 bytes for one key and message, and logs signed by one verify under the other.
 *
 * <ul>
 *   <li>{@link #fast()}, the default: BouncyCastle's low-level Ed25519 ({@code
 *       org.bouncycastle.crypto.params}) on the raw 32-byte keys. A key is decoded once (its public
 *       point precomputed) and kept, by the {@link Key} object, in a small cache; then signing and
 *       verifying are the arithmetic alone, with no provider look-up, key translation or message
 *       buffering per call. JDK 17's own Ed25519 (SunEC) is a reference implementation about ten
 *       times slower (docs/benchmarks.md, {@code Ed25519Benchmark}).
 *   <li>{@link #jca(Provider)}: {@code java.security.Signature} "Ed25519" of a given JCA provider,
 *       for a user who passes one ({@code Builder.signatureProvider}); its keys must be that
 *       provider's (the settings translate them once).
 * </ul>
 *
 * <p>Both reject a signature whose scalar is not reduced or whose point does not decode (RFC 8032
 * section 5.1.7), so neither accepts a second encoding of a signature the other rejects for these
 * reasons. Thread-safe.
 */
public abstract class Signatures {
  /** Length of an Ed25519 signature. */
  public static final int SIGNATURE_BYTES = 64;

  Signatures() {}

  /** BouncyCastle's low-level Ed25519: the default. */
  public static Signatures fast() {
    return Fast.INSTANCE;
  }

  /** {@code provider}'s JCA Ed25519 (null: the default {@link #fast()}). */
  public static Signatures of(Provider provider) {
    return provider == null ? fast() : jca(provider);
  }

  /** {@code provider}'s JCA Ed25519. */
  public static Signatures jca(Provider provider) {
    return new Jca(Objects.requireNonNull(provider, "provider"));
  }

  /**
   * The signature of {@code message[0..length)} under {@code key}.
   *
   * @throws IllegalStateException if the key cannot sign (not an Ed25519 key of this kind)
   */
  public abstract byte[] sign(byte[] message, int length, PrivateKey key);

  /**
   * Whether {@code signature} is {@code key}'s over {@code message[0..length)}. False, never an
   * exception, for any malformed signature or unusable key.
   */
  public abstract boolean verify(byte[] message, int length, byte[] signature, PublicKey key);

  /**
   * Checks once, at build, that {@code key} can be used here (decoding it, for the default), so a
   * bad key is refused with the setting's name rather than on the first operation.
   *
   * @throws IllegalArgumentException if it cannot
   */
  public abstract void check(Key key);

  /** BouncyCastle's Ed25519 on raw keys, each key decoded once. */
  private static final class Fast extends Signatures {
    static final Fast INSTANCE = new Fast();

    /**
     * Keys decoded so far, by their JCA object: a client uses its own key and those of the writers
     * it trusts, so this stays small; it is cleared if it ever grows past the bound (a process
     * verifying logs of very many writers).
     */
    private final ConcurrentHashMap<Key, AsymmetricKeyParameter> decoded =
        new ConcurrentHashMap<>();

    private static final int DECODED_LIMIT = 4096;

    @Override
    public byte[] sign(byte[] message, int length, PrivateKey key) {
      Objects.checkFromIndexSize(0, length, message.length);
      Ed25519PrivateKeyParameters k;
      try {
        k = (Ed25519PrivateKeyParameters) decode(key);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("cannot sign with this key: " + e.getMessage(), e);
      }
      byte[] sig = new byte[SIGNATURE_BYTES];
      k.sign(
          org.bouncycastle.math.ec.rfc8032.Ed25519.Algorithm.Ed25519,
          null,
          message,
          0,
          length,
          sig,
          0);
      return sig;
    }

    @Override
    public boolean verify(byte[] message, int length, byte[] signature, PublicKey key) {
      if (signature.length != SIGNATURE_BYTES || length < 0 || length > message.length) {
        return false;
      }
      Ed25519PublicKeyParameters k;
      try {
        k = (Ed25519PublicKeyParameters) decode(key);
      } catch (IllegalArgumentException e) {
        return false;
      }
      return k.verify(
          org.bouncycastle.math.ec.rfc8032.Ed25519.Algorithm.Ed25519,
          null,
          message,
          0,
          length,
          signature,
          0);
    }

    @Override
    public void check(Key key) {
      decode(key);
    }

    private AsymmetricKeyParameter decode(Key key) {
      AsymmetricKeyParameter k = decoded.get(key);
      if (k != null) {
        return k;
      }
      k = parse(key);
      if (decoded.size() >= DECODED_LIMIT) {
        decoded.clear();
      }
      decoded.put(key, k);
      return k;
    }

    /** The raw key inside a JCA key's standard encoding (PKCS#8 or X.509), of any provider. */
    private static AsymmetricKeyParameter parse(Key key) {
      byte[] encoded = key.getEncoded();
      if (encoded == null) {
        throw new IllegalArgumentException("the key has no encoding");
      }
      AsymmetricKeyParameter k;
      try {
        k =
            key instanceof PrivateKey
                ? PrivateKeyFactory.createKey(encoded)
                : PublicKeyFactory.createKey(encoded);
      } catch (java.io.IOException | RuntimeException e) {
        throw new IllegalArgumentException("not an Ed25519 key: " + e, e);
      }
      if (!(k instanceof Ed25519PrivateKeyParameters)
          && !(k instanceof Ed25519PublicKeyParameters)) {
        throw new IllegalArgumentException("not an Ed25519 key: " + k.getClass().getSimpleName());
      }
      return k;
    }
  }

  /** A JCA provider's Ed25519. */
  private static final class Jca extends Signatures {
    private final Provider provider;

    Jca(Provider provider) {
      this.provider = provider;
    }

    private Signature ed25519() throws GeneralSecurityException {
      return Signature.getInstance("Ed25519", provider);
    }

    @Override
    public byte[] sign(byte[] message, int length, PrivateKey key) {
      try {
        Signature s = ed25519();
        s.initSign(key);
        s.update(message, 0, length);
        return s.sign();
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("cannot sign with this key: " + e, e);
      }
    }

    @Override
    public boolean verify(byte[] message, int length, byte[] signature, PublicKey key) {
      try {
        Signature s = ed25519();
        s.initVerify(key);
        s.update(message, 0, length);
        return s.verify(signature);
      } catch (GeneralSecurityException | RuntimeException e) {
        return false;
      }
    }

    @Override
    public void check(Key key) {
      try {
        Signature s = ed25519();
        if (key instanceof PrivateKey p) {
          s.initSign(p);
        } else {
          s.initVerify((PublicKey) key);
        }
      } catch (GeneralSecurityException | RuntimeException e) {
        throw new IllegalArgumentException(
            provider.getName() + " cannot use this key: " + e.getMessage(), e);
      }
    }
  }
}
