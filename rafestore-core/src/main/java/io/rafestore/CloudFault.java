package io.rafestore;

import java.util.Objects;

/**
 * One observation that a cloud failed or misbehaved during an operation. Reported to {@link
 * RafeStoreListener#cloudFault} and carried by exceptions, so operators can see which cloud is
 * faulty even when the operation succeeded.
 *
 * @param cloudId the cloud
 * @param kind what went wrong
 * @param detail a human-readable detail (object name, error message)
 */
public record CloudFault(String cloudId, Kind kind, String detail) {
  /** What a cloud did wrong. */
  public enum Kind {
    /** A request failed (unreachable, throttled, refused, ...). */
    ERROR,
    /** Metadata that does not parse, is oversized, or is for another key or writer. */
    MALFORMED_METADATA,
    /** Metadata whose signature does not verify under the trusted writer's key. */
    BAD_SIGNATURE,
    /** Metadata older than what other clouds returned (a replayed or stale log). */
    STALE_METADATA,
    /** A data object that the signed metadata says the cloud holds is missing. */
    MISSING_DATA,
    /** A data object whose bytes do not match the signed size and SHA-256. */
    CORRUPT_DATA
  }

  public CloudFault {
    Objects.requireNonNull(cloudId, "cloudId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(detail, "detail");
  }
}
