package io.rafestore.drivers.azure;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The driver's compiled module descriptor (target/classes holds module-info.class; tests run on the
 * class path, so it is read with {@link ModuleFinder}): one unqualified export, core required
 * transitively, the provider declared.
 */
class AzureModuleTest {
  private static ModuleDescriptor descriptor() throws Exception {
    Path location =
        Path.of(AzureBlobCloud.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return ModuleFinder.of(location)
        .find("io.rafestore.drivers.azure")
        .orElseThrow(() -> new AssertionError("no io.rafestore.drivers.azure at " + location))
        .descriptor();
  }

  @Test
  void exportsItsPackageRequiresCoreAndProvidesTheDriver() throws Exception {
    ModuleDescriptor m = descriptor();
    assertThat(m.isAutomatic()).isFalse();
    assertThat(m.exports()).hasSize(1);
    ModuleDescriptor.Exports export = m.exports().iterator().next();
    assertThat(export.source()).isEqualTo("io.rafestore.drivers.azure");
    assertThat(export.isQualified()).isFalse();
    assertThat(m.opens()).isEmpty();
    assertThat(m.requires())
        .anySatisfy(
            r -> {
              assertThat(r.name()).isEqualTo("io.rafestore");
              assertThat(r.modifiers()).contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE);
            });
    assertThat(m.provides())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.service()).isEqualTo("io.rafestore.spi.DriverProvider");
              assertThat(p.providers())
                  .isEqualTo(java.util.List.of(AzureDriverProvider.class.getName()));
            });
    assertThat(Set.copyOf(m.packages())).containsExactly("io.rafestore.drivers.azure");
  }
}
