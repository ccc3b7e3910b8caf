package io.rafestore.modules;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module boundary of rafestore-core, checked on the module path against the compiled module
 * (target/classes, which holds module-info.class): only the API packages are exported, and a named
 * module that requires io.rafestore cannot compile against an internal package.
 */
class ModuleBoundaryTest {
  private static final Set<String> API =
      Set.of("io.rafestore", "io.rafestore.spi", "io.rafestore.spi.support", "io.rafestore.clouds");

  @TempDir Path dir;

  /** Where the io.rafestore module was compiled to (a directory, or a jar if run against one). */
  private static Path coreModule() throws URISyntaxException {
    return Path.of(RafeStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static ModuleDescriptor descriptor() throws URISyntaxException {
    Path location = coreModule();
    ModuleReference ref =
        ModuleFinder.of(location)
            .find("io.rafestore")
            .orElseThrow(() -> new AssertionError("no module io.rafestore in " + location));
    return ref.descriptor();
  }

  @Test
  void onlyTheApiPackagesAreExportedAndToEveryone() throws Exception {
    ModuleDescriptor core = descriptor();
    assertThat(core.isAutomatic()).isFalse();
    assertThat(core.exports())
        .allSatisfy(e -> assertThat(e.isQualified()).as("qualified export %s", e).isFalse());
    assertThat(core.exports().stream().map(ModuleDescriptor.Exports::source))
        .containsExactlyInAnyOrderElementsOf(API);
    assertThat(core.opens()).isEmpty();
    // The internals are in the module (so the check above is not vacuous), just not exported.
    assertThat(core.packages())
        .contains("io.rafestore.internal.protocol", "io.rafestore.internal.codec");
  }

  @Test
  void driverDiscoveryIsDeclared() throws Exception {
    ModuleDescriptor core = descriptor();
    assertThat(core.uses()).contains("io.rafestore.spi.DriverProvider");
    assertThat(core.provides())
        .anySatisfy(p -> assertThat(p.service()).isEqualTo("io.rafestore.spi.DriverProvider"));
  }

  @Test
  void aModuleThatRequiresCoreCompilesAgainstTheApi() throws Exception {
    Result r =
        compile(
            "Good",
            "import io.rafestore.RafeStore;\n"
                + "import io.rafestore.clouds.MemoryCloud;\n"
                + "import io.rafestore.spi.ForwardingCloud;\n"
                + "import io.rafestore.spi.support.Futures;\n"
                + "public class Good extends ForwardingCloud {\n"
                + "  Good() { super(new MemoryCloud(\"p0\")); }\n"
                + "  static RafeStore.Builder b() { Futures.unwrap(null); return RafeStore.builder(); }\n"
                + "}\n");
    assertThat(r.ok).as(r.diagnostics).isTrue();
  }

  @Test
  void aModuleThatRequiresCoreCannotImportItsInternals() throws Exception {
    // Public classes of internal packages: only the module boundary stands in the way.
    for (String internal :
        List.of(
            "io.rafestore.internal.cloud.AccountingCloud",
            "io.rafestore.internal.codec.Sha256",
            "io.rafestore.internal.protocol.context.Combine")) {
      Result r =
          compile(
              "Bad",
              "import " + internal + ";\npublic class Bad { " + simple(internal) + " x; }\n");
      assertThat(r.ok).as("compiling against %s", internal).isFalse();
      assertThat(r.diagnostics).contains("does not export");
    }
  }

  private static String simple(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  private record Result(boolean ok, String diagnostics) {}

  /** Compiles module {@code probe} (requires io.rafestore) holding one class of package probe. */
  private Result compile(String className, String body) throws IOException, URISyntaxException {
    Path src = dir.resolve("src-" + className);
    Files.createDirectories(src.resolve("probe"));
    Path info = src.resolve("module-info.java");
    Files.writeString(info, "module probe { requires io.rafestore; }\n", StandardCharsets.UTF_8);
    Path type = src.resolve("probe").resolve(className + ".java");
    Files.writeString(type, "package probe;\n" + body, StandardCharsets.UTF_8);
    Path out = Files.createDirectories(dir.resolve("out-" + className));

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    // An empty class path: in-process javac would otherwise take this JVM's (which holds core's
    // classes) and find the internal packages in the unnamed module instead of in io.rafestore.
    Path emptyClassPath = Files.createDirectories(dir.resolve("empty"));
    List<String> options =
        List.of(
            "--release",
            "17",
            "--class-path",
            emptyClassPath.toString(),
            "--module-path",
            coreModule().toString(),
            "-d",
            out.toString());
    boolean ok;
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      ok =
          javac
              .getTask(
                  diagnostics, files, null, options, null, files.getJavaFileObjects(info, type))
              .call();
    }
    return new Result(ok, diagnostics.toString());
  }
}
