package io.rafestore.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The configuration module's compiled descriptor (read with {@link ModuleFinder}; tests run on the
 * class path): one unqualified export, and the driver service declared as used, without which
 * {@link StoreConfig#knownDriverTypes()} throws on the module path.
 */
class ConfigModuleTest {
  private static ModuleDescriptor descriptor() throws Exception {
    Path location =
        Path.of(StoreConfig.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return ModuleFinder.of(location)
        .find("io.rafestore.config")
        .orElseThrow(() -> new AssertionError("no io.rafestore.config at " + location))
        .descriptor();
  }

  @Test
  void exportsItsPackageAndUsesTheDriverService() throws Exception {
    ModuleDescriptor m = descriptor();
    assertThat(m.isAutomatic()).isFalse();
    assertThat(Set.copyOf(m.packages())).containsExactly("io.rafestore.config");
    assertThat(m.exports())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo("io.rafestore.config");
              assertThat(e.isQualified()).isFalse();
            });
    assertThat(m.opens()).isEmpty();
    assertThat(m.uses()).containsExactly("io.rafestore.spi.DriverProvider");
  }
}
