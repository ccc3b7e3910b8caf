package io.rafestore.drivers.e2e;

import io.rafestore.drivers.azure.AzureBlobCloud;
import io.rafestore.drivers.gcs.GcsCloud;
import io.rafestore.drivers.redis.RedisCloud;
import io.rafestore.drivers.s3.S3Cloud;
import java.net.URI;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** One driver per local emulator, each over a fresh namespace; endpoints from the environment. */
final class Emulators {
  private Emulators() {}

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

  static String fresh() {
    return "e2e-" + UUID.randomUUID();
  }

  static S3Cloud s3(String id) throws Exception {
    S3Cloud d =
        S3Cloud.builder(id)
            .endpoint(URI.create(env("RAFESTORE_S3_ENDPOINT")))
            .pathStyle(true)
            .credentials(env("RAFESTORE_S3_ACCESS_KEY"), env("RAFESTORE_S3_SECRET_KEY"))
            .bucket(fresh())
            .build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }

  static AzureBlobCloud azure(String id) {
    return AzureBlobCloud.builder(id)
        .connectionString(env("RAFESTORE_AZURE_CONNECTION_STRING"))
        .container(fresh())
        .build();
  }

  static GcsCloud gcs(String id) throws Exception {
    GcsCloud d =
        GcsCloud.builder(id)
            .endpoint(URI.create(env("RAFESTORE_GCS_ENDPOINT")))
            .anonymous(true)
            .projectId("rafestore-test")
            .bucket(fresh())
            .build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }

  static RedisCloud redis(String id) {
    return redis(id, fresh() + "/");
  }

  static RedisCloud redis(String id, String keyPrefix) {
    return RedisCloud.builder(id)
        .uri(URI.create(env("RAFESTORE_REDIS_URI")))
        .keyPrefix(keyPrefix)
        .build();
  }
}
