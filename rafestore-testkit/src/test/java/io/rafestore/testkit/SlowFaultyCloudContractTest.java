package io.rafestore.testkit;

import io.rafestore.Scheduler;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import java.time.Duration;

/** A merely slow cloud is still correct; every call crosses the timer thread. */
class SlowFaultyCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new FaultyCloud(MemoryCloud.withMultipart("slow", 1024, 10_000), Scheduler.system(), 1)
        .slowDown(Duration.ofMillis(1));
  }
}
