package io.rafestore.drivers.redis;

import java.net.URI;
import java.util.UUID;

/** The local redis-server that {@code scripts/emulators.sh start} runs. */
final class RedisEmulator {
  static final String ENV = "RAFESTORE_REDIS_URI";

  private RedisEmulator() {}

  static URI uri() {
    String value = System.getenv(ENV);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          ENV
              + " is not set: run 'scripts/emulators.sh start' and "
              + "'eval \"$(scripts/emulators.sh env)\"' before these tests");
    }
    return URI.create(value);
  }

  /** A driver over a fresh key prefix. */
  static RedisCloud fresh(String id) {
    return RedisCloud.builder(id).uri(uri()).keyPrefix("test/" + UUID.randomUUID() + "/").build();
  }
}
