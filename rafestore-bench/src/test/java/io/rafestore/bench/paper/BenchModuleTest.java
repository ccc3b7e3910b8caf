package io.rafestore.bench.paper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.testkit.CompiledModule;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks' compiled module descriptor (read with {@link ModuleFinder}; tests run on the
 * class path): only the paper harness, which the CLI runs, is exported, and JMH and BouncyCastle
 * are needed at compile time only, so the CLI can leave them out.
 */
class BenchModuleTest {
  private static ModuleDescriptor descriptor() {
    return CompiledModule.of(PaperBench.class, "io.rafestore.bench");
  }

  @Test
  void exportsOnlyThePaperHarness() throws Exception {
    ModuleDescriptor m = descriptor();
    assertThat(m.exports())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo("io.rafestore.bench.paper");
              assertThat(e.isQualified()).isFalse();
            });
    assertThat(m.opens()).isEmpty();
    assertThat(m.packages()).contains("io.rafestore.bench.jmh", "io.rafestore.bench.scale");
  }

  @Test
  void jmhAndBouncyCastleAreCompileTimeOnly() throws Exception {
    assertThat(descriptor().requires())
        .filteredOn(r -> r.name().equals("jmh.core") || r.name().startsWith("org.bouncycastle"))
        .hasSize(2)
        .allSatisfy(r -> assertThat(r.modifiers()).contains(Requires.Modifier.STATIC));
  }
}
