package io.rafestore.drivers.gcs;

import java.net.URI;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** The local fake-gcs-server that {@code scripts/emulators.sh start} runs. */
final class FakeGcsEmulator {
  static final String ENV = "RAFESTORE_GCS_ENDPOINT";

  private FakeGcsEmulator() {}

  static URI endpoint() {
    String value = System.getenv(ENV);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          ENV
              + " is not set: run 'scripts/emulators.sh start' and "
              + "'eval \"$(scripts/emulators.sh env)\"' before these tests");
    }
    return URI.create(value);
  }

  static GcsCloud.Builder builder(String id) {
    return GcsCloud.builder(id).endpoint(endpoint()).anonymous(true).projectId("rafestore-test");
  }

  /** A driver over a new, empty bucket. */
  static GcsCloud fresh(String id) throws Exception {
    return fresh(builder(id));
  }

  /** A driver of the given settings over a new, empty bucket. */
  static GcsCloud fresh(GcsCloud.Builder settings) throws Exception {
    GcsCloud d = settings.bucket("t-" + UUID.randomUUID()).build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }
}
