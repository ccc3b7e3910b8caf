package io.rafestore;

import java.time.Duration;
import java.util.Objects;

/**
 * One request the client made to one cloud, as it ended: reported to {@link
 * RafeStoreListener#cloudRequest} for per-cloud request, byte and latency figures. Parts of a
 * native multipart upload are puts, and starting, completing and aborting one are requests too (as
 * {@link CloudStats} counts them).
 *
 * @param cloudId the cloud
 * @param kind what was asked
 * @param bytes payload bytes sent (a put) or received (a get that succeeded); 0 otherwise
 * @param duration from the request's start to its end, on the client's scheduler
 * @param outcome how it ended
 * @param tenant the tenant on whose behalf the request was made ({@link RafeStore#forTenant});
 *     {@value #DEFAULT_TENANT} for the client itself and for requests no tenant caused (maintenance,
 *     writes replayed from the journal after a restart)
 */
public record CloudRequest(
    String cloudId, Kind kind, long bytes, Duration duration, Outcome outcome, String tenant) {

  /** The tenant of a client not viewed through {@link RafeStore#forTenant}. */
  public static final String DEFAULT_TENANT = "default";

  /** A request of the {@value #DEFAULT_TENANT} tenant. */
  public CloudRequest(String cloudId, Kind kind, long bytes, Duration duration, Outcome outcome) {
    this(cloudId, kind, bytes, duration, outcome, DEFAULT_TENANT);
  }

  /** What a request asked for. */
  public enum Kind {
    PUT,
    GET,
    DELETE,
    LIST
  }

  /** How a request ended. */
  public enum Outcome {
    /** The cloud answered. */
    OK,
    /** The object does not exist (a normal answer to a get of a log never written). */
    NOT_FOUND,
    /** The cloud asked the client to slow down. */
    THROTTLED,
    /** The request timed out (the driver's or its SDK's timeout). */
    TIMEOUT,
    /** The request failed otherwise: unreachable, refused, a server error, ... */
    FAILED,
    /** The client cancelled it because the protocol no longer needed it. */
    CANCELLED
  }

  public CloudRequest {
    Objects.requireNonNull(cloudId, "cloudId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(tenant, "tenant");
  }
}
