package io.rafestore.clouds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriversTest {
  @Test
  void createsMemoryCloudByType() {
    try (CloudDriver d = Drivers.create(CloudSpec.of("m0", "memory"))) {
      assertThat(d).isInstanceOf(MemoryCloud.class);
      assertThat(d.id()).isEqualTo("m0");
    }
  }

  @Test
  void createsDirectoryCloudRootedAtBucket(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    try (CloudDriver d =
        Drivers.create(CloudSpec.of("d0", "directory").withBucket(dir.toString()))) {
      assertThat(d).isInstanceOf(DirectoryCloud.class);
      d.put(io.rafestore.spi.ObjectKey.of("k"), new byte[] {1}).get();
      assertThat(d.list("").get()).hasSize(1);
    }
    assertThatThrownBy(() -> Drivers.create(CloudSpec.of("d1", "directory")))
        .hasMessageContaining("'bucket'");
  }

  @Test
  void unknownTypeListsKnownTypes() {
    assertThatThrownBy(() -> Drivers.create(CloudSpec.of("x0", "floppy")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown type 'floppy'")
        .hasMessageContaining("known types: [")
        .hasMessageContaining("memory");
  }

  @Test
  void specValidatesIdAndType() {
    assertThatThrownBy(() -> CloudSpec.of(" ", "memory")).hasMessageContaining("'id'");
    assertThatThrownBy(() -> CloudSpec.of("p0", "")).hasMessageContaining("'type'");
  }

  @Test
  void missingFieldIsNamed() {
    CloudSpec spec = CloudSpec.of("p0", "s3");
    assertThatThrownBy(spec::requireBucket).hasMessageContaining("'bucket' is required");
    assertThatThrownBy(spec::requireEndpoint).hasMessageContaining("'endpoint' is required");
  }

  @Test
  void credentialsReferenceResolvesEnvironmentOrDefaultsToChain() {
    assertThat(CloudSpec.of("p0", "s3").resolveCredentials()).isEmpty();
    assertThat(CloudSpec.of("p0", "s3").withCredentialsRef("env:PATH").resolveCredentials())
        .isPresent();
    assertThatThrownBy(
            () ->
                CloudSpec.of("p0", "s3")
                    .withCredentialsRef("env:RAFESTORE_NO_SUCH_VAR_42")
                    .resolveCredentials())
        .hasMessageContaining("RAFESTORE_NO_SUCH_VAR_42");
    assertThatThrownBy(
            () -> CloudSpec.of("p0", "s3").withCredentialsRef("plain-secret").resolveCredentials())
        .hasMessageContaining("'credentialsRef'")
        .hasMessageNotContaining("plain-secret'");
  }

  @Test
  void numericOptionNamesItselfWhenInvalid() {
    CloudSpec spec = new CloudSpec("p0", "s3", null, "b", null, null, Map.of("partSize", "big"));
    assertThat(spec.longOption("other", 7)).isEqualTo(7);
    assertThatThrownBy(() -> spec.longOption("partSize", 1)).hasMessageContaining("'partSize'");
  }
}
