package io.rafestore.testkit;

import io.rafestore.Scheduler;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;

/** A healthy fault injector must be a faithful driver. */
class FaultyCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new FaultyCloud(
        MemoryCloud.withMultipart("faulty", 1024, 10_000), Scheduler.system(), 1);
  }
}
