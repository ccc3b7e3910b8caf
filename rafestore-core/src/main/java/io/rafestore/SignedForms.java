package io.rafestore;

import io.rafestore.WriterTrustException.Reason;
import io.rafestore.internal.codec.Signatures;
import io.rafestore.internal.util.Names;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;

/**
 * The shared pieces of the operator-signed forms ({@link WriterCertificate}, {@link
 * RevocationList}): big-endian writing, a reader that checks every length against the bytes left
 * before it allocates, raw Ed25519 public keys, the signature trailer and the text form. Not API.
 */
final class SignedForms {
  private SignedForms() {}

  /** The X.509 DER prefix of every Ed25519 public key (RFC 8410): the 32 raw bytes follow it. */
  private static final byte[] ED25519_X509_PREFIX = {
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
  };

  static final int RAW_KEY_BYTES = 32;

  /** Signature algorithm byte: Ed25519, as in signed metadata. */
  static final int SIG_ED25519 = 1;

  /** The 32 raw bytes of an Ed25519 public key of any provider. */
  static byte[] rawKey(PublicKey key, String what) {
    byte[] enc = key == null ? null : key.getEncoded();
    if (enc == null
        || enc.length != ED25519_X509_PREFIX.length + RAW_KEY_BYTES
        || !Arrays.equals(
            enc,
            0,
            ED25519_X509_PREFIX.length,
            ED25519_X509_PREFIX,
            0,
            ED25519_X509_PREFIX.length)) {
      throw new IllegalArgumentException(what + ": not an Ed25519 public key");
    }
    return Arrays.copyOfRange(enc, ED25519_X509_PREFIX.length, enc.length);
  }

  /** The JDK public key of 32 raw Ed25519 bytes. */
  static PublicKey publicKey(byte[] raw) throws GeneralSecurityException {
    byte[] enc = Arrays.copyOf(ED25519_X509_PREFIX, ED25519_X509_PREFIX.length + RAW_KEY_BYTES);
    System.arraycopy(raw, 0, enc, ED25519_X509_PREFIX.length, RAW_KEY_BYTES);
    return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(enc));
  }

  /** Checks an operator key id: the same rules as a writer id (1-64 of A-Z a-z 0-9 - _). */
  static String checkOperatorId(String id) {
    try {
      return Names.checkWriterId(id);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "operator key id: " + e.getMessage().replace("writer id", "id"), e);
    }
  }

  /** Big-endian writer of a form's body. */
  static final class Out {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(128);

    Out bytes(byte[] b) {
      out.writeBytes(b);
      return this;
    }

    Out u8(int v) {
      out.write(v);
      return this;
    }

    Out i64(long v) {
      for (int s = 56; s >= 0; s -= 8) {
        out.write((int) (v >>> s));
      }
      return this;
    }

    Out u32(int v) {
      for (int s = 24; s >= 0; s -= 8) {
        out.write(v >>> s);
      }
      return this;
    }

    /** A short ASCII string (an id), u8 length first. */
    Out id(String s) {
      byte[] b = s.getBytes(StandardCharsets.US_ASCII);
      return u8(b.length).bytes(b);
    }

    /** The body followed by the Ed25519 signature trailer, signed with {@code key}. */
    byte[] signed(PrivateKey key) {
      byte[] body = out.toByteArray();
      byte[] sig = Signatures.fast().sign(body, body.length, key);
      out.write(SIG_ED25519);
      out.write(sig.length);
      out.writeBytes(sig);
      return out.toByteArray();
    }
  }

  /**
   * Reader of hostile bytes: every read checks the bytes left first and fails with {@link
   * Reason#MALFORMED}; nothing is allocated beyond what the input holds.
   */
  static final class In {
    private final byte[] b;
    private int pos;
    private final String what;

    In(byte[] b, String what) {
      this.b = b;
      this.what = what;
    }

    int position() {
      return pos;
    }

    int left() {
      return b.length - pos;
    }

    WriterTrustException malformed(String problem) {
      return new WriterTrustException(Reason.MALFORMED, null, what + ": " + problem);
    }

    private void need(int n, String field) throws WriterTrustException {
      if (n < 0 || n > left()) {
        throw malformed(field + " needs " + n + " bytes, " + left() + " left");
      }
    }

    void magic(byte[] magic) throws WriterTrustException {
      need(magic.length, "magic");
      if (!Arrays.equals(b, pos, pos + magic.length, magic, 0, magic.length)) {
        throw malformed("wrong magic (not this kind of object)");
      }
      pos += magic.length;
    }

    int u8(String field) throws WriterTrustException {
      need(1, field);
      return b[pos++] & 0xff;
    }

    int u32(String field) throws WriterTrustException {
      need(4, field);
      int v = 0;
      for (int i = 0; i < 4; i++) {
        v = (v << 8) | (b[pos++] & 0xff);
      }
      return v;
    }

    long i64(String field) throws WriterTrustException {
      need(8, field);
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | (b[pos++] & 0xff);
      }
      return v;
    }

    byte[] bytes(int n, String field) throws WriterTrustException {
      need(n, field);
      byte[] r = Arrays.copyOfRange(b, pos, pos + n);
      pos += n;
      return r;
    }

    /** An id (u8 length + ASCII) that must pass the writer-id rules. */
    String id(String field) throws WriterTrustException {
      int len = u8(field + " length");
      byte[] raw = bytes(len, field);
      String s = new String(raw, StandardCharsets.US_ASCII);
      try {
        Names.checkWriterId(s);
      } catch (IllegalArgumentException e) {
        throw malformed(field + ": " + e.getMessage());
      }
      return s;
    }

    /**
     * The signature trailer, which must end the input exactly; returns the signature. The body is
     * everything before {@link #position()} at the call.
     */
    byte[] signature() throws WriterTrustException {
      int alg = u8("signature algorithm");
      if (alg != SIG_ED25519) {
        throw malformed("unknown signature algorithm " + alg);
      }
      int len = u8("signature length");
      if (len != Signatures.SIGNATURE_BYTES) {
        throw malformed("signature length " + len + ", not " + Signatures.SIGNATURE_BYTES);
      }
      byte[] sig = bytes(len, "signature");
      if (left() != 0) {
        throw malformed(left() + " trailing bytes after the signature");
      }
      return sig;
    }
  }

  /** Whether {@code sig} is {@code key}'s over {@code encoded[0..bodyLength)}. */
  static boolean verify(byte[] encoded, int bodyLength, byte[] sig, PublicKey key) {
    return Signatures.fast().verify(encoded, bodyLength, sig, key);
  }

  /** The text form: a comment, a header line naming the form, then Base64 of the bytes. */
  static String toText(String title, String header, byte[] encoded) {
    return "# "
        + title
        + "\n"
        + header
        + "\n"
        + Base64.getMimeEncoder(76, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(encoded)
        + "\n";
  }

  /** Parses {@link #toText}: comment and blank lines skipped, the header checked, Base64 joined. */
  static byte[] fromText(String text, String header, String what) throws WriterTrustException {
    StringBuilder b64 = new StringBuilder();
    boolean sawHeader = false;
    for (String line : text.split("\n", -1)) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      if (!sawHeader) {
        if (!l.equals(header)) {
          throw new WriterTrustException(
              Reason.MALFORMED, null, what + ": first line must be '" + header + "'");
        }
        sawHeader = true;
        continue;
      }
      b64.append(l);
    }
    if (!sawHeader || b64.length() == 0) {
      throw new WriterTrustException(Reason.MALFORMED, null, what + ": no '" + header + "' body");
    }
    if (b64.length() > 1 << 24) {
      throw new WriterTrustException(Reason.MALFORMED, null, what + ": too long");
    }
    try {
      return Base64.getDecoder().decode(b64.toString());
    } catch (IllegalArgumentException e) {
      throw new WriterTrustException(Reason.MALFORMED, null, what + ": not Base64");
    }
  }
}
