package io.rafestore.drivers.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.identity.DefaultAzureCredential;
import io.rafestore.clouds.Drivers;
import io.rafestore.drivers.azure.AzureBlobCloud.Authentication;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import java.time.OffsetDateTime;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Which way the Azure driver authenticates for each combination of settings. Nothing is sent: the
 * drivers are built and closed, and DefaultAzureCredential asks its sources only on a request.
 */
class AzureConventionsTest {
  private static final String ACCOUNT = "https://127.0.0.1:1/devstoreaccount1";

  private static AzureBlobCloud.Builder builder() {
    return AzureBlobCloud.builder("a").container("abc");
  }

  @Test
  void onlyAnAccountEndpointMeansDefaultAzureCredential() {
    try (AzureBlobCloud d = builder().endpoint(ACCOUNT).build()) {
      assertThat(d.authentication()).isEqualTo(Authentication.DEFAULT_AZURE_CREDENTIAL);
      assertThat(d.tokenCredential()).isInstanceOf(DefaultAzureCredential.class);
    }
    CloudSpec spec = CloudSpec.of("a0", "azure").withBucket("abc").withEndpoint(ACCOUNT);
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(((AzureBlobCloud) d).authentication())
          .isEqualTo(Authentication.DEFAULT_AZURE_CREDENTIAL);
    }
  }

  @Test
  void eachOtherSourceIsUsedAsGiven() {
    String key = Base64.getEncoder().encodeToString(new byte[64]);
    try (AzureBlobCloud d =
        builder()
            .connectionString(
                "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey="
                    + key
                    + ";BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;")
            .build()) {
      assertThat(d.authentication()).isEqualTo(Authentication.CONNECTION_STRING);
      assertThat(d.tokenCredential()).isNull();
    }
    try (AzureBlobCloud d = builder().endpoint(ACCOUNT).sasToken("sv=2025-11-05&sig=x").build()) {
      assertThat(d.authentication()).isEqualTo(Authentication.SAS_TOKEN);
    }
    try (AzureBlobCloud d = builder().endpoint("http://127.0.0.1:1/public").anonymous().build()) {
      assertThat(d.authentication()).isEqualTo(Authentication.ANONYMOUS);
    }
    TokenCredential own =
        request -> Mono.just(new AccessToken("t", OffsetDateTime.now().plusHours(1)));
    try (AzureBlobCloud d = builder().endpoint(ACCOUNT).credential(own).build()) {
      assertThat(d.authentication()).isEqualTo(Authentication.TOKEN_CREDENTIAL);
      assertThat(d.tokenCredential()).isSameAs(own);
    }
  }

  @Test
  void specEnvironmentReferenceHoldsAConnectionString() {
    assumeTrue(System.getenv("RAFESTORE_AZURE_CONNECTION_STRING") != null, "emulators not set up");
    CloudSpec spec =
        CloudSpec.of("a0", "azure")
            .withBucket("abc")
            .withCredentialsRef("env:RAFESTORE_AZURE_CONNECTION_STRING");
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(((AzureBlobCloud) d).authentication()).isEqualTo(Authentication.CONNECTION_STRING);
    }
  }
}
