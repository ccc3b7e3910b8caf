package io.rafestore.clouds;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Creates drivers from configuration: finds the {@link DriverProvider} whose {@link
 * DriverProvider#type()} matches {@link CloudSpec#type()} among those on the class path. Core ships
 * the {@code memory} type; each driver module adds its own. Thread-safe.
 */
public final class Drivers {
  private Drivers() {}

  /**
   * A new driver for {@code spec}.
   *
   * @throws IllegalArgumentException if no provider has the spec's type (the message lists the
   *     known types) or the spec lacks a field the type needs (the message names it)
   */
  public static CloudDriver create(CloudSpec spec) {
    return provider(spec).create(spec);
  }

  /**
   * Checks {@code spec} and returns what creates its driver ({@link DriverProvider#prepare}): the
   * settings its provider can check without building the SDK's client are checked here.
   *
   * @throws IllegalArgumentException as {@link #create}
   */
  public static Supplier<CloudDriver> prepare(CloudSpec spec) {
    return provider(spec).prepare(spec);
  }

  private static DriverProvider provider(CloudSpec spec) {
    Objects.requireNonNull(spec, "spec");
    Map<String, DriverProvider> providers = providers(Drivers.class.getClassLoader());
    DriverProvider provider = providers.get(spec.type());
    if (provider == null) {
      throw new IllegalArgumentException(
          "cloud spec "
              + spec.id()
              + ": unknown type '"
              + spec.type()
              + "', known types: "
              + providers.keySet());
    }
    return provider;
  }

  /** The providers on the class path of {@code loader}, by type, in type order. */
  static Map<String, DriverProvider> providers(ClassLoader loader) {
    Map<String, DriverProvider> byType = new TreeMap<>();
    for (DriverProvider p : ServiceLoader.load(DriverProvider.class, loader)) {
      byType.putIfAbsent(p.type(), p);
    }
    return byType;
  }
}
