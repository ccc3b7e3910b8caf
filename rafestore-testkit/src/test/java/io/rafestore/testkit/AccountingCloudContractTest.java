package io.rafestore.testkit;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.cloud.AccountingCloud;
import io.rafestore.spi.CloudDriver;

/** Counting must not change what a driver does. */
class AccountingCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new AccountingCloud(MemoryCloud.withMultipart("acct", 1024, 10_000));
  }
}
