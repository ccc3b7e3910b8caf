package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.drivers.azure.AzureBlobCloud;
import io.rafestore.drivers.gcs.GcsCloud;
import io.rafestore.drivers.redis.RedisCloud;
import io.rafestore.drivers.s3.S3Cloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README.md's quick start, taken from the README itself (the Java block between the {@code
 * quickstart-java} markers), compiled with javax.tools against this module's class path (the four
 * drivers and core) and run against the local emulators; it must print what it wrote. So the README
 * cannot drift from the API. Skipped, with the reason, when the emulators' environment ({@code eval
 * "$(scripts/emulators.sh env)"}) is absent.
 */
class ReadmeQuickStartTest {
  /** The names the quick start uses on every cloud (bucket, container, Redis key prefix). */
  private static final String NAME = "rafestore-quickstart";

  private static final List<String> ENV =
      List.of(
          "RAFESTORE_S3_ENDPOINT",
          "RAFESTORE_S3_ACCESS_KEY",
          "RAFESTORE_S3_SECRET_KEY",
          "RAFESTORE_AZURE_CONNECTION_STRING",
          "RAFESTORE_GCS_ENDPOINT",
          "RAFESTORE_REDIS_URI");

  @TempDir Path dir;

  /** README.md, found from the working directory (the module's, under Maven) upwards. */
  static Path readme() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path candidate = d.resolve("README.md");
      if (Files.isRegularFile(candidate) && Files.isDirectory(d.resolve("rafestore-core"))) {
        return candidate;
      }
    }
    throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
  }

  /** The fenced block of {@code language} between {@code <!-- NAME:begin -->} and its end. */
  static String snippet(String readme, String name, String language) {
    Matcher m =
        Pattern.compile(
                "<!-- "
                    + Pattern.quote(name)
                    + ":begin -->\\s*```"
                    + Pattern.quote(language)
                    + "\\n(.*?)```\\s*<!-- "
                    + Pattern.quote(name)
                    + ":end -->",
                Pattern.DOTALL)
            .matcher(readme);
    if (!m.find()) {
      throw new IllegalStateException(
          "README.md has no ```" + language + " block between the " + name + " markers");
    }
    return m.group(1);
  }

  @Test
  void readmeHasTheQuickStartBlocks() throws IOException {
    String readme = Files.readString(readme());
    String java = snippet(readme, "quickstart-java", "java");
    assertThat(java).contains("public class QuickStart").contains("S3Cloud.builder(");
    assertThat(snippet(readme, "quickstart-maven", "xml"))
        .contains("<artifactId>rafestore-bom</artifactId>")
        .contains("<scope>import</scope>")
        .contains("<artifactId>rafestore-driver-s3</artifactId>");
  }

  @Test
  void quickStartCompilesAndRunsOnTheEmulators() throws Exception {
    List<String> missing = ENV.stream().filter(n -> blank(System.getenv(n))).toList();
    Assumptions.assumeTrue(
        missing.isEmpty(),
        () ->
            "README quick start not run: "
                + missing
                + " not set (scripts/emulators.sh start; eval \"$(scripts/emulators.sh env)\")");
    String source = snippet(Files.readString(readme()), "quickstart-java", "java");

    Path src = dir.resolve("src/QuickStart.java");
    Path classes = dir.resolve("classes");
    Files.createDirectories(src.getParent());
    Files.createDirectories(classes);
    Files.writeString(src, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac).as("a JDK (javax.tools) runs the tests").isNotNull();
    StringWriter diagnostics = new StringWriter();
    String classPath = System.getProperty("surefire.test.class.path");
    if (blank(classPath)) {
      classPath = System.getProperty("java.class.path");
    }
    Boolean compiled =
        javac
            .getTask(
                diagnostics,
                null,
                null,
                List.of(
                    "--release",
                    "17",
                    "-Xlint:all",
                    "-Werror",
                    "-classpath",
                    classPath,
                    "-d",
                    classes.toString()),
                null,
                javac
                    .getStandardFileManager(null, null, StandardCharsets.UTF_8)
                    .getJavaFileObjects(src))
            .call();
    assertThat(compiled).as("README quick start compiles:%n%s", diagnostics).isTrue();

    emptyTheQuickStartNamespaces();

    PrintStream original = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try (URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()}, ReadmeQuickStartTest.class.getClassLoader())) {
      Method main = loader.loadClass("QuickStart").getMethod("main", String[].class);
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      try {
        main.invoke(null, (Object) new String[0]);
      } finally {
        System.setOut(original);
      }
    }
    assertThat(printed.toString(StandardCharsets.UTF_8).strip()).isEqualTo("first post");
  }

  /**
   * Empties what earlier runs left under the quick start's names, so each run starts from a fresh
   * store (the quick start makes a new writer key every time).
   */
  private static void emptyTheQuickStartNamespaces() throws Exception {
    S3Cloud s3 =
        S3Cloud.builder("s3")
            .endpoint(URI.create(Emulators.env("RAFESTORE_S3_ENDPOINT")))
            .pathStyle(true)
            .credentials(
                Emulators.env("RAFESTORE_S3_ACCESS_KEY"), Emulators.env("RAFESTORE_S3_SECRET_KEY"))
            .bucket(NAME)
            .build();
    s3.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    GcsCloud gcs =
        GcsCloud.builder("gcs")
            .endpoint(URI.create(Emulators.env("RAFESTORE_GCS_ENDPOINT")))
            .anonymous(true)
            .projectId(NAME)
            .bucket(NAME)
            .build();
    gcs.createBucketIfMissing().get(60, TimeUnit.SECONDS);
    AzureBlobCloud azure =
        AzureBlobCloud.builder("azure")
            .connectionString(Emulators.env("RAFESTORE_AZURE_CONNECTION_STRING"))
            .container(NAME)
            .build();
    RedisCloud redis =
        RedisCloud.builder("redis")
            .uri(URI.create(Emulators.env("RAFESTORE_REDIS_URI")))
            .keyPrefix(NAME + "/")
            .build();
    // Azure makes its container on the first write: one write, so that listing it works.
    azure.put(ObjectKey.of("quickstart-probe"), new byte[0]).get(60, TimeUnit.SECONDS);
    for (CloudDriver cloud : List.of(s3, gcs, azure, redis)) {
      try (cloud) {
        for (ObjectInfo o : cloud.list("").get(60, TimeUnit.SECONDS)) {
          cloud.delete(o.key()).get(60, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
