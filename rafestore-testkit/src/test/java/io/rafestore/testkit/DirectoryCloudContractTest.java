package io.rafestore.testkit;

import io.rafestore.clouds.DirectoryCloud;
import io.rafestore.spi.CloudDriver;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class DirectoryCloudContractTest extends CloudDriverContract {
  @TempDir Path root;

  @Override
  protected CloudDriver newDriver() throws Exception {
    return DirectoryCloud.open("dir", root);
  }
}
