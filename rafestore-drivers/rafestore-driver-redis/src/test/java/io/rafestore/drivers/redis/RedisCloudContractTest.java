package io.rafestore.drivers.redis;

import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;
import java.util.UUID;

/** The whole driver contract against the real redis-server on 127.0.0.1. */
class RedisCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return RedisCloud.builder("redis", RedisServer.uri())
        .prefix("contract:" + UUID.randomUUID() + ":")
        .build();
  }
}
