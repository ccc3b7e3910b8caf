package io.rafestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start-up logic of {@code scripts/rafestore}: when it writes the class-data sharing archive,
 * from which class lists, and which JVM options each command gets. The script runs in a copy of the
 * repository's layout with a stub {@code java} (through {@code JAVA_HOME}) that logs its arguments,
 * writes what the real one would (a class list, an archive) and exits with 7 when it runs a
 * command, so no JVM starts and no archive of 80 MB is written.
 */
class LauncherScriptTest {
  private static final Path SCRIPT = findScript();

  @TempDir Path root;
  private Path javaHome;
  private Path log;
  private Path jar;
  private Path jsa;
  private Path successList;

  private static Path findScript() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isRegularFile(p.resolve("scripts/rafestore"))) {
      p = p.getParent();
    }
    return p == null ? null : p.resolve("scripts/rafestore");
  }

  @BeforeEach
  void layout() throws IOException {
    assumeTrue(SCRIPT != null && Files.isExecutable(Path.of("/bin/bash")), "needs bash");
    Files.createDirectories(root.resolve("scripts"));
    Files.copy(SCRIPT, root.resolve("scripts/rafestore"));
    jar = root.resolve("rafestore-cli/target/rafestore.jar");
    jsa = root.resolve("rafestore-cli/target/rafestore.jsa");
    Files.createDirectories(jar.getParent());
    Files.writeString(jar, "not a jar");
    successList = root.resolve("rafestore-cli/src/main/cds/success-path.classlist");
    Files.createDirectories(successList.getParent());
    Files.writeString(
        successList, "# a comment\nio/rafestore/cli/Main\njava/lang/Object\npicocli/CommandLine\n");
    setTime(successList, 1000);
    setTime(jar, 2000);

    javaHome = root.resolve("jdk");
    log = root.resolve("java.log");
    Files.createDirectories(javaHome.resolve("bin"));
    Files.createDirectories(javaHome.resolve("lib"));
    Files.writeString(javaHome.resolve("lib/classlist"), "# jdk\njava/lang/Object\n");
    Path java = javaHome.resolve("bin/java");
    // One line per invocation in the log; the class list handed to -Xshare:dump is kept.
    Files.writeString(
        java,
        String.join(
            "\n",
            "#!/bin/bash",
            "echo \"$*\" >> '" + log + "'",
            "for a in \"$@\"; do case \"$a\" in",
            "  -XX:DumpLoadedClassList=*) printf 'io/rafestore/drivers/s3/S3Cloud\\n"
                + "picocli/CommandLine\\n' > \"${a#*=}\"; training=1 ;;",
            "  -XX:SharedClassListFile=*) cp \"${a#*=}\" '" + log + ".list' ;;",
            "  -XX:SharedArchiveFile=*) archive=\"${a#*=}\" ;;",
            "  -Xshare:dump) dump=1 ;;",
            "esac; done",
            "if [[ -n \"${training:-}\" ]]; then exit 1; fi",
            "if [[ -n \"${dump:-}\" ]]; then",
            "  [[ -n \"${STUB_DUMP_FAILS:-}\" ]] && exit 1",
            "  echo archive > \"$archive\"; exit 0",
            "fi",
            "exit 7",
            ""),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static void setTime(Path p, long seconds) throws IOException {
    Files.setLastModifiedTime(p, FileTime.from(Instant.ofEpochSecond(1_700_000_000L + seconds)));
  }

  private int run(String... args) throws Exception {
    return run(List.of(), args);
  }

  private int run(List<String> env, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of("/bin/bash", root.resolve("scripts/rafestore").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("JAVA_HOME", javaHome.toString());
    pb.environment().remove("RAFESTORE_CDS");
    for (String e : env) {
      pb.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
    }
    pb.redirectOutput(root.resolve("out.txt").toFile());
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the script did not finish");
    return p.exitValue();
  }

  private List<String> invocations() throws IOException {
    List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
    Files.deleteIfExists(log);
    return lines;
  }

  @Test
  void firstRunWritesAStaticArchiveFromTheThreeListsThenMapsIt() throws Exception {
    assertEquals(7, run("-c", "x.properties", "get", "k"));
    List<String> calls = invocations();
    assertEquals(3, calls.size(), calls.toString());
    assertTrue(calls.get(0).contains("-XX:DumpLoadedClassList="), calls.get(0));
    assertTrue(calls.get(0).contains("-jar " + jar), calls.get(0));
    assertTrue(calls.get(1).contains("-Xshare:dump"), calls.get(1));
    assertTrue(calls.get(1).contains("-cp " + jar), calls.get(1));
    assertTrue(calls.get(2).contains("-XX:SharedArchiveFile=" + jsa), calls.get(2));
    assertTrue(calls.get(2).endsWith("-jar " + jar + " -c x.properties get k"), calls.get(2));
    // The S3 transport without Netty, in the training run and the command alike.
    assertTrue(calls.get(0).contains("-Drafestore.s3.transport=apache"), calls.get(0));
    assertTrue(calls.get(2).contains("-Drafestore.s3.transport=apache"), calls.get(2));
    // The JDK's list, then the success path's, then the training run's; each name once, no
    // comments.
    assertEquals(
        List.of(
            "java/lang/Object",
            "io/rafestore/cli/Main",
            "picocli/CommandLine",
            "io/rafestore/drivers/s3/S3Cloud"),
        Files.readAllLines(Path.of(log + ".list")));
    assertTrue(Files.isRegularFile(jsa));

    // The next run maps the archive without writing it again.
    assertEquals(7, run("get", "k"));
    calls = invocations();
    assertEquals(1, calls.size(), calls.toString());
    assertTrue(calls.get(0).contains("-XX:SharedArchiveFile=" + jsa), calls.get(0));
  }

  @Test
  void aNewerSuccessListOrJarWritesTheArchiveAgain() throws Exception {
    assertEquals(7, run("get", "k"));
    invocations();
    setTime(jsa, 3000);
    setTime(successList, 4000);
    assertEquals(7, run("get", "k"));
    assertEquals(3, invocations().size());

    setTime(jsa, 5000);
    setTime(jar, 6000);
    assertEquals(7, run("get", "k"));
    assertEquals(3, invocations().size());
  }

  @Test
  void aFailedDumpLeavesTheCommandToRunWithoutAnArchive() throws Exception {
    assertEquals(7, run(List.of("STUB_DUMP_FAILS=1"), "get", "k"));
    List<String> calls = invocations();
    assertEquals(3, calls.size(), calls.toString());
    assertFalse(calls.get(2).contains("SharedArchiveFile"), calls.get(2));
    assertFalse(Files.exists(jsa));
    try (var files = Files.list(jar.getParent())) {
      assertEquals(
          List.of(),
          files.map(f -> f.getFileName().toString()).filter(n -> n.contains(".jsa")).toList());
    }
  }

  @Test
  void cdsOffRunsThePlainJar() throws Exception {
    assertEquals(7, run(List.of("RAFESTORE_CDS=0"), "get", "k"));
    List<String> calls = invocations();
    assertEquals(1, calls.size(), calls.toString());
    assertFalse(calls.get(0).contains("SharedArchiveFile"), calls.get(0));
    assertFalse(Files.exists(jsa));
  }

  @Test
  void commandsThatMoveNoBulkDataRunWithoutC2AndTheOthersReachC2Late() throws Exception {
    for (String[] args :
        List.of(
            new String[] {"ls"},
            new String[] {"-c", "get", "history", "k"},
            new String[] {"--config", "x", "rm", "k"},
            new String[] {"--version"},
            new String[] {"-v", "keygen", "--id", "a"})) {
      run(List.of("RAFESTORE_CDS=0"), args);
      String call = invocations().get(0);
      assertTrue(call.contains("-XX:TieredStopAtLevel=1"), call);
      assertFalse(call.contains("Tier4"), call);
    }
    for (String[] args :
        List.of(
            new String[] {"get", "ls"},
            new String[] {"-c", "ls", "cat", "k"},
            new String[] {"--json", "put", "k", "f"},
            new String[] {"cp", "-r", "a", "b"},
            new String[] {"verify", "k"},
            new String[] {"probe"},
            new String[] {"bench"})) {
      run(List.of("RAFESTORE_CDS=0"), args);
      String call = invocations().get(0);
      assertFalse(call.contains("TieredStopAtLevel"), call);
      assertTrue(call.contains("-XX:Tier4InvocationThreshold=500000"), call);
      assertTrue(call.contains("-XX:Tier4BackEdgeThreshold=4000000"), call);
    }
  }

  @Test
  void missingListsLeaveTheOthers() throws Exception {
    Files.delete(successList);
    Files.delete(javaHome.resolve("lib/classlist"));
    assertEquals(7, run("get", "k"));
    List<String> calls = invocations();
    assertEquals(3, calls.size(), calls.toString());
    assertTrue(calls.get(2).contains("-XX:SharedArchiveFile=" + jsa), calls.get(2));
    assertEquals(
        List.of("io/rafestore/drivers/s3/S3Cloud", "picocli/CommandLine"),
        Files.readAllLines(Path.of(log + ".list")));
  }
}
