package io.rafestore.drivers.azure;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.testkit.CompiledModule;
import java.lang.module.ModuleDescriptor;
import org.junit.jupiter.api.Test;

/**
 * The driver's compiled module descriptor (target/classes holds module-info.class; tests run on the
 * class path, so it is read with {@link ModuleFinder}): one unqualified export, core required
 * transitively, the provider declared.
 */
class AzureModuleTest {
  private static ModuleDescriptor descriptor() {
    return CompiledModule.of(AzureBlobCloud.class, "io.rafestore.drivers.azure");
  }

  @Test
  void exportsItsPackageRequiresCoreAndProvidesTheDriver() throws Exception {
    ModuleDescriptor m = descriptor();
    CompiledModule.assertOnePackageExported(m, "io.rafestore.drivers.azure");
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
  }
}
