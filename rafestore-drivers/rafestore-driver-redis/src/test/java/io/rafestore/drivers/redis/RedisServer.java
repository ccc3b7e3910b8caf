package io.rafestore.drivers.redis;

import java.net.URI;

/** Where the test Redis server is: the one {@code scripts/emulators.sh start} runs. */
final class RedisServer {
  private RedisServer() {}

  static URI uri() {
    String uri = System.getenv("RAFESTORE_REDIS_URI");
    if (uri == null || uri.isBlank()) {
      throw new IllegalStateException(
          "RAFESTORE_REDIS_URI is not set: start the test servers with"
              + " `scripts/emulators.sh start` and `eval \"$(scripts/emulators.sh env)\"`, or run"
              + " scripts/test.sh, which does both");
    }
    return URI.create(uri);
  }
}
