package io.rafestore.drivers.e2e;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.BlobServiceVersion;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import io.rafestore.drivers.azure.AzureBlobCloud;
import io.rafestore.drivers.gcs.GcsCloud;
import io.rafestore.drivers.redis.RedisCloud;
import io.rafestore.drivers.s3.S3Cloud;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.RedisClient;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * The four local servers as RafeStore drivers over one fresh namespace per test, and as raw SDK
 * clients (Jedis, the AWS SDK, the Azure SDK, the GCS SDK) that change objects behind RafeStore's
 * back, the way an attacker or a faulty provider would.
 */
final class RawServers {
  final String run = UUID.randomUUID().toString().substring(0, 8);
  final String redisPrefix = "it/" + run + "/";
  final String bucket = "it-" + run;

  static String env(String name) {
    return Emulators.env(name);
  }

  RedisCloud redis(String id) {
    return RedisCloud.builder(id)
        .uri(URI.create(env("RAFESTORE_REDIS_URI")))
        .keyPrefix(redisPrefix)
        .build();
  }

  S3Cloud minio(String id) throws Exception {
    S3Cloud d =
        S3Cloud.builder(id)
            .endpoint(URI.create(env("RAFESTORE_S3_ENDPOINT")))
            .pathStyle(true)
            .credentials(env("RAFESTORE_S3_ACCESS_KEY"), env("RAFESTORE_S3_SECRET_KEY"))
            .bucket(bucket)
            .build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }

  AzureBlobCloud azurite(String id) {
    return AzureBlobCloud.builder(id)
        .connectionString(env("RAFESTORE_AZURE_CONNECTION_STRING"))
        .container(bucket)
        .build();
  }

  GcsCloud gcs(String id) throws Exception {
    GcsCloud d =
        GcsCloud.builder(id)
            .endpoint(URI.create(env("RAFESTORE_GCS_ENDPOINT")))
            .anonymous(true)
            .projectId("rafestore-it")
            .bucket(bucket)
            .build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }

  // ---- Behind RafeStore's back: each server's own API ----

  void redisOverwrite(String name, byte[] bytes) {
    URI uri = URI.create(env("RAFESTORE_REDIS_URI"));
    try (RedisClient raw = RedisClient.create(uri.getHost(), uri.getPort())) {
      raw.set((redisPrefix + name).getBytes(StandardCharsets.UTF_8), bytes);
    }
  }

  void redisDelete(String name) {
    URI uri = URI.create(env("RAFESTORE_REDIS_URI"));
    try (RedisClient raw = RedisClient.create(uri.getHost(), uri.getPort())) {
      raw.del((redisPrefix + name).getBytes(StandardCharsets.UTF_8));
    }
  }

  void minioDelete(String name) {
    try (S3AsyncClient raw =
        S3AsyncClient.builder()
            .endpointOverride(URI.create(env("RAFESTORE_S3_ENDPOINT")))
            .forcePathStyle(true)
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(
                        env("RAFESTORE_S3_ACCESS_KEY"), env("RAFESTORE_S3_SECRET_KEY"))))
            .build()) {
      raw.deleteObject(b -> b.bucket(bucket).key(name)).join();
    }
  }

  void azuriteUpload(String name, byte[] bytes) {
    new BlobServiceClientBuilder()
        .connectionString(env("RAFESTORE_AZURE_CONNECTION_STRING"))
        .serviceVersion(BlobServiceVersion.V2025_11_05)
        .buildClient()
        .getBlobContainerClient(bucket)
        .getBlobClient(name)
        .upload(BinaryData.fromBytes(bytes), true);
  }

  void gcsUpload(String name, byte[] bytes) throws Exception {
    Storage raw =
        StorageOptions.newBuilder()
            .setHost(env("RAFESTORE_GCS_ENDPOINT"))
            .setProjectId("rafestore-it")
            .setCredentials(NoCredentials.getInstance())
            .build()
            .getService();
    try {
      raw.create(BlobInfo.newBuilder(bucket, name).build(), bytes);
    } finally {
      raw.close();
    }
  }

  // ---- Listings through each server's own API, to see what is really stored ----

  /** Object names under {@code prefix} on Redis, without this test's key prefix. */
  java.util.List<String> redisList(String prefix) {
    URI uri = URI.create(env("RAFESTORE_REDIS_URI"));
    java.util.List<String> out = new java.util.ArrayList<>();
    try (RedisClient raw = RedisClient.create(uri.getHost(), uri.getPort())) {
      for (String k : raw.keys(redisPrefix + prefix + "*")) {
        out.add(k.substring(redisPrefix.length()));
      }
    }
    java.util.Collections.sort(out);
    return out;
  }

  private S3AsyncClient rawS3() {
    return S3AsyncClient.builder()
        .endpointOverride(URI.create(env("RAFESTORE_S3_ENDPOINT")))
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(
                    env("RAFESTORE_S3_ACCESS_KEY"), env("RAFESTORE_S3_SECRET_KEY"))))
        .build();
  }

  /** Object names under {@code prefix} in this test's MinIO bucket. */
  java.util.List<String> minioList(String prefix) {
    java.util.List<String> out = new java.util.ArrayList<>();
    try (S3AsyncClient raw = rawS3()) {
      raw.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix))
          .contents()
          .subscribe(o -> out.add(o.key()))
          .join();
    }
    java.util.Collections.sort(out);
    return out;
  }

  /** Object names under {@code prefix} in this test's Azurite container. */
  java.util.List<String> azuriteList(String prefix) {
    java.util.List<String> out = new java.util.ArrayList<>();
    new BlobServiceClientBuilder()
        .connectionString(env("RAFESTORE_AZURE_CONNECTION_STRING"))
        .serviceVersion(BlobServiceVersion.V2025_11_05)
        .buildClient()
        .getBlobContainerClient(bucket)
        .listBlobs(new com.azure.storage.blob.models.ListBlobsOptions().setPrefix(prefix), null)
        .forEach(b -> out.add(b.getName()));
    java.util.Collections.sort(out);
    return out;
  }

  /** Object names under {@code prefix} in this test's fake-gcs-server bucket. */
  java.util.List<String> gcsList(String prefix) throws Exception {
    java.util.List<String> out = new java.util.ArrayList<>();
    Storage raw =
        StorageOptions.newBuilder()
            .setHost(env("RAFESTORE_GCS_ENDPOINT"))
            .setProjectId("rafestore-it")
            .setCredentials(NoCredentials.getInstance())
            .build()
            .getService();
    try {
      raw.list(bucket, Storage.BlobListOption.prefix(prefix))
          .iterateAll()
          .forEach(b -> out.add(b.getName()));
    } finally {
      raw.close();
    }
    java.util.Collections.sort(out);
    return out;
  }
}
