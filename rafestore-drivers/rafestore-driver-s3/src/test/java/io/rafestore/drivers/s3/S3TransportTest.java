package io.rafestore.drivers.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The {@code transport} option and its system-property default (no request is sent). */
class S3TransportTest {
  private static final CloudSpec SPEC =
      CloudSpec.of("s0", "s3")
          .withBucket("b")
          .withEndpoint("http://127.0.0.1:1")
          .withRegion("us-east-1")
          .withOption("pathStyle", "true");

  @AfterEach
  void clearProperty() {
    System.clearProperty(S3DriverProvider.TRANSPORT_PROPERTY);
  }

  private static S3Cloud.Transport transportOf(CloudSpec spec) {
    try (CloudDriver d = Drivers.create(spec)) {
      return ((S3Cloud) d).transport();
    }
  }

  @Test
  void nettyByDefault() {
    assertThat(transportOf(SPEC)).isEqualTo(S3Cloud.Transport.NETTY);
  }

  @Test
  void theOptionChooses() {
    assertThat(transportOf(SPEC.withOption("transport", "apache")))
        .isEqualTo(S3Cloud.Transport.APACHE);
    assertThat(transportOf(SPEC.withOption("transport", "Netty")))
        .isEqualTo(S3Cloud.Transport.NETTY);
  }

  @Test
  void thePropertyIsTheDefaultAndTheOptionWins() {
    System.setProperty(S3DriverProvider.TRANSPORT_PROPERTY, "apache");
    assertThat(transportOf(SPEC)).isEqualTo(S3Cloud.Transport.APACHE);
    assertThat(transportOf(SPEC.withOption("transport", "netty")))
        .isEqualTo(S3Cloud.Transport.NETTY);
  }

  @Test
  void anUnknownTransportIsNamed() {
    assertThatThrownBy(() -> Drivers.create(SPEC.withOption("transport", "okhttp")))
        .hasMessageContaining("transport must be netty or apache, was okhttp");
  }
}
