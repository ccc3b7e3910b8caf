package io.rafestore.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;

/**
 * A module's compiled descriptor, for the tests that check what each published module exports.
 * Tests run on the class path, so the descriptor is read with {@link ModuleFinder} from where the
 * module's classes were loaded (its {@code target/classes}, which holds {@code module-info.class},
 * or its jar).
 */
public final class CompiledModule {
  private CompiledModule() {}

  /**
   * The descriptor of module {@code name}, compiled beside {@code anyClass}.
   *
   * @throws AssertionError if no explicit module of that name is there
   */
  public static ModuleDescriptor of(Class<?> anyClass, String name) {
    Path location;
    try {
      location = Path.of(anyClass.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new AssertionError("cannot locate the classes of " + anyClass.getName(), e);
    }
    ModuleDescriptor m =
        ModuleFinder.of(location)
            .find(name)
            .orElseThrow(() -> new AssertionError("no module " + name + " at " + location))
            .descriptor();
    assertThat(m.isAutomatic()).as("%s is an automatic module (no module-info)", name).isFalse();
    return m;
  }

  /**
   * Asserts that {@code m} holds only package {@code pkg} and exports it to everyone: its one
   * package is its API.
   */
  public static void assertOnePackageExported(ModuleDescriptor m, String pkg) {
    assertThat(Set.copyOf(m.packages())).as("packages of %s", m.name()).containsExactly(pkg);
    assertThat(m.exports())
        .as("exports of %s", m.name())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo(pkg);
              assertThat(e.isQualified()).as("export of %s is qualified", pkg).isFalse();
            });
  }
}
