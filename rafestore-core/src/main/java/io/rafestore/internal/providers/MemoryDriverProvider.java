package io.rafestore.internal.providers;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;

/** Type {@code memory}: a fresh, empty {@link MemoryCloud}; needs only an id. */
public final class MemoryDriverProvider implements DriverProvider {
  @Override
  public String type() {
    return "memory";
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    return new MemoryCloud(spec.id());
  }
}
