package io.rafestore.internal.providers;

import io.rafestore.clouds.DirectoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Type {@code directory}: a {@link DirectoryCloud} rooted at {@code bucket} (a path; required). */
public final class DirectoryDriverProvider implements DriverProvider {
  @Override
  public String type() {
    return "directory";
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    Path root = Path.of(spec.requireBucket());
    try {
      return DirectoryCloud.open(spec.id(), root);
    } catch (IOException e) {
      throw new UncheckedIOException("cloud spec " + spec.id() + ": cannot open " + root, e);
    }
  }
}
