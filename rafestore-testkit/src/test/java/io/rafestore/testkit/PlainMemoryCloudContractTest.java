package io.rafestore.testkit;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;

/** A MemoryCloud without native multipart: the multipart contract tests skip with a note. */
class PlainMemoryCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new MemoryCloud("plain");
  }
}
