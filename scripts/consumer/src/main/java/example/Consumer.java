package example;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.rafestore.CloudRole;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.Drivers;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.drivers.s3.S3Cloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import java.net.URI;
import java.security.KeyPair;
import java.util.Map;

/**
 * Uses RafeStore as an application would, from the published artifacts: the S3 driver is built
 * (its builder, and through ServiceLoader from a spec) but never contacted; the store runs on
 * four in-memory clouds. Prints "consumer ok: ..." and exits 0, or throws.
 */
public final class Consumer {
  private Consumer() {}

  public static void main(String[] args) throws Exception {
    try (S3Cloud s3 =
            S3Cloud.builder("s3")
                .endpoint(URI.create("http://127.0.0.1:9"))
                .pathStyle(true)
                .credentials("access", "secret")
                .bucket("consumer")
                .build();
        CloudDriver fromSpec =
            Drivers.create(
                new CloudSpec(
                    "s3-spec",
                    "s3",
                    "http://127.0.0.1:9",
                    "consumer",
                    "us-east-1",
                    null,
                    Map.of("pathStyle", "true")))) {
      if (!s3.id().equals("s3") || !fromSpec.id().equals("s3-spec")) {
        throw new AssertionError("driver ids: " + s3.id() + ", " + fromSpec.id());
      }
    }

    KeyPair keys = SigningKeys.generate();
    try (RafeStore store =
        RafeStore.builder()
            .faultsTolerated(1)
            .cloud(new MemoryCloud("m0"))
            .cloud(new MemoryCloud("m1"))
            .cloud(new MemoryCloud("m2"))
            .cloud(new MemoryCloud("m3"), CloudRole.METADATA_ONLY)
            .writer("consumer", keys)
            .build()) {
      store.blocking().write("greeting", "hello".getBytes(UTF_8));
      store.blocking().write("greeting", "hello again".getBytes(UTF_8));
      String read = store.blocking().read("greeting").utf8();
      if (!read.equals("hello again")) {
        throw new AssertionError("read back '" + read + "'");
      }
      System.out.println("consumer ok: " + read);
    }
  }
}
