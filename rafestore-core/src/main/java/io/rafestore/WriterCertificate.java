package io.rafestore;

import io.rafestore.WriterTrustException.Reason;
import io.rafestore.internal.util.Names;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * An operator's statement that writer id {@link #writerId()} signs with {@link #writerKey()} from
 * {@link #notBefore()} to {@link #notAfter()}: readers that trust the operator key {@link
 * #operatorKeyId()} ({@link RafeStore.Builder#trustOperator}) accept that writer's logs without
 * being configured with its key. A writer carries its certificate ({@link
 * RafeStore.Builder#writerCertificate}) and publishes it on the clouds before its first write;
 * design.md section 4, "Writer certificates", has the rules.
 *
 * <p>Wire format (version 1), big-endian, canonical (one encoding per certificate; the parser
 * rejects anything else, trailing bytes included):
 *
 * <pre>
 * magic "RFSC" | format u8 = 1 | writer u8+ASCII | key u8 = 32 | raw Ed25519 public key [32] |
 * notBefore i64 ms | notAfter i64 ms | issuedAt i64 ms | operator u8+ASCII |
 * sig algorithm u8 = 1 | sig length u8 = 64 | operator's signature over all preceding bytes
 * </pre>
 *
 * <p>Immutable and thread-safe. Times are whole milliseconds since the epoch.
 */
public final class WriterCertificate {
  static final byte[] MAGIC = {'R', 'F', 'S', 'C'};

  /** The format version this code writes and reads. */
  public static final int FORMAT = 1;

  /** Header line of the text form ({@link #toText}). */
  public static final String TEXT_HEADER = "rafestore-writer-certificate/1";

  /** Largest encoding: every length at its bound. */
  public static final int MAX_BYTES = 4 + 1 + 1 + 64 + 1 + 32 + 24 + 1 + 64 + 2 + 64;

  private final String writerId;
  private final PublicKey writerKey;
  private final byte[] rawKey;
  private final Instant notBefore;
  private final Instant notAfter;
  private final Instant issuedAt;
  private final String operatorKeyId;
  private final byte[] encoded;
  private final int bodyLength;
  private final byte[] signature;

  private WriterCertificate(
      String writerId,
      PublicKey writerKey,
      byte[] rawKey,
      Instant notBefore,
      Instant notAfter,
      Instant issuedAt,
      String operatorKeyId,
      byte[] encoded,
      int bodyLength,
      byte[] signature) {
    this.writerId = writerId;
    this.writerKey = writerKey;
    this.rawKey = rawKey;
    this.notBefore = notBefore;
    this.notAfter = notAfter;
    this.issuedAt = issuedAt;
    this.operatorKeyId = operatorKeyId;
    this.encoded = encoded;
    this.bodyLength = bodyLength;
    this.signature = signature;
  }

  /**
   * Issues (signs) a certificate.
   *
   * @param writerId the writer id (1-64 of A-Z a-z 0-9 - _)
   * @param writerKey the writer's Ed25519 public key
   * @param notBefore first instant the writer may write (whole milliseconds are kept)
   * @param notAfter last instant the writer may write; after {@code notBefore}
   * @param issuedAt when it is issued: of two valid certificates of one writer, readers take the
   *     one issued later
   * @param operatorKeyId the id readers know the operator key by
   * @param operatorKey the operator's Ed25519 private key
   * @throws IllegalArgumentException naming the argument that is not acceptable
   */
  public static WriterCertificate issue(
      String writerId,
      PublicKey writerKey,
      Instant notBefore,
      Instant notAfter,
      Instant issuedAt,
      String operatorKeyId,
      PrivateKey operatorKey) {
    try {
      Names.checkWriterId(writerId);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("writerId: " + e.getMessage(), e);
    }
    byte[] raw = SignedForms.rawKey(writerKey, "writerKey");
    Objects.requireNonNull(notBefore, "notBefore");
    Objects.requireNonNull(notAfter, "notAfter");
    Objects.requireNonNull(issuedAt, "issuedAt");
    Objects.requireNonNull(operatorKey, "operatorKey");
    SignedForms.checkOperatorId(operatorKeyId);
    long nb = notBefore.toEpochMilli();
    long na = notAfter.toEpochMilli();
    if (na <= nb) {
      throw new IllegalArgumentException(
          "notAfter (" + notAfter + ") must be after notBefore (" + notBefore + ")");
    }
    byte[] enc =
        new SignedForms.Out()
            .bytes(MAGIC)
            .u8(FORMAT)
            .id(writerId)
            .u8(SignedForms.RAW_KEY_BYTES)
            .bytes(raw)
            .i64(nb)
            .i64(na)
            .i64(issuedAt.toEpochMilli())
            .id(operatorKeyId)
            .signed(operatorKey);
    try {
      return decode(enc);
    } catch (WriterTrustException e) {
      throw new IllegalStateException("a certificate just encoded does not parse", e);
    }
  }

  /**
   * Parses an encoding (bytes a cloud or a file returned: hostile). Checks the form only; {@link
   * #verify} checks the signature.
   *
   * @throws WriterTrustException {@link Reason#MALFORMED}, saying what is wrong
   */
  public static WriterCertificate decode(byte[] bytes) throws WriterTrustException {
    Objects.requireNonNull(bytes, "bytes");
    SignedForms.In in = new SignedForms.In(bytes, "writer certificate");
    if (bytes.length > MAX_BYTES) {
      throw in.malformed(bytes.length + " bytes, over " + MAX_BYTES);
    }
    in.magic(MAGIC);
    int format = in.u8("format");
    if (format != FORMAT) {
      throw in.malformed("unknown format " + format);
    }
    String writer = in.id("writer id");
    int keyLen = in.u8("key length");
    if (keyLen != SignedForms.RAW_KEY_BYTES) {
      throw in.malformed("key length " + keyLen + ", not " + SignedForms.RAW_KEY_BYTES);
    }
    byte[] raw = in.bytes(keyLen, "key");
    long nb = in.i64("notBefore");
    long na = in.i64("notAfter");
    long issued = in.i64("issuedAt");
    String op = in.id("operator key id");
    int body = in.position();
    byte[] sig = in.signature();
    if (na <= nb) {
      throw in.malformed("notAfter is not after notBefore");
    }
    PublicKey key;
    try {
      key = SignedForms.publicKey(raw);
    } catch (GeneralSecurityException | RuntimeException e) {
      throw in.malformed("not an Ed25519 public key");
    }
    return new WriterCertificate(
        writer,
        key,
        raw,
        Instant.ofEpochMilli(nb),
        Instant.ofEpochMilli(na),
        Instant.ofEpochMilli(issued),
        op,
        bytes.clone(),
        body,
        sig);
  }

  /**
   * Checks the operator's signature under the key {@code operators} maps {@link #operatorKeyId} to.
   *
   * @throws WriterTrustException {@link Reason#UNKNOWN_OPERATOR} if the id is not there, {@link
   *     Reason#BAD_SIGNATURE} if the signature does not verify
   */
  public void verify(Map<String, PublicKey> operators) throws WriterTrustException {
    PublicKey op = operators.get(operatorKeyId);
    if (op == null) {
      throw new WriterTrustException(
          Reason.UNKNOWN_OPERATOR,
          writerId,
          "certificate signed by operator key '"
              + operatorKeyId
              + "', which this client does not trust (trusted: "
              + new java.util.TreeSet<>(operators.keySet())
              + ")");
    }
    if (!SignedForms.verify(encoded, bodyLength, signature, op)) {
      throw new WriterTrustException(
          Reason.BAD_SIGNATURE,
          writerId,
          "certificate's signature does not verify under operator key '" + operatorKeyId + "'");
    }
  }

  /**
   * Checks that {@code instant} is within the validity period.
   *
   * @throws WriterTrustException {@link Reason#NOT_YET_VALID} or {@link Reason#EXPIRED}
   */
  public void checkValidAt(Instant instant) throws WriterTrustException {
    if (instant.isBefore(notBefore)) {
      throw new WriterTrustException(
          Reason.NOT_YET_VALID,
          writerId,
          "certificate valid from " + notBefore + ", it is " + instant);
    }
    if (instant.isAfter(notAfter)) {
      throw new WriterTrustException(
          Reason.EXPIRED, writerId, "certificate expired at " + notAfter + ", it is " + instant);
    }
  }

  /**
   * Whether this certificate replaces {@code other} (the same writer's): issued later, then ending
   * later, then by encoding, so every reader picks the same one of any set.
   */
  public boolean newerThan(WriterCertificate other) {
    int c = issuedAt.compareTo(other.issuedAt);
    if (c == 0) {
      c = notAfter.compareTo(other.notAfter);
    }
    if (c == 0) {
      c = Arrays.compare(encoded, other.encoded);
    }
    return c > 0;
  }

  /** Whether this certificate certifies exactly {@code key}. */
  public boolean certifies(PublicKey key) {
    try {
      return Arrays.equals(rawKey, SignedForms.rawKey(key, "key"));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  public String writerId() {
    return writerId;
  }

  public PublicKey writerKey() {
    return writerKey;
  }

  public Instant notBefore() {
    return notBefore;
  }

  public Instant notAfter() {
    return notAfter;
  }

  public Instant issuedAt() {
    return issuedAt;
  }

  public String operatorKeyId() {
    return operatorKeyId;
  }

  /** The format version (1). */
  public int format() {
    return FORMAT;
  }

  /** The canonical encoding (a copy). */
  public byte[] encoded() {
    return encoded.clone();
  }

  /** The text form for files: a comment, {@link #TEXT_HEADER}, Base64 of {@link #encoded}. */
  public String toText() {
    return SignedForms.toText(
        "RafeStore writer certificate: writer "
            + writerId
            + ", operator "
            + operatorKeyId
            + ", valid "
            + notBefore
            + " to "
            + notAfter,
        TEXT_HEADER,
        encoded);
  }

  /**
   * Parses {@link #toText} text.
   *
   * @throws WriterTrustException {@link Reason#MALFORMED}
   */
  public static WriterCertificate parseText(String text) throws WriterTrustException {
    return decode(SignedForms.fromText(text, TEXT_HEADER, "writer certificate"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WriterCertificate c && Arrays.equals(encoded, c.encoded);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(encoded);
  }

  @Override
  public String toString() {
    return "WriterCertificate[writer="
        + writerId
        + ", operator="
        + operatorKeyId
        + ", valid "
        + notBefore
        + " to "
        + notAfter
        + ", issued "
        + issuedAt
        + "]";
  }
}
