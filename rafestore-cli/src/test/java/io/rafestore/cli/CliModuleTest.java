package io.rafestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.testkit.CompiledModule;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires;
import org.junit.jupiter.api.Test;

/**
 * The command's compiled module descriptor (target/classes holds module-info.class; tests run on
 * the class path, so it is read with {@link ModuleFinder}): its one package exported, opened to
 * picocli alone, and the benchmark harness required but not passed on.
 */
class CliModuleTest {
  private static ModuleDescriptor descriptor() {
    return CompiledModule.of(Main.class, "io.rafestore.cli");
  }

  @Test
  void exportsItsPackageAndOpensItOnlyToPicocli() throws Exception {
    ModuleDescriptor m = descriptor();
    CompiledModule.assertOnePackageExported(m, "io.rafestore.cli");
    // picocli sets the commands' annotated fields reflectively; nobody else gets deep access.
    assertThat(m.opens())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.source()).isEqualTo("io.rafestore.cli");
              assertThat(o.targets()).containsExactly("info.picocli");
            });
  }

  @Test
  void requiresCoreTransitivelyAndTheRestPrivately() throws Exception {
    ModuleDescriptor m = descriptor();
    assertThat(m.requires())
        .filteredOn(r -> r.modifiers().contains(Requires.Modifier.TRANSITIVE))
        .extracting(Requires::name)
        // Main.newCommandLine returns a picocli CommandLine.
        .containsExactlyInAnyOrder("io.rafestore", "info.picocli");
    assertThat(m.requires())
        .extracting(Requires::name)
        .contains("io.rafestore.config", "io.rafestore.bench");
    // The bench is never published: an application that depends on the CLI must not need it.
    assertThat(m.requires())
        .filteredOn(r -> r.name().equals("io.rafestore.bench"))
        .singleElement()
        .satisfies(r -> assertThat(r.modifiers()).contains(Requires.Modifier.STATIC));
  }
}
