package io.rafestore.config;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;
import java.util.concurrent.CompletableFuture;

/**
 * A built {@link DeferredDriver} behaves as the driver it holds, conditional gets included (a
 * {@link MemoryCloud} gives tags, so the contract's conditional cases run).
 */
class DeferredDriverContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new DeferredDriver(
        "deferred",
        CompletableFuture.completedFuture(MemoryCloud.withMultipart("deferred", 1024, 10_000)));
  }
}
