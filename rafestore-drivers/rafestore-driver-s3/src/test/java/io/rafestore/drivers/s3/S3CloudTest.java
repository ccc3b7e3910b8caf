package io.rafestore.drivers.s3;

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

class S3CloudTest {
  @Test
  void multipartUploadAboveThresholdRoundTrips() throws Exception {
    byte[] big = new byte[13 * 1024 * 1024 + 17];
    new Random(3).nextBytes(big);
    try (S3Cloud d = MinioEmulator.fresh("mp")) {
      d.put(ObjectKey.of("big"), big).get(120, TimeUnit.SECONDS);
      assertThat(d.get(ObjectKey.of("big")).get(120, TimeUnit.SECONDS)).isEqualTo(big);
      assertThat(
              d.get(ObjectKey.of("big"), Optional.of(ByteRange.of(5L * 1024 * 1024 - 3, 10)))
                  .get(60, TimeUnit.SECONDS))
          .isEqualTo(Arrays.copyOfRange(big, 5 * 1024 * 1024 - 3, 5 * 1024 * 1024 + 7));
    }
  }

  /**
   * close() ends the driver's Netty event loops without Netty's default two-second quiet period
   * (which the SDK's own event loop group waits out, and which was a third of a one-off command's
   * wall time); a read and a write first start the loops and build both SDK clients.
   */
  @Test
  void closeDoesNotWaitOutNettysQuietPeriod() throws Exception {
    S3Cloud d = MinioEmulator.fresh("quick");
    d.put(ObjectKey.of("k"), new byte[] {1}).get(60, TimeUnit.SECONDS);
    assertThat(d.get(ObjectKey.of("k")).get(60, TimeUnit.SECONDS)).containsExactly(1);
    long start = System.nanoTime();
    d.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1_900));
    CloudException e = failure(d.put(ObjectKey.of("after"), new byte[] {2}));
    assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
  }

  @Test
  void missingBucketIsNotFound() throws Exception {
    try (S3Cloud d = MinioEmulator.builder("nb").bucket("no-such-bucket-rafestore").build()) {
      CloudException e = failure(d.get(ObjectKey.of("k")));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
      assertThat(e.cloudId()).isEqualTo("nb");
    }
  }

  @Test
  void wrongSecretIsUnauthorized() throws Exception {
    try (S3Cloud d =
        S3Cloud.builder("bad")
            .endpoint(URI.create(MinioEmulator.env("RAFESTORE_S3_ENDPOINT")))
            .pathStyle(true)
            .credentials(MinioEmulator.env("RAFESTORE_S3_ACCESS_KEY"), "not-the-secret")
            .bucket("whatever")
            .build()) {
      CloudException e = failure(d.list(""));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAUTHORIZED);
      assertThat(e.cloudId()).isEqualTo("bad");
    }
  }

  @Test
  void refusedConnectionIsUnavailable() throws Exception {
    try (S3Cloud d =
        S3Cloud.builder("down")
            .endpoint(URI.create("http://127.0.0.1:1"))
            .pathStyle(true)
            .credentials("a", "b")
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
    assertThatThrownBy(() -> S3Cloud.builder("s").build()).hasMessageContaining("bucket");
    assertThatThrownBy(() -> S3Cloud.builder("s").bucket("b").partSize(1).build())
        .hasMessageContaining("partSize");
    assertThatThrownBy(() -> S3Cloud.builder("s").bucket("b").multipartThreshold(1).build())
        .hasMessageContaining("multipartThreshold");
    assertThatThrownBy(() -> S3Cloud.builder("s").bucket("b").maxAttempts(0).build())
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(
            () -> S3Cloud.builder("s").bucket("b").endpoint(URI.create("no-scheme")).build())
        .hasMessageContaining("endpoint");
    assertThatThrownBy(
            () -> S3Cloud.builder("s").bucket("b").readTimeout(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("readTimeout");
    assertThatThrownBy(() -> S3Cloud.builder("s").bucket("b").maxConnections(0).build())
        .hasMessageContaining("maxConnections must be in [1, 4096], was 0");
    assertThatThrownBy(
            () ->
                S3Cloud.builder("s")
                    .bucket("b")
                    .connectionIdleTimeout(Duration.ofMillis(999))
                    .build())
        .hasMessageContaining("connectionIdleTimeout must be in [1 s, 1 h], was PT0.999S");
    assertThatThrownBy(
            () ->
                S3Cloud.builder("s").bucket("b").connectionIdleTimeout(Duration.ofHours(2)).build())
        .hasMessageContaining("connectionIdleTimeout");
    assertThatThrownBy(() -> S3Cloud.builder("s").bucket("b").connectionIdleTimeout(null).build())
        .hasMessageContaining("connectionIdleTimeout");
    assertThatThrownBy(() -> S3Cloud.builder("s").bucket("b").finishCancelledUpTo(-1).build())
        .hasMessageContaining("finishCancelledUpTo must be in [0, 67108864], was -1");
    assertThatThrownBy(
            () ->
                S3Cloud.builder("s").bucket("b").finishCancelledUpTo(64L * 1024 * 1024 + 1).build())
        .hasMessageContaining("finishCancelledUpTo");
    // The edges are accepted.
    S3Cloud.builder("s")
        .bucket("b")
        .region("eu-west-1")
        .maxConnections(1)
        .connectionIdleTimeout(Duration.ofSeconds(1))
        .finishCancelledUpTo(0)
        .build()
        .close();
  }

  @Test
  void cancelledSmallGetFinishesAndKeepsItsConnection() throws Exception {
    // One pooled connection; each round cancels a small download, then waits for the pool's
    // connection with a normal request. Aborting the cancelled one would close the connection
    // and the next request would open a new one: one local port per round.
    int server = URI.create(MinioEmulator.env("RAFESTORE_S3_ENDPOINT")).getPort();
    try (S3Cloud d =
        MinioEmulator.builder("cg")
            .bucket("t-" + java.util.UUID.randomUUID())
            .maxConnections(1)
            .build()) {
      d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
      ObjectKey small = ObjectKey.of("small");
      d.put(small, new byte[64 * 1024]).get(60, TimeUnit.SECONDS);
      java.util.Set<Integer> ports = new java.util.HashSet<>();
      for (int round = 0; round < 10; round++) {
        d.get(small).cancel(true);
        d.get(small).get(60, TimeUnit.SECONDS);
        ports.addAll(OwnConnections.localPorts(server));
      }
      assertThat(ports).as("connections used over 10 rounds").hasSizeBetween(1, 2);
    }
  }

  @Test
  void createdFromSpecByType() {
    assertThatThrownBy(() -> Drivers.create(CloudSpec.of("s0", "s3")))
        .hasMessageContaining("'bucket'");
    CloudSpec spec =
        CloudSpec.of("s0", "s3")
            .withBucket("b")
            .withEndpoint("http://127.0.0.1:1")
            .withOption("pathStyle", "true");
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(d).isInstanceOf(S3Cloud.class);
    }
  }
}
