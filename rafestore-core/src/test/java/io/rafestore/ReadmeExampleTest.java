package io.rafestore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.clouds.DirectoryCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import java.nio.file.Path;
import java.security.KeyPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of the README's example on in-memory clouds, with a directory cloud; the README's own
 * quick start (real S3, Azure, GCS and Redis drivers) is compiled from README.md and run against
 * the emulators by rafestore-drivers-e2e's ReadmeQuickStartTest.
 */
class ReadmeExampleTest {
  @TempDir Path dir;

  @Test
  void readmeExampleRuns() throws Exception {
    CloudDriver s3 = new MemoryCloud("s3");
    CloudDriver azure = new MemoryCloud("azure");
    CloudDriver gcs = new MemoryCloud("gcs");
    Path root = dir.resolve("rafestore");
    String printed;
    // --- the example, with a temporary directory as the local cloud ---
    KeyPair keys = SigningKeys.generate(); // keep the private key safe
    try (RafeStore store =
        RafeStore.builder()
            .faultsTolerated(1) // f = 1: needs 4 clouds
            .cloud(DirectoryCloud.open("local", root))
            .cloud(s3, CloudRole.DATA_AND_METADATA)
            .cloud(azure)
            .cloud(gcs, CloudRole.METADATA_ONLY)
            .writer("forum-server", keys)
            .build()) {
      store.blocking().write("topics/42", "first post".getBytes(UTF_8));
      printed = store.blocking().read("topics/42").utf8();
    }
    // --- end ---
    assertThat(printed).isEqualTo("first post");
  }
}
