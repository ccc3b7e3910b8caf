package io.rafestore.drivers.gcs;

import static io.rafestore.testkit.DriverFailures.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.Drivers;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.ObjectKey;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GcsCloudTest {
  @Test
  void resumableUploadAboveThresholdRoundTrips() throws Exception {
    byte[] big = new byte[3 * 1024 * 1024 + 5];
    new Random(7).nextBytes(big);
    try (GcsCloud d =
        FakeGcsEmulator.fresh(
            FakeGcsEmulator.builder("rs").resumableThreshold(1024 * 1024).chunkSize(1024 * 1024))) {
      d.put(ObjectKey.of("big"), big).get(120, TimeUnit.SECONDS);
      assertThat(d.get(ObjectKey.of("big")).get(60, TimeUnit.SECONDS)).isEqualTo(big);
      assertThat(
              d.get(ObjectKey.of("big"), Optional.of(ByteRange.of(1_000_000, 2_000_000)))
                  .get(60, TimeUnit.SECONDS))
          .isEqualTo(Arrays.copyOfRange(big, 1_000_000, 3_000_000));
    }
  }

  @Test
  void missingBucketIsNotFound() throws Exception {
    try (GcsCloud d = FakeGcsEmulator.builder("nb").bucket("no-such-bucket-rafestore").build()) {
      CloudException e = failure(d.get(ObjectKey.of("k")));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
      assertThat(e.cloudId()).isEqualTo("nb");
    }
  }

  @Test
  void refusedConnectionIsUnavailable() throws Exception {
    try (GcsCloud d =
        GcsCloud.builder("down")
            .endpoint(URI.create("http://127.0.0.1:1"))
            .anonymous(true)
            .projectId("p")
            .bucket("b")
            .maxAttempts(1)
            .connectTimeout(Duration.ofSeconds(2))
            .build()) {
      CloudException e = failure(d.get(ObjectKey.of("k")));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
      assertThat(e.cloudId()).isEqualTo("down");
    }
  }

  @Test
  void builderNamesTheBadSetting() {
    assertThatThrownBy(() -> GcsCloud.builder("g").build()).hasMessageContaining("bucket");
    assertThatThrownBy(() -> GcsCloud.builder("g").bucket("b").chunkSize(1000).build())
        .hasMessageContaining("chunkSize");
    assertThatThrownBy(() -> GcsCloud.builder("g").bucket("b").maxThreads(0).build())
        .hasMessageContaining("maxThreads");
    assertThatThrownBy(() -> GcsCloud.builder("g").bucket("b").resumableThreshold(-1).build())
        .hasMessageContaining("resumableThreshold");
    assertThatThrownBy(
            () ->
                GcsCloud.builder("g")
                    .bucket("b")
                    .connectionIdleTimeout(Duration.ofMillis(999))
                    .build())
        .hasMessageContaining("connectionIdleTimeout must be in [1 s, 1 h], was PT0.999S");
    assertThatThrownBy(
            () ->
                GcsCloud.builder("g")
                    .bucket("b")
                    .connectionIdleTimeout(Duration.ofHours(2))
                    .build())
        .hasMessageContaining("connectionIdleTimeout");
    assertThatThrownBy(() -> GcsCloud.builder("g").bucket("b").connectionIdleTimeout(null).build())
        .hasMessageContaining("connectionIdleTimeout");
  }

  @Test
  void createdFromSpecByType() {
    assertThatThrownBy(() -> Drivers.create(CloudSpec.of("g0", "gcs")))
        .hasMessageContaining("'bucket'");
    CloudSpec spec =
        CloudSpec.of("g0", "gcs")
            .withBucket("b")
            .withEndpoint("http://127.0.0.1:1")
            .withOption("anonymous", "true")
            .withOption("projectId", "p");
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(d).isInstanceOf(GcsCloud.class);
    }
  }
}
