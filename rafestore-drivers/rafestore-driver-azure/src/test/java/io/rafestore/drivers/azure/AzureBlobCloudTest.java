package io.rafestore.drivers.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AzureBlobCloudTest {
  private static CloudException failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return (CloudException) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void wrongAccountKeyIsUnauthorized() throws Exception {
    String bad =
        AzuriteEmulator.connectionString()
            .replaceAll("AccountKey=[^;]+", "AccountKey=bm90LXRoZS1rZXk=");
    try (AzureBlobCloud d =
        AzureBlobCloud.builder("bad").connectionString(bad).container("any-container").build()) {
      CloudException e = failure(d.put(ObjectKey.of("k"), new byte[1]));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAUTHORIZED);
      assertThat(e.cloudId()).isEqualTo("bad");
    }
  }

  @Test
  void refusedConnectionIsUnavailable() throws Exception {
    String down =
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
            + "AccountKey=bm90LXRoZS1rZXk=;BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;";
    try (AzureBlobCloud d =
        AzureBlobCloud.builder("down")
            .connectionString(down)
            .container("c-down")
            .maxTries(1)
            .connectTimeout(Duration.ofSeconds(2))
            .build()) {
      CloudException e = failure(d.get(ObjectKey.of("k")));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
      assertThat(e.cloudId()).isEqualTo("down");
    }
  }

  @Test
  void builderNamesTheBadSetting() {
    assertThatThrownBy(() -> AzureBlobCloud.builder("a").connectionString("x").build())
        .hasMessageContaining("container");
    assertThatThrownBy(() -> AzureBlobCloud.builder("a").container("Upper").build())
        .hasMessageContaining("container");
    assertThatThrownBy(() -> AzureBlobCloud.builder("a").container("abc").build())
        .hasMessageContaining("connectionString or endpoint");
    assertThatThrownBy(
            () ->
                AzureBlobCloud.builder("a")
                    .container("abc")
                    .endpoint("http://127.0.0.1:1")
                    .maxTries(0)
                    .build())
        .hasMessageContaining("maxTries");
  }

  @Test
  void createdFromSpecByType() {
    assertThatThrownBy(() -> Drivers.create(CloudSpec.of("a0", "azure")))
        .hasMessageContaining("'bucket'");
    CloudSpec spec =
        CloudSpec.of("a0", "azure")
            .withBucket("abc")
            .withEndpoint("http://127.0.0.1:1/devstoreaccount1");
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(d).isInstanceOf(AzureBlobCloud.class);
    }
  }
}
