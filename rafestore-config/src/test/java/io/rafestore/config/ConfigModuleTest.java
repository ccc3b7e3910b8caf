package io.rafestore.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.testkit.CompiledModule;
import java.lang.module.ModuleDescriptor;
import org.junit.jupiter.api.Test;

/**
 * The configuration module's compiled descriptor (read with {@link ModuleFinder}; tests run on the
 * class path): one unqualified export, and the driver service declared as used, without which
 * {@link StoreConfig#knownDriverTypes()} throws on the module path.
 */
class ConfigModuleTest {
  private static ModuleDescriptor descriptor() {
    return CompiledModule.of(StoreConfig.class, "io.rafestore.config");
  }

  @Test
  void exportsItsPackageAndUsesTheDriverService() throws Exception {
    ModuleDescriptor m = descriptor();
    CompiledModule.assertOnePackageExported(m, "io.rafestore.config");
    assertThat(m.opens()).isEmpty();
    assertThat(m.uses()).containsExactly("io.rafestore.spi.DriverProvider");
  }
}
