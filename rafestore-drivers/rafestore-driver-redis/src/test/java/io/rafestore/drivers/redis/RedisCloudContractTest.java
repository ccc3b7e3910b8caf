package io.rafestore.drivers.redis;

import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;

class RedisCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return RedisEmulator.fresh("redis");
  }
}
