package io.rafestore.internal.cloud;

/**
 * The tenant on whose behalf a request is being started, for {@link AccountingCloud} to stamp on
 * its {@link io.rafestore.CloudRequest}. A tenant's door ({@code fairness.TenantDoor}) sets it
 * around the <em>synchronous</em> call that starts a request at the driver below it (the
 * measurement, then the accounting, both of which start their delegate's request in the same call
 * and read this before returning), and restores it in a {@code finally}: it never crosses an
 * asynchronous hop, so it cannot leak to another tenant's request.
 */
public final class RequestTenant {
  private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

  private RequestTenant() {}

  /** The tenant of the request being started on this thread, or the default tenant. */
  public static String current() {
    String t = CURRENT.get();
    return t == null ? io.rafestore.CloudRequest.DEFAULT_TENANT : t;
  }

  /** Runs {@code start} (which starts a request and returns at once) as {@code tenant}'s. */
  public static <T> T as(String tenant, java.util.function.Supplier<T> start) {
    String before = CURRENT.get();
    CURRENT.set(tenant);
    try {
      return start.get();
    } finally {
      if (before == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(before);
      }
    }
  }
}
