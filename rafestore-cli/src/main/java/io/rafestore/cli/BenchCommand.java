package io.rafestore.cli;

import io.rafestore.bench.paper.PaperBench;
import io.rafestore.config.CloudConfig;
import io.rafestore.config.ConfigException;
import io.rafestore.config.StoreConfig;
import io.rafestore.spi.CloudDriver;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code rafestore bench [OPTIONS]}: the paper reproduction (the paper's Table 3 and Figure 3
 * against DepSky-A and DepSky-CA on the emulated WAN profiles), the same harness {@code
 * scripts/bench.sh} runs. Every argument goes to {@link PaperBench#run}; {@code rafestore bench
 * --help} lists them. Needs no configuration file: it builds its own in-memory clouds, unless
 * {@code --clouds-from FILE} names a configuration whose first four clouds (the local emulators, or
 * real clouds) then stand behind the profile's p0..p3, with the emulated WAN around them.
 */
@Command(
    name = "bench",
    description = {
      "Reproduces the paper's Table 3 and Figure 3 against DepSky-A/CA on emulated WAN profiles",
      "(in-memory clouds; no configuration needed). Options: 'rafestore bench --help'; e.g.",
      "'rafestore bench --quick --out DIR'. --clouds-from FILE runs on the first four clouds",
      "of a configuration file (e.g. the emulators) instead, the WAN profile emulated around them."
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Unmatched List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<String> rest = new ArrayList<>(args);
    int at = rest.indexOf("--clouds-from");
    Function<String, CloudDriver> clouds = null;
    if (at >= 0) {
      if (at + 1 >= rest.size()) {
        throw new UsageException("--clouds-from needs a configuration file");
      }
      StoreConfig config = StoreConfig.load(Path.of(rest.get(at + 1)));
      rest.subList(at, at + 2).clear();
      clouds = externalClouds(config, err);
    }
    if (!Harness.present()) {
      err.println(
          "rafestore bench: the paper harness (rafestore-bench) is not on the class path; it is"
              + " part of the packaged command (scripts/rafestore), not of the rafestore-cli"
              + " artifact");
      return ExitCodes.FAILED;
    }
    try (PrintStream o = streamTo(out);
        PrintStream e = streamTo(err)) {
      return Harness.run(rest.toArray(new String[0]), o, e, clouds);
    }
  }

  /**
   * The only place that names the harness: loaded when the command runs, so the rest of the CLI
   * works without the optional rafestore-bench.
   */
  private static final class Harness {
    static boolean present() {
      try {
        Class.forName(
            "io.rafestore.bench.paper.PaperBench", false, BenchCommand.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException e) {
        return false;
      }
    }

    static int run(
        String[] args, PrintStream out, PrintStream err, Function<String, CloudDriver> clouds)
        throws Exception {
      return PaperBench.run(args, out, err, clouds);
    }
  }

  /**
   * The profile's clouds p0..p3 mapped, in order, to the configuration's first four clouds, their
   * buckets created first.
   */
  private static Function<String, CloudDriver> externalClouds(StoreConfig config, PrintWriter err)
      throws Exception {
    List<CloudConfig> list = config.clouds();
    if (list.size() < PROFILE_CLOUDS) {
      throw new UsageException(
          config.source()
              + " names "
              + list.size()
              + " clouds; the benchmark profile needs "
              + PROFILE_CLOUDS
              + " (p0..p3, taken in the file's order)");
    }
    for (int i = 0; i < PROFILE_CLOUDS; i++) {
      try (CloudDriver d = config.createDriver(list.get(i))) {
        CompletableFuture<Void> creation = InitCommand.createBucket(d);
        if (creation != null) {
          creation.get(60, TimeUnit.SECONDS);
        }
      }
      err.printf("bench: p%d is %s (%s)%n", i, list.get(i).id(), list.get(i).spec().type());
    }
    return id -> {
      int index = Integer.parseInt(id.substring(1));
      CloudConfig c = list.get(index);
      try {
        // The profile's id, so results and prices name p0..p3 whatever the clouds are called.
        return new RenamedCloud(id, config.createDriver(c));
      } catch (ConfigException e) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
    };
  }

  private static final int PROFILE_CLOUDS = 4;

  /** A print stream that forwards UTF-8 text to {@code writer}, line by line. */
  private static PrintStream streamTo(PrintWriter writer) {
    OutputStream bytes =
        new OutputStream() {
          private final java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();

          @Override
          public void write(int b) {
            pending.write(b);
            if (b == '\n' || b == '\r') {
              flush();
            }
          }

          @Override
          public void flush() {
            writer.write(pending.toString(StandardCharsets.UTF_8));
            pending.reset();
            writer.flush();
          }

          @Override
          public void close() {
            flush();
          }
        };
    return new PrintStream(bytes, true, StandardCharsets.UTF_8);
  }
}
