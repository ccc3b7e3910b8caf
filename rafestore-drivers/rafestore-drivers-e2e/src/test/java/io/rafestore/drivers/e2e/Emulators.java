package io.rafestore.drivers.e2e;

import io.rafestore.drivers.azure.AzureBlobCloud;
import io.rafestore.drivers.gcs.GcsCloud;
import io.rafestore.drivers.redis.RedisCloud;
import io.rafestore.drivers.s3.S3Cloud;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

  /**
   * {@code s.verify(key)}, asked again (at most three times, a second apart) while a finding is
   * UNREACHABLE: that finding says an emulator did not answer within verify's grace (a stall of a
   * loaded machine; the second lets it answer the request it was late for, which resets its grace),
   * and so says nothing about what the servers hold. Every other finding persists across asks, so
   * the caller's assertions on the report still fail on it.
   */
  static io.rafestore.VerifyReport verifyPastStalls(io.rafestore.BlockingRafeStore s, String key)
      throws Exception {
    io.rafestore.VerifyReport r = s.verify(key);
    for (int i = 0;
        i < 3
            && r.findings().stream()
                .anyMatch(f -> f.problem() == io.rafestore.VerifyReport.Problem.UNREACHABLE);
        i++) {
      System.out.println("e2e: verify again after " + r);
      Thread.sleep(1000);
      r = s.verify(key);
    }
    return r;
  }

  static String fresh() {
    return "e2e-" + UUID.randomUUID();
  }

  /** The emulators' endpoints by cloud type (s3, azure, gcs, redis), from the environment. */
  static Map<String, URI> endpoints() {
    String azure = env("RAFESTORE_AZURE_CONNECTION_STRING");
    Matcher m = Pattern.compile("BlobEndpoint=([^;]+)").matcher(azure);
    if (!m.find()) {
      throw new IllegalStateException(
          "RAFESTORE_AZURE_CONNECTION_STRING has no BlobEndpoint: " + azure);
    }
    return Map.of(
        "s3", URI.create(env("RAFESTORE_S3_ENDPOINT")),
        "azure", URI.create(m.group(1)),
        "gcs", URI.create(env("RAFESTORE_GCS_ENDPOINT")),
        "redis", URI.create(env("RAFESTORE_REDIS_URI")));
  }

  static S3Cloud s3(String id) throws Exception {
    return s3(id, 64);
  }

  /** An S3 driver whose connection pool holds at most {@code connections}. */
  static S3Cloud s3(String id, int connections) throws Exception {
    S3Cloud d =
        S3Cloud.builder(id)
            .maxConnections(connections)
            .endpoint(URI.create(env("RAFESTORE_S3_ENDPOINT")))
            .pathStyle(true)
            .credentials(env("RAFESTORE_S3_ACCESS_KEY"), env("RAFESTORE_S3_SECRET_KEY"))
            .bucket(fresh())
            .build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }

  static AzureBlobCloud azure(String id) {
    return azure(id, 64);
  }

  /** An Azure driver with at most {@code connections} requests (so connections) in flight. */
  static AzureBlobCloud azure(String id, int connections) {
    return AzureBlobCloud.builder(id)
        .maxConnections(connections)
        .connectionString(env("RAFESTORE_AZURE_CONNECTION_STRING"))
        .container(fresh())
        .build();
  }

  static GcsCloud gcs(String id) throws Exception {
    return gcs(id, 16);
  }

  /** A GCS driver with {@code threads} request threads (and as many pooled connections). */
  static GcsCloud gcs(String id, int threads) throws Exception {
    GcsCloud d =
        GcsCloud.builder(id)
            .maxThreads(threads)
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

  /** A Redis driver with a pool of {@code connections}. */
  static RedisCloud redis(String id, int connections) {
    return RedisCloud.builder(id)
        .maxConnections(connections)
        .uri(URI.create(env("RAFESTORE_REDIS_URI")))
        .keyPrefix(fresh() + "/")
        .build();
  }

  static RedisCloud redis(String id, String keyPrefix) {
    return RedisCloud.builder(id)
        .uri(URI.create(env("RAFESTORE_REDIS_URI")))
        .keyPrefix(keyPrefix)
        .build();
  }
}
