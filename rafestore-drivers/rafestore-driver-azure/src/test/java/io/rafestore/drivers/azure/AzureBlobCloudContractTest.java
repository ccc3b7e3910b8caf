package io.rafestore.drivers.azure;

import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;

class AzureBlobCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return AzuriteEmulator.fresh("azure");
  }
}
