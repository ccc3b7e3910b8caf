package io.rafestore;

import io.rafestore.WriterTrustException.Reason;
import io.rafestore.internal.util.Names;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * An operator's list of revoked writer ids, with a sequence number that grows by one (at least)
 * with each list the operator publishes. Kept on the clouds like metadata (object {@code
 * r/<operatorKeyId>}: written to every cloud, read from a quorum, the highest valid sequence wins);
 * a reader remembers the highest sequence it has seen, so a faulty cloud that replays an older list
 * cannot undo a revocation the reader knows of. A revoked writer id stays revoked: a later list
 * must contain every id of the earlier ones ({@link RafeStore#publishRevocations} checks it).
 * Design.md section 4, "Writer certificates".
 *
 * <p>Wire format (version 1), big-endian, canonical:
 *
 * <pre>
 * magic "RFSR" | format u8 = 1 | operator u8+ASCII | sequence i64 (&gt;= 1) | issuedAt i64 ms |
 * count u32 | writer ids, each u8+ASCII, strictly increasing (ASCII order) |
 * sig algorithm u8 = 1 | sig length u8 = 64 | operator's signature over all preceding bytes
 * </pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class RevocationList {
  static final byte[] MAGIC = {'R', 'F', 'S', 'R'};

  /** The format version this code writes and reads. */
  public static final int FORMAT = 1;

  /** Header line of the text form. */
  public static final String TEXT_HEADER = "rafestore-revocation-list/1";

  /** Most writer ids one list holds. */
  public static final int MAX_WRITERS = 100_000;

  private final String operatorKeyId;
  private final long sequence;
  private final Instant issuedAt;
  private final SortedSet<String> revoked;
  private final byte[] encoded;
  private final int bodyLength;
  private final byte[] signature;

  private RevocationList(
      String operatorKeyId,
      long sequence,
      Instant issuedAt,
      SortedSet<String> revoked,
      byte[] encoded,
      int bodyLength,
      byte[] signature) {
    this.operatorKeyId = operatorKeyId;
    this.sequence = sequence;
    this.issuedAt = issuedAt;
    this.revoked = revoked;
    this.encoded = encoded;
    this.bodyLength = bodyLength;
    this.signature = signature;
  }

  /**
   * Issues (signs) a list.
   *
   * @param operatorKeyId the id readers know the operator key by
   * @param sequence 1 or more, above every list this operator published before
   * @param issuedAt when (informational)
   * @param revoked the revoked writer ids (every one of the previous list, and the new ones)
   * @param operatorKey the operator's Ed25519 private key
   * @throws IllegalArgumentException naming the argument that is not acceptable
   */
  public static RevocationList issue(
      String operatorKeyId,
      long sequence,
      Instant issuedAt,
      Collection<String> revoked,
      PrivateKey operatorKey) {
    SignedForms.checkOperatorId(operatorKeyId);
    if (sequence < 1) {
      throw new IllegalArgumentException("sequence must be >= 1, was " + sequence);
    }
    Objects.requireNonNull(issuedAt, "issuedAt");
    Objects.requireNonNull(operatorKey, "operatorKey");
    TreeSet<String> ids = new TreeSet<>();
    for (String w : revoked) {
      try {
        ids.add(Names.checkWriterId(w));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("revoked: " + e.getMessage(), e);
      }
    }
    if (ids.size() > MAX_WRITERS) {
      throw new IllegalArgumentException(
          "revoked: at most " + MAX_WRITERS + " writer ids, got " + ids.size());
    }
    SignedForms.Out out =
        new SignedForms.Out()
            .bytes(MAGIC)
            .u8(FORMAT)
            .id(operatorKeyId)
            .i64(sequence)
            .i64(issuedAt.toEpochMilli())
            .u32(ids.size());
    for (String w : ids) {
      out.id(w);
    }
    try {
      return decode(out.signed(operatorKey));
    } catch (WriterTrustException e) {
      throw new IllegalStateException("a revocation list just encoded does not parse", e);
    }
  }

  /**
   * Parses an encoding (hostile bytes). Checks the form only; {@link #verify} checks the signature.
   *
   * @throws WriterTrustException {@link Reason#MALFORMED}, saying what is wrong
   */
  public static RevocationList decode(byte[] bytes) throws WriterTrustException {
    Objects.requireNonNull(bytes, "bytes");
    SignedForms.In in = new SignedForms.In(bytes, "revocation list");
    in.magic(MAGIC);
    int format = in.u8("format");
    if (format != FORMAT) {
      throw in.malformed("unknown format " + format);
    }
    String op = in.id("operator key id");
    long seq = in.i64("sequence");
    if (seq < 1) {
      throw in.malformed("sequence " + seq + " < 1");
    }
    long issued = in.i64("issuedAt");
    int count = in.u32("count");
    // Each id takes at least 2 bytes (length and one character): a count the bytes left cannot
    // hold is refused before anything is allocated for it.
    if (count < 0 || count > MAX_WRITERS || count > in.left() / 2) {
      throw in.malformed("count " + Integer.toUnsignedString(count) + " is more than fits");
    }
    TreeSet<String> ids = new TreeSet<>();
    String previous = null;
    for (int i = 0; i < count; i++) {
      String w = in.id("writer id " + i);
      if (previous != null && previous.compareTo(w) >= 0) {
        throw in.malformed("writer ids not strictly increasing at " + i);
      }
      ids.add(w);
      previous = w;
    }
    int body = in.position();
    byte[] sig = in.signature();
    return new RevocationList(op, seq, Instant.ofEpochMilli(issued), ids, bytes.clone(), body, sig);
  }

  /**
   * Checks the operator's signature under the key {@code operators} maps {@link #operatorKeyId} to.
   *
   * @throws WriterTrustException {@link Reason#UNKNOWN_OPERATOR} or {@link Reason#BAD_SIGNATURE}
   */
  public void verify(Map<String, PublicKey> operators) throws WriterTrustException {
    PublicKey op = operators.get(operatorKeyId);
    if (op == null) {
      throw new WriterTrustException(
          Reason.UNKNOWN_OPERATOR,
          null,
          "revocation list of operator key '"
              + operatorKeyId
              + "', which this client does not trust");
    }
    if (!SignedForms.verify(encoded, bodyLength, signature, op)) {
      throw new WriterTrustException(
          Reason.BAD_SIGNATURE,
          null,
          "revocation list's signature does not verify under operator key '" + operatorKeyId + "'");
    }
  }

  /**
   * A list that revokes also {@code more}, one sequence higher, signed with {@code operatorKey}.
   */
  public RevocationList plus(Collection<String> more, Instant issuedAt, PrivateKey operatorKey) {
    List<String> all = new ArrayList<>(revoked);
    all.addAll(more);
    return issue(operatorKeyId, Math.addExact(sequence, 1), issuedAt, all, operatorKey);
  }

  public String operatorKeyId() {
    return operatorKeyId;
  }

  public long sequence() {
    return sequence;
  }

  public Instant issuedAt() {
    return issuedAt;
  }

  /** The revoked writer ids, sorted (an unmodifiable view). */
  public SortedSet<String> revoked() {
    return Collections.unmodifiableSortedSet(revoked);
  }

  /** Whether {@code writerId} is revoked by this list. */
  public boolean revokes(String writerId) {
    return revoked.contains(writerId);
  }

  /** The canonical encoding (a copy). */
  public byte[] encoded() {
    return encoded.clone();
  }

  /** The text form for files. */
  public String toText() {
    return SignedForms.toText(
        "RafeStore revocation list: operator "
            + operatorKeyId
            + ", sequence "
            + sequence
            + ", "
            + revoked.size()
            + " writers",
        TEXT_HEADER,
        encoded);
  }

  /**
   * Parses {@link #toText} text.
   *
   * @throws WriterTrustException {@link Reason#MALFORMED}
   */
  public static RevocationList parseText(String text) throws WriterTrustException {
    return decode(SignedForms.fromText(text, TEXT_HEADER, "revocation list"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RevocationList r && Arrays.equals(encoded, r.encoded);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(encoded);
  }

  @Override
  public String toString() {
    return "RevocationList[operator="
        + operatorKeyId
        + ", sequence="
        + sequence
        + ", revoked="
        + revoked
        + "]";
  }
}
