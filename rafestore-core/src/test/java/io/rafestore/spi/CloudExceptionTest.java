package io.rafestore.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** CloudException's kinds and its cheap "not found". */
class CloudExceptionTest {
  @Test
  void notFoundIsAStacklessNotFoundCloudException() {
    CloudException e = CloudException.notFound("c0", ObjectKey.of("m/k/alice"));
    assertThat(e).isInstanceOf(CloudException.class);
    assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
    assertThat(e.isRetryable()).isFalse();
    assertThat(e.cloudId()).isEqualTo("c0");
    assertThat(e.getMessage()).isEqualTo("cloud c0 not_found: no object m/k/alice");
    // An answer, not a fault: no stack trace is filled in (it cost more than the request).
    assertThat(e.getStackTrace()).isEmpty();
  }

  @Test
  void otherFailuresKeepTheirStackTrace() {
    CloudException e = new CloudException("c0", CloudException.Kind.UNAVAILABLE, "down");
    assertThat(e.getStackTrace()).isNotEmpty();
    assertThat(e.isRetryable()).isTrue();
  }
}
