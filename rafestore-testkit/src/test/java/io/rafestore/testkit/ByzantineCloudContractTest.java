package io.rafestore.testkit;

import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;

/** An honest Byzantine decorator must be a faithful driver. */
class ByzantineCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new ByzantineCloud(MemoryCloud.withMultipart("byz", 1024, 10_000), 3);
  }
}
