package io.rafestore.drivers.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.auth.oauth2.ServiceAccountCredentials;
import com.google.auth.oauth2.UserCredentials;
import com.google.cloud.NoCredentials;
import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which credentials the GCS driver chooses. Nothing here sends a request: key files are parsed, not
 * used, and Application Default Credentials are looked up with the GCE metadata check off ({@code
 * NO_GCE_CHECK=true}, set by the build), so nothing leaves 127.0.0.1.
 */
class GcsConventionsTest {
  private static final URI NOWHERE = URI.create("http://127.0.0.1:1");

  @TempDir Path dir;

  private static GcsCloud.Builder builder() {
    return GcsCloud.builder("g").bucket("b").endpoint(NOWHERE).projectId("p");
  }

  /** A service account key file with a fresh RSA key (made here, so no key is committed). */
  private Path serviceAccountKey() throws IOException, NoSuchAlgorithmException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    String pem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getEncoder().encodeToString(g.generateKeyPair().getPrivate().getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    Path file = dir.resolve("key.json");
    Files.writeString(
        file,
        """
        {"type": "service_account", "project_id": "p", "private_key_id": "k1",
         "private_key": "%s",
         "client_email": "rafestore@p.iam.gserviceaccount.com", "client_id": "1",
         "token_uri": "http://127.0.0.1:1/token"}
        """
            .formatted(pem));
    return file;
  }

  @Test
  void anonymousSendsNoCredentials() {
    try (GcsCloud d = builder().anonymous(true).build()) {
      assertThat(d.credentials()).isSameAs(NoCredentials.getInstance());
    }
  }

  @Test
  void aKeyFileGivesItsServiceAccount() throws Exception {
    try (GcsCloud d = builder().credentialsFile(serviceAccountKey()).build()) {
      assertThat(d.credentials()).isInstanceOf(ServiceAccountCredentials.class);
      assertThat(((ServiceAccountCredentials) d.credentials()).getClientEmail())
          .isEqualTo("rafestore@p.iam.gserviceaccount.com");
    }
    assertThatThrownBy(() -> builder().credentialsFile(dir.resolve("absent.json")).build())
        .hasMessageContaining("credentialsFile " + dir.resolve("absent.json") + " does not exist");
    Path notJson = Files.writeString(dir.resolve("bad.json"), "{\"private_key\": \"SECRET\"}");
    assertThatThrownBy(() -> builder().credentialsFile(notJson).build())
        .hasMessageContaining("is not a Google credentials JSON file")
        .hasMessageNotContaining("SECRET");
    assertThatThrownBy(() -> builder().credentialsFile(notJson).anonymous(true).build())
        .hasMessageContaining("give at most one of anonymous, credentials and credentialsFile");
  }

  @Test
  void specEnvironmentReferenceNamesAKeyFile() throws Exception {
    // Set by this module's surefire configuration to a path under target/.
    String name = "RAFESTORE_TEST_GCS_KEY_FILE";
    assumeTrue(System.getenv(name) != null, name + " is not set (run through Maven)");
    Path file = Path.of(System.getenv(name));
    Files.deleteIfExists(file);
    CloudSpec spec =
        CloudSpec.of("g0", "gcs")
            .withBucket("b")
            .withEndpoint(NOWHERE.toString())
            .withCredentialsRef("env:" + name);
    assertThatThrownBy(() -> Drivers.create(spec))
        .hasMessageStartingWith("cloud spec g0: 'credentialsRef': credentialsFile " + file);
    Files.createDirectories(file.getParent());
    Files.copy(serviceAccountKey(), file);
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(((GcsCloud) d).credentials()).isInstanceOf(ServiceAccountCredentials.class);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void applicationDefaultCredentialsComeFromTheWellKnownFile() throws IOException {
    // The lookup must not ask a metadata server, and the environment must not point elsewhere.
    assumeTrue("true".equals(System.getenv("NO_GCE_CHECK")), "NO_GCE_CHECK is not true");
    assumeTrue(System.getenv("GOOGLE_APPLICATION_CREDENTIALS") == null);
    assumeTrue(System.getenv("CLOUDSDK_CONFIG") == null);
    String home = System.getProperty("user.home");
    System.setProperty("user.home", dir.toString());
    try {
      // Nothing found: build fails saying what to set up (the SDK alone would send requests
      // unauthenticated). Checked first: the SDK remembers credentials once it has found some.
      assertThatThrownBy(() -> builder().build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no Application Default Credentials were found")
          .hasMessageContaining("GOOGLE_APPLICATION_CREDENTIALS")
          .hasMessageContaining("anonymous");
      Path adc = dir.resolve(".config/gcloud/application_default_credentials.json");
      Files.createDirectories(adc.getParent());
      Files.writeString(
          adc,
          """
          {"type": "authorized_user", "client_id": "id", "client_secret": "s",
           "refresh_token": "r"}
          """);
      try (GcsCloud d = builder().build()) {
        assertThat(d.credentials()).isInstanceOf(UserCredentials.class);
      }
    } finally {
      System.setProperty("user.home", home);
    }
  }
}
