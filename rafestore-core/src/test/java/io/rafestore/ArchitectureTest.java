package io.rafestore;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The protocol's packages depend on each other one way (STYLE.md habit 11; design.md section 5):
 * each package of {@code io.rafestore.internal.protocol} may use only the packages below it in
 * {@link #LAYERS}, so a back-edge fails here even when it closes no cycle. Checked on the compiled
 * main classes of rafestore-core (tests excluded).
 */
class ArchitectureTest {
  private static final String PROTOCOL = "io.rafestore.internal.protocol";

  /** Bottom to top: a package may depend only on the packages listed before it. */
  static final List<String> LAYERS =
      List.of(
          "metadata",
          "trust",
          "config",
          "fairness",
          "selection",
          "context",
          "layout",
          "quorum",
          "write",
          "read",
          "maintenance",
          "client");

  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    core =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.rafestore");
  }

  @Test
  void protocolPackagesAreFreeOfCycles() {
    slices().matching(PROTOCOL + ".(*)..").should().beFreeOfCycles().check(core);
  }

  @Test
  void protocolPackagesDependOnlyOnThePackagesBelowThem() {
    LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
    for (String layer : LAYERS) {
      layers =
          layers
              .layer(layer)
              .definedBy(layer.equals("client") ? PROTOCOL : PROTOCOL + "." + layer + "..");
    }
    for (int i = 0; i < LAYERS.size(); i++) {
      String layer = LAYERS.get(i);
      if (i == 0) {
        layers = layers.whereLayer(layer).mayNotAccessAnyLayer();
      } else {
        layers =
            layers
                .whereLayer(layer)
                .mayOnlyAccessLayers(LAYERS.subList(0, i).toArray(String[]::new));
      }
    }
    layers.check(core);
  }

  @Test
  void everyProtocolClassIsInALayer() {
    // A new sub-package must be placed in LAYERS (and design.md's table), not slip past the rule.
    classes()
        .that()
        .resideInAPackage(PROTOCOL + "..")
        .should()
        .resideInAnyPackage(
            LAYERS.stream()
                .map(l -> l.equals("client") ? PROTOCOL : PROTOCOL + "." + l + "..")
                .toArray(String[]::new))
        .check(core);
  }

  @Test
  void spiAndCloudsDoNotDependOnTheProtocol() {
    noClasses()
        .that()
        .resideInAnyPackage("io.rafestore.spi..", "io.rafestore.clouds..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(PROTOCOL + "..")
        .check(core);
  }
}
