package io.rafestore.spi.support;

import io.rafestore.spi.CloudException.Kind;

/** The one mapping from an HTTP answer to a {@link Kind}, shared by the HTTP-based drivers. */
public final class HttpKinds {
  private HttpKinds() {}

  /**
   * The kind of a failed request: 404 is NOT_FOUND, 401/403 UNAUTHORIZED, 429 and 503 with a
   * throttling code ({@code SlowDown}, {@code ServerBusy}, ...) THROTTLED, 408 and other 5xx
   * UNAVAILABLE, anything else OTHER.
   *
   * @param errorCode the service's error code, or null
   */
  public static Kind forStatus(int status, String errorCode) {
    String code = errorCode == null ? "" : errorCode;
    if (status == 404) {
      return Kind.NOT_FOUND;
    }
    if (status == 401 || status == 403) {
      return Kind.UNAUTHORIZED;
    }
    if (status == 429
        || code.equals("SlowDown")
        || code.equals("ServerBusy")
        || code.equals("Throttling")
        || code.equals("RequestLimitExceeded")
        || code.equals("TooManyRequests")) {
      return Kind.THROTTLED;
    }
    if (status == 408 || status >= 500) {
      return Kind.UNAVAILABLE;
    }
    return Kind.OTHER;
  }
}
