package io.rafestore.drivers.gcs;

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
class GcsModuleTest {
  private static ModuleDescriptor descriptor() throws Exception {
    Path location =
        Path.of(GcsCloud.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return ModuleFinder.of(location)
        .find("io.rafestore.drivers.gcs")
        .orElseThrow(() -> new AssertionError("no io.rafestore.drivers.gcs at " + location))
        .descriptor();
  }

  @Test
  void exportsItsPackageRequiresCoreAndProvidesTheDriver() throws Exception {
    ModuleDescriptor m = descriptor();
    assertThat(m.isAutomatic()).isFalse();
    assertThat(m.exports()).hasSize(1);
    ModuleDescriptor.Exports export = m.exports().iterator().next();
    assertThat(export.source()).isEqualTo("io.rafestore.drivers.gcs");
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
                  .isEqualTo(java.util.List.of(GcsDriverProvider.class.getName()));
            });
    assertThat(Set.copyOf(m.packages())).containsExactly("io.rafestore.drivers.gcs");
  }

  /**
   * Only the SDK's HTTP side is required, none of it transitively (no Google type is in this
   * driver's API). The gRPC side (gax-grpc, proto-google-common-protos, the storage v2 stubs)
   * splits packages between jars, so it cannot be on the module path; it stays on the class path,
   * which the automatic modules below read.
   */
  @Test
  void requiresOnlyTheHttpSideOfTheSdk() throws Exception {
    ModuleDescriptor m = descriptor();
    assertThat(m.requires())
        .filteredOn(r -> !r.name().equals("io.rafestore"))
        .allSatisfy(
            r ->
                assertThat(r.modifiers())
                    .as("requires %s", r.name())
                    .doesNotContain(ModuleDescriptor.Requires.Modifier.TRANSITIVE));
    assertThat(m.requires().stream().map(ModuleDescriptor.Requires::name))
        .containsExactlyInAnyOrder(
            "java.base",
            "io.rafestore",
            "google.cloud.storage",
            "google.cloud.core",
            "google.cloud.core.http",
            "gax",
            "com.google.api.client",
            "com.google.api.client.http.apache.v2",
            "com.google.auth",
            "com.google.auth.oauth2",
            "org.apache.httpcomponents.httpclient");
  }
}
