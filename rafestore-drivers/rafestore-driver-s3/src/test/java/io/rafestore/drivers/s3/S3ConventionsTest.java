package io.rafestore.drivers.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;

/**
 * Which region and credentials provider the S3 driver chooses, following the AWS SDK's conventions.
 * Each test points the SDK at its own shared config and credentials files (the {@code
 * aws.configFile} and {@code aws.sharedCredentialsFile} system properties) and turns the EC2
 * instance metadata off, so nothing here reads the developer's {@code ~/.aws} or leaves 127.0.0.1;
 * no request is sent (resolving a profile's static keys reads only the files).
 */
class S3ConventionsTest {
  private static final String[] PROPERTIES = {
    "aws.configFile",
    "aws.sharedCredentialsFile",
    "aws.region",
    "aws.profile",
    "aws.disableEc2Metadata"
  };
  private static final URI NOWHERE = URI.create("http://127.0.0.1:1");

  @TempDir Path dir;
  private final Map<String, String> saved = new HashMap<>();
  private Path config;
  private Path credentials;

  @BeforeEach
  void ownAwsFiles() throws IOException {
    // The environment wins over the files in the SDK's chain; these tests need it silent.
    assumeTrue(System.getenv("AWS_REGION") == null, "AWS_REGION is set");
    assumeTrue(System.getenv("AWS_PROFILE") == null, "AWS_PROFILE is set");
    for (String p : PROPERTIES) {
      saved.put(p, System.getProperty(p));
      System.clearProperty(p);
    }
    config = dir.resolve("config");
    credentials = dir.resolve("credentials");
    Files.writeString(
        config,
        """
        [default]
        region = ap-south-1

        [profile dev]
        region = eu-west-3

        [profile keysonly]
        output = json
        """);
    Files.writeString(
        credentials,
        """
        [dev]
        aws_access_key_id = AKIDDEV
        aws_secret_access_key = devSecret
        aws_session_token = devToken

        [keysonly]
        aws_access_key_id = AKIDKEYS
        aws_secret_access_key = keysSecret
        """);
    System.setProperty("aws.configFile", config.toString());
    System.setProperty("aws.sharedCredentialsFile", credentials.toString());
    System.setProperty("aws.disableEc2Metadata", "true");
  }

  @AfterEach
  void restore() {
    saved.forEach(
        (p, v) -> {
          if (v == null) {
            System.clearProperty(p);
          } else {
            System.setProperty(p, v);
          }
        });
  }

  private static AwsCredentialsIdentity resolve(S3Cloud d) {
    return d.clientConfiguration().credentialsProvider().resolveIdentity().join();
  }

  @Test
  void profileGivesItsSessionCredentialsAndRegion() {
    try (S3Cloud d = S3Cloud.builder("p").bucket("b").profile("dev").build()) {
      assertThat(d.region()).isEqualTo("eu-west-3");
      assertThat(d.clientConfiguration().region().id()).isEqualTo("eu-west-3");
      assertThat(d.clientConfiguration().credentialsProvider())
          .isInstanceOf(ProfileCredentialsProvider.class);
      AwsCredentialsIdentity id = resolve(d);
      assertThat(id).isInstanceOf(AwsSessionCredentials.class);
      assertThat(id.accessKeyId()).isEqualTo("AKIDDEV");
      assertThat(((AwsSessionCredentials) id).sessionToken()).isEqualTo("devToken");
    }
  }

  @Test
  void explicitRegionWinsOverTheProfiles() {
    try (S3Cloud d =
        S3Cloud.builder("p").bucket("b").profile("dev").region("eu-central-1").build()) {
      assertThat(d.region()).isEqualTo("eu-central-1");
    }
  }

  @Test
  void specProfileReferenceChoosesTheProfile() {
    CloudSpec spec = CloudSpec.of("s0", "s3").withBucket("b").withCredentialsRef("profile:dev");
    try (CloudDriver driver = Drivers.create(spec)) {
      S3Cloud d = (S3Cloud) driver;
      assertThat(d.region()).isEqualTo("eu-west-3");
      assertThat(((AwsSessionCredentials) resolve(d)).sessionToken()).isEqualTo("devToken");
    }
  }

  @Test
  void withoutKeysTheDefaultChainIsUsedAndReadsTheNamedProfile() {
    System.setProperty("aws.profile", "keysonly");
    try (S3Cloud d = S3Cloud.builder("p").bucket("b").endpoint(NOWHERE).build()) {
      IdentityProvider<? extends AwsCredentialsIdentity> chain =
          d.clientConfiguration().credentialsProvider();
      assertThat(chain.getClass().getSimpleName()).contains("DefaultCredentialsProvider");
      // The chain finds profile keysonly (no system property or environment keys are set here).
      assumeTrue(System.getenv("AWS_ACCESS_KEY_ID") == null, "AWS_ACCESS_KEY_ID is set");
      AwsCredentialsIdentity id = resolve(d);
      assertThat(id.accessKeyId()).isEqualTo("AKIDKEYS");
      assertThat(id).isNotInstanceOf(AwsSessionCredentials.class);
      // keysonly has no region and an endpoint is given: the S3-compatible default.
      assertThat(d.region()).isEqualTo("us-east-1");
    }
  }

  @Test
  void regionComesFromTheChain() {
    // The default profile's region, with or without an endpoint.
    try (S3Cloud d = S3Cloud.builder("p").bucket("b").credentials("a", "b").build()) {
      assertThat(d.region()).isEqualTo("ap-south-1");
    }
    try (S3Cloud d =
        S3Cloud.builder("p").bucket("b").endpoint(NOWHERE).credentials("a", "b").build()) {
      assertThat(d.region()).isEqualTo("ap-south-1");
    }
    // The system property comes before the profile.
    System.setProperty("aws.region", "us-west-2");
    try (S3Cloud d = S3Cloud.builder("p").bucket("b").profile("dev").build()) {
      assertThat(d.region()).isEqualTo("us-west-2");
    }
  }

  @Test
  void awsWithoutAnyRegionFailsNamingWhereItLooked() throws IOException {
    Files.writeString(config, "[profile other]\nregion = eu-north-1\n");
    assertThatThrownBy(() -> S3Cloud.builder("p").bucket("b").credentials("a", "b").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("region is not set")
        .hasMessageContaining("AWS_REGION")
        .hasMessageContaining("profile default")
        .hasMessageContaining(config.toString());
    // An S3-compatible endpoint falls back to us-east-1 instead.
    try (S3Cloud d =
        S3Cloud.builder("p").bucket("b").endpoint(NOWHERE).credentials("a", "b").build()) {
      assertThat(d.region()).isEqualTo("us-east-1");
    }
  }

  @Test
  void explicitKeysAreStaticWithOrWithoutASessionToken() {
    try (S3Cloud d =
        S3Cloud.builder("p")
            .bucket("b")
            .endpoint(NOWHERE)
            .credentials("AKID", "secret", "token")
            .build()) {
      assertThat(d.clientConfiguration().credentialsProvider())
          .isInstanceOf(StaticCredentialsProvider.class);
      assertThat(((AwsSessionCredentials) resolve(d)).sessionToken()).isEqualTo("token");
    }
    try (S3Cloud d =
        S3Cloud.builder("p").bucket("b").endpoint(NOWHERE).credentials("AKID", "secret").build()) {
      assertThat(resolve(d)).isInstanceOf(AwsBasicCredentials.class);
    }
  }

  @Test
  void specEnvironmentReferenceMayCarryASessionToken() {
    // Set by this module's surefire configuration.
    String name = "RAFESTORE_TEST_S3_SESSION_KEYS";
    assumeTrue(System.getenv(name) != null, name + " is not set (run through Maven)");
    CloudSpec spec =
        CloudSpec.of("s0", "s3")
            .withBucket("b")
            .withEndpoint(NOWHERE.toString())
            .withCredentialsRef("env:" + name);
    try (CloudDriver driver = Drivers.create(spec)) {
      AwsCredentialsIdentity id = resolve((S3Cloud) driver);
      assertThat(id.accessKeyId()).isEqualTo("AKIDENV");
      assertThat(((AwsSessionCredentials) id).sessionToken()).isEqualTo("envToken");
    }
    CloudSpec wrong = spec.withCredentialsRef("env:RAFESTORE_TEST_S3_BAD_KEYS");
    assumeTrue(System.getenv("RAFESTORE_TEST_S3_BAD_KEYS") != null);
    assertThatThrownBy(() -> Drivers.create(wrong))
        .hasMessageContaining("'credentialsRef' must resolve to accessKeyId:secretAccessKey")
        .hasMessageNotContaining("onlyOnePart");
  }

  @Test
  void badProfileSettingsAreNamed() throws IOException {
    assertThatThrownBy(() -> S3Cloud.builder("p").bucket("b").profile("nope").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("profile nope is not in the shared AWS files")
        .hasMessageContaining(config.toString())
        .hasMessageContaining(credentials.toString());
    assertThatThrownBy(
            () -> S3Cloud.builder("p").bucket("b").profile("dev").credentials("a", "b").build())
        .hasMessageContaining("give credentials or profile, not both");
    assertThatThrownBy(() -> S3Cloud.builder("p").bucket("b").profile(" ").build())
        .hasMessageContaining("profile must not be blank");
    assertThatThrownBy(() -> S3Cloud.builder("p").bucket("b").region("").build())
        .hasMessageContaining("region must not be blank");
    // From a spec, the message names the spec's field (a configuration file then names the line).
    CloudSpec spec = CloudSpec.of("s0", "s3").withBucket("b");
    assertThatThrownBy(() -> Drivers.create(spec.withCredentialsRef("profile:nope")))
        .hasMessageStartingWith("cloud spec s0: 'credentialsRef': profile nope is not in");
    Files.writeString(config, "");
    assertThatThrownBy(() -> Drivers.create(spec))
        .hasMessageStartingWith("cloud spec s0: 'region': region is not set");
  }
}
