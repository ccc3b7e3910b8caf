package io.rafestore.testkit;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;

class MemoryCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return MemoryCloud.withMultipart("mem", 1024, 10_000);
  }
}
