package io.rafestore;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a test's {@code main} class in a JVM of its own, on this JVM's class and module path: for
 * tests that need a fresh JVM (a heap limit, a class-load log, no JFR yet).
 */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * What the child did.
   *
   * @param finished whether it ended within the limit (it is killed otherwise)
   * @param exitValue its exit code (-1 if it was killed)
   * @param output its standard output and error
   */
  public record Result(boolean finished, int exitValue, String output) {}

  /**
   * Runs {@code main} with {@code jvmOptions} and {@code args}, its output (both streams) logged to
   * {@code log}, for at most {@code limit}.
   */
  public static Result run(
      Class<?> main, List<String> jvmOptions, Path log, Duration limit, String... args)
      throws IOException, InterruptedException, URISyntaxException {
    List<String> cp = new ArrayList<>();
    cp.add(Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
    for (String p : new String[] {"jdk.module.path", "java.class.path"}) {
      String v = System.getProperty(p);
      if (v != null && !v.isEmpty()) {
        cp.add(v);
      }
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(String.join(File.pathSeparator, cp));
    command.add(main.getName());
    command.addAll(List.of(args));
    Process child =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean finished = child.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    if (!finished) {
      child.destroyForcibly().waitFor();
    }
    return new Result(
        finished, finished ? child.exitValue() : -1, Files.readString(log, StandardCharsets.UTF_8));
  }
}
