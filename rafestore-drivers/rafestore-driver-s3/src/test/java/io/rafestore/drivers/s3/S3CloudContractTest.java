package io.rafestore.drivers.s3;

import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MinioLimits.class)
class S3CloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() throws Exception {
    return MinioEmulator.fresh("s3");
  }
}
