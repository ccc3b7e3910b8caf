package io.rafestore.drivers.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import io.rafestore.drivers.gcs.probe.ModulePathProbe;
import java.io.File;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The driver as a named module, in a JVM of its own: core, this module and the jars it requires on
 * the module path, every other jar of the SDK on the class path (its gRPC jars split packages, so
 * the whole set cannot be modules; design.md section 2). {@link ModulePathProbe} then finds the
 * provider through {@code Drivers} and fetches an object from a local HTTP server.
 */
class GcsModulePathTest {
  private static final String DRIVER = "io.rafestore.drivers.gcs";

  private static Path locationOf(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /**
   * The class-path jars that hold the modules the driver and core require (core's BouncyCastle,
   * the driver's SDK modules).
   */
  private static List<Path> requiredJars(List<ModuleDescriptor> modules, List<Path> classPath) {
    Set<String> wanted = new HashSet<>();
    for (ModuleDescriptor m : modules) {
      for (ModuleDescriptor.Requires r : m.requires()) {
        if (!r.name().startsWith("java.")
            && !r.name().startsWith("jdk.")
            && !r.name().equals("io.rafestore")
            && !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
          wanted.add(r.name());
        }
      }
    }
    List<Path> found = new ArrayList<>();
    for (Path entry : classPath) {
      if (!entry.toString().endsWith(".jar")) {
        continue;
      }
      try {
        for (ModuleReference m : ModuleFinder.of(entry).findAll()) {
          if (wanted.remove(m.descriptor().name())) {
            found.add(entry);
          }
        }
      } catch (FindException e) {
        // No module name can be derived from this jar: not one the driver requires.
      }
    }
    assertThat(wanted).as("required modules missing from the class path").isEmpty();
    return found;
  }

  @Test
  void findsAndRunsTheDriverOnTheModulePath() throws Exception {
    Path driverClasses = locationOf(GcsCloud.class);
    ModuleDescriptor driver =
        ModuleFinder.of(driverClasses).find(DRIVER).orElseThrow().descriptor();
    List<Path> classPath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      classPath.add(Path.of(entry));
    }
    Path coreClasses = locationOf(RafeStore.class);
    ModuleDescriptor core =
        ModuleFinder.of(coreClasses).find("io.rafestore").orElseThrow().descriptor();
    List<Path> modulePath = new ArrayList<>(List.of(coreClasses, driverClasses));
    modulePath.addAll(requiredJars(List.of(driver, core), classPath));
    List<Path> rest = new ArrayList<>(classPath);
    rest.removeAll(modulePath);

    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--module-path",
            join(modulePath),
            "--add-modules",
            DRIVER,
            "--class-path",
            join(rest),
            ModulePathProbe.class.getName());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String output;
    try (var in = p.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output)
        .contains("driver in module " + DRIVER)
        .contains("body: from the module path");
  }

  private static String join(List<Path> paths) {
    List<String> s = new ArrayList<>();
    paths.forEach(x -> s.add(x.toString()));
    return String.join(File.pathSeparator, s);
  }
}
