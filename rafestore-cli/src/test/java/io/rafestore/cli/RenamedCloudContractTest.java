package io.rafestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;
import org.junit.jupiter.api.Test;

/**
 * A renamed driver behaves as the driver it renames, native multipart uploads and conditional gets
 * included (a {@link MemoryCloud} offers both, so the contract's cases for them run). The inner
 * driver has the same id here: its errors name the inner id, which the contract checks.
 */
class RenamedCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new RenamedCloud("p1", MemoryCloud.withMultipart("p1", 1024, 10_000));
  }

  @Test
  void offersTheInnerDriversTags() {
    assertThat(driver.conditionalGets()).isTrue();
    // A driver without tags (a decorator that keeps the default) stays without.
    try (CloudDriver plain =
        new RenamedCloud("p2", new io.rafestore.spi.ForwardingCloud(new MemoryCloud("p2")) {})) {
      assertThat(plain.conditionalGets()).isFalse();
    }
  }
}
