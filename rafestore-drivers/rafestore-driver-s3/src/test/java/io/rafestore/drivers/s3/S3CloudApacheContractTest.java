package io.rafestore.drivers.s3;

import io.rafestore.spi.CloudDriver;
import io.rafestore.testkit.CloudDriverContract;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;

/** The driver contract over {@link S3Cloud.Transport#APACHE} (S3CloudContractTest: Netty). */
@ExtendWith(MinioLimits.class)
class S3CloudApacheContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() throws Exception {
    S3Cloud d =
        MinioEmulator.builder("s3")
            .transport(S3Cloud.Transport.APACHE)
            .bucket("t-" + UUID.randomUUID())
            .build();
    d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    return d;
  }
}
