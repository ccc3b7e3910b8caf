package io.rafestore.drivers.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.testkit.CompiledModule;
import java.lang.module.ModuleDescriptor;
import org.junit.jupiter.api.Test;

/**
 * The driver's compiled module descriptor (target/classes holds module-info.class; tests run on the
 * class path, so it is read with {@link ModuleFinder}): one unqualified export, core required
 * transitively, the provider declared.
 */
class GcsModuleTest {
  private static ModuleDescriptor descriptor() {
    return CompiledModule.of(GcsCloud.class, "io.rafestore.drivers.gcs");
  }

  @Test
  void exportsItsPackageRequiresCoreAndProvidesTheDriver() throws Exception {
    ModuleDescriptor m = descriptor();
    CompiledModule.assertOnePackageExported(m, "io.rafestore.drivers.gcs");
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
  }

  /**
   * Only the SDK's HTTP side is required, and transitively only the auth library, whose {@code
   * Credentials} type {@code GcsCloud.Builder.credentials} takes. The gRPC side (gax-grpc,
   * proto-google-common-protos, the storage v2 stubs) splits packages between jars, so it cannot be
   * on the module path; it stays on the class path, which the automatic modules below read.
   */
  @Test
  void requiresOnlyTheHttpSideOfTheSdk() throws Exception {
    ModuleDescriptor m = descriptor();
    assertThat(m.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder("io.rafestore", "com.google.auth");
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
