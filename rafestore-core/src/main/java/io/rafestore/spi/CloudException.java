package io.rafestore.spi;

import io.rafestore.RafeStoreException;
import java.util.Objects;

/**
 * A request to one cloud failed. Drivers complete their futures exceptionally with this type (never
 * return {@code null} or {@code false} for failure), naming the cloud and saying whether a retry
 * could help.
 */
public class CloudException extends RafeStoreException {
  private static final long serialVersionUID = 1L;

  /** What kind of failure, as far as the driver can tell from its SDK. */
  public enum Kind {
    /** The object does not exist. Not retryable. */
    NOT_FOUND(false),
    /** Credentials were rejected or lack permission. Not retryable. */
    UNAUTHORIZED(false),
    /** The cloud asked us to slow down (HTTP 429/503 SlowDown and the like). Retryable later. */
    THROTTLED(true),
    /** The cloud could not be reached or answered with a server error or timed out. Retryable. */
    UNAVAILABLE(true),
    /** The request was cancelled by the caller. Not retryable. */
    CANCELLED(false),
    /** Anything else (bad request, unexpected response). Not retryable. */
    OTHER(false);

    private final boolean retryable;

    Kind(boolean retryable) {
      this.retryable = retryable;
    }

    /** Whether repeating the same request later could succeed. */
    public boolean retryable() {
      return retryable;
    }
  }

  private final String cloudId;
  private final Kind kind;

  public CloudException(String cloudId, Kind kind, String message) {
    this(cloudId, kind, message, null);
  }

  public CloudException(String cloudId, Kind kind, String message, Throwable cause) {
    super(
        "cloud " + cloudId + " " + kind.name().toLowerCase(java.util.Locale.ROOT) + ": " + message,
        cause);
    this.cloudId = Objects.requireNonNull(cloudId, "cloudId");
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** The id of the cloud that failed. */
  public String cloudId() {
    return cloudId;
  }

  /** The failure's kind. */
  public Kind kind() {
    return kind;
  }

  /** Whether repeating the request later could succeed. */
  public boolean isRetryable() {
    return kind.retryable();
  }

  /**
   * Convenience for {@code NOT_FOUND}, without a stack trace: an object's absence is an answer
   * (every readM of a key that a trusted writer never wrote gets one per cloud), not a fault to
   * trace, and filling in the stack was a large part of such a read's CPU.
   */
  public static CloudException notFound(String cloudId, ObjectKey key) {
    return new NotFound(cloudId, "no object " + key);
  }

  /** A {@code NOT_FOUND} that skips filling in its stack trace. */
  private static final class NotFound extends CloudException {
    private static final long serialVersionUID = 1L;

    NotFound(String cloudId, String message) {
      super(cloudId, Kind.NOT_FOUND, message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
