package io.rafestore.internal.protocol.trust;

import io.rafestore.WriterCertificate;
import io.rafestore.WriterTrustException;
import io.rafestore.WriterTrustException.Reason;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import java.security.PublicKey;
import java.time.Instant;
import java.util.Objects;

/**
 * Whether a writer's logs are accepted: trusted under {@link #key} (explicitly, or by {@link
 * #certificate}), or refused for {@link #refusal}'s reason.
 *
 * @param writerId the writer
 * @param key the key its logs must verify under; null if refused
 * @param certificate the certificate it is trusted by; null if trusted explicitly or refused
 * @param refusal why it is refused; null if trusted
 */
public record Verdict(
    String writerId, PublicKey key, WriterCertificate certificate, WriterTrustException refusal) {
  public Verdict {
    Objects.requireNonNull(writerId, "writerId");
    if ((key == null) == (refusal == null)) {
      throw new IllegalArgumentException("a verdict is either a key or a refusal");
    }
  }

  /** Trusted by configuration. */
  public static Verdict explicit(String writerId, PublicKey key) {
    return new Verdict(writerId, key, null, null);
  }

  /** Trusted by a certificate checked by the caller. */
  public static Verdict certified(WriterCertificate cert) {
    return new Verdict(cert.writerId(), cert.writerKey(), cert, null);
  }

  /** Refused. */
  public static Verdict refused(String writerId, WriterTrustException why) {
    return new Verdict(writerId, null, null, why);
  }

  /** Refused: neither trusted explicitly nor certified. */
  public static Verdict notCertified(String writerId, String detail) {
    return refused(writerId, new WriterTrustException(Reason.NOT_CERTIFIED, writerId, detail));
  }

  public boolean trusted() {
    return refusal == null;
  }

  /**
   * Why a log of this trusted writer is refused, or null if it is accepted: a certified writer's
   * log whose newest entry was created after the certificate expired (a correct writer stops
   * creating entries at its certificate's end, so such a log was made by a writer with a wrong
   * clock, or under a renewed certificate this client has not read yet). The entries' creation
   * times, not the time a log is read, are checked: a writer whose certificate expired keeps its
   * earlier versions readable. Explicit trust has no period.
   */
  public WriterTrustException refuses(MetadataLog log) {
    if (certificate == null) {
      return null;
    }
    long newest = Long.MIN_VALUE;
    for (LogEntry e : log.entries()) {
      newest = Math.max(newest, e.createdAtMillis());
    }
    if (newest > certificate.notAfter().toEpochMilli()) {
      return new WriterTrustException(
          Reason.EXPIRED,
          writerId,
          "log of '"
              + log.key()
              + "' holds an entry created at "
              + Instant.ofEpochMilli(newest)
              + ", after its certificate expired at "
              + certificate.notAfter());
    }
    return null;
  }
}
