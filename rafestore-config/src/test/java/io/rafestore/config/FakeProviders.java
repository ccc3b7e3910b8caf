package io.rafestore.config;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;

/**
 * Stand-ins for the cloud driver types, which live in modules this one does not depend on: the
 * parser validates type names against the providers on the class path. Each makes an in-memory
 * cloud.
 */
final class FakeProviders {
  private FakeProviders() {}

  private abstract static class Fake implements DriverProvider {
    @Override
    public CloudDriver create(CloudSpec spec) {
      return new MemoryCloud(spec.id());
    }
  }

  /**
   * Type s3: rejects profile {@code missing} and region {@code nowhere} as the real driver rejects
   * an unknown profile or an unusable region, naming the spec's field.
   */
  public static final class S3 extends Fake {
    @Override
    public String type() {
      return "s3";
    }

    @Override
    public CloudDriver create(CloudSpec spec) {
      if ("profile:missing".equals(spec.credentialsRef())) {
        throw new IllegalArgumentException(
            "cloud spec "
                + spec.id()
                + ": 'credentialsRef': profile missing is not in the shared AWS files");
      }
      if ("nowhere".equals(spec.region())) {
        throw new IllegalArgumentException(
            "cloud spec " + spec.id() + ": 'region': region nowhere is not known");
      }
      return super.create(spec);
    }
  }

  /** Type azure. */
  public static final class Azure extends Fake {
    @Override
    public String type() {
      return "azure";
    }
  }

  /** Type redis: fails like a driver whose credentials variable is missing. */
  public static final class Redis extends Fake {
    @Override
    public String type() {
      return "redis";
    }

    @Override
    public CloudDriver create(CloudSpec spec) {
      spec.resolveCredentials();
      return super.create(spec);
    }
  }
}
