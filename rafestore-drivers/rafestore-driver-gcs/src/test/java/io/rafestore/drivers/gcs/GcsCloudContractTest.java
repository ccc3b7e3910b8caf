package io.rafestore.drivers.gcs;

import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;

class GcsCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() throws Exception {
    return FakeGcsEmulator.fresh("gcs");
  }
}
