package io.rafestore.drivers.s3;

import java.net.URI;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** The local MinIO that {@code scripts/emulators.sh start} runs. */
final class MinioEmulator {
  private MinioEmulator() {}

  static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          name
              + " is not set: run 'scripts/emulators.sh start' and "
              + "'eval \"$(scripts/emulators.sh env)\"' before these tests");
    }
    return value;
  }

  static S3Cloud.Builder builder(String id) {
    return S3Cloud.builder(id)
        .endpoint(URI.create(env("RAFESTORE_S3_ENDPOINT")))
        .pathStyle(true)
        .credentials(env("RAFESTORE_S3_ACCESS_KEY"), env("RAFESTORE_S3_SECRET_KEY"));
  }

  /** A driver over a new, empty bucket. */
  static S3Cloud fresh(String id) throws Exception {
    S3Cloud d = builder(id).bucket("t-" + UUID.randomUUID()).build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }
}
