package io.rafestore.testkit;

import io.rafestore.Scheduler;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.spi.CloudDriver;
import java.time.Duration;

/**
 * The emulator with a negligible delay on the real scheduler, so every request crosses timers and
 * the bandwidth-sharing code on a timer thread.
 */
class WanEmulatedCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    WanEmulator net = WanEmulator.builder(Scheduler.system()).build();
    return net.wrap(
        MemoryCloud.withMultipart("wan", 1024, 10_000),
        WanEmulator.Link.rtt(Duration.ofMillis(1)).bandwidthBitsPerSecond(10_000_000_000L));
  }
}
