package io.rafestore.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.spi.CloudException.Kind;
import org.junit.jupiter.api.Test;

class HttpKindsTest {
  @Test
  void mapsStatusesAndThrottlingCodes() {
    assertThat(HttpKinds.forStatus(404, "NoSuchKey")).isEqualTo(Kind.NOT_FOUND);
    assertThat(HttpKinds.forStatus(401, null)).isEqualTo(Kind.UNAUTHORIZED);
    assertThat(HttpKinds.forStatus(403, "AccessDenied")).isEqualTo(Kind.UNAUTHORIZED);
    assertThat(HttpKinds.forStatus(429, null)).isEqualTo(Kind.THROTTLED);
    assertThat(HttpKinds.forStatus(503, "SlowDown")).isEqualTo(Kind.THROTTLED);
    assertThat(HttpKinds.forStatus(503, "ServerBusy")).isEqualTo(Kind.THROTTLED);
    assertThat(HttpKinds.forStatus(503, null)).isEqualTo(Kind.UNAVAILABLE);
    assertThat(HttpKinds.forStatus(500, "InternalError")).isEqualTo(Kind.UNAVAILABLE);
    assertThat(HttpKinds.forStatus(408, null)).isEqualTo(Kind.UNAVAILABLE);
    assertThat(HttpKinds.forStatus(400, "InvalidArgument")).isEqualTo(Kind.OTHER);
  }
}
