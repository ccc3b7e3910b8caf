package io.rafestore.cli;

import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The top-level {@code rafestore} command: the options every subcommand shares ({@code --config},
 * {@code --json}, {@code --verbose}) and the process's streams and environment, injected so that
 * tests run the command in-process. A new subcommand is one more class in {@code subcommands}: a
 * {@link StoreCommand} if it works on the configured store, any {@link Callable} otherwise.
 *
 * <p>Not thread-safe: one instance serves one command line.
 */
@Command(
    name = "rafestore",
    mixinStandardHelpOptions = true,
    versionProvider = RafeStoreCommand.Version.class,
    description =
        "Keeps data on several clouds so that no f of them can lose, corrupt or forge it.",
    subcommands = {
      PutCommand.class,
      GetCommand.class,
      HistoryCommand.class,
      RmCommand.class,
      KeygenCommand.class,
      InitCommand.class,
      VerifyCommand.class,
      GcCommand.class,
      ProbeCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done",
      "1:the operation failed (clouds unreachable, key or version not found, ...)",
      "2:bad arguments, or a missing or invalid configuration or key file",
      "3:an integrity problem was found"
    },
    footer = {"", "Every setting of the configuration file is described in docs/cli.md."})
public final class RafeStoreCommand implements Callable<Integer> {
  /** The environment variable naming the configuration file when --config is not given. */
  public static final String CONFIG_ENV = "RAFESTORE_CONFIG";

  /** The configuration file used when neither --config nor RAFESTORE_CONFIG is given. */
  public static final String DEFAULT_CONFIG = "rafestore.properties";

  @Spec CommandSpec spec;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description =
          "The configuration file (default: $" + CONFIG_ENV + ", else ./" + DEFAULT_CONFIG + ").")
  Path config;

  @Option(
      names = "--json",
      scope = ScopeType.INHERIT,
      description = "Print the result as one JSON object on standard output.")
  boolean json;

  boolean verbose;

  private final InputStream stdin;
  private final OutputStream stdout;
  private final Map<String, String> env;

  /**
   * @param stdin what {@code put KEY -} reads
   * @param stdout where {@code get} writes value bytes (text goes to the command line's writer,
   *     which must write to the same stream)
   * @param env the environment, for {@value #CONFIG_ENV}
   */
  public RafeStoreCommand(InputStream stdin, OutputStream stdout, Map<String, String> env) {
    this.stdin = Objects.requireNonNull(stdin, "stdin");
    this.stdout = Objects.requireNonNull(stdout, "stdout");
    this.env = Map.copyOf(env);
  }

  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "Show stack traces on errors, and the cloud SDKs' log messages.")
  void setVerbose(boolean verbose) {
    this.verbose = verbose;
    if (verbose) {
      // Read by slf4j-simple when its first logger is made, which is after parsing.
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    }
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }

  /** The configuration file this run uses. */
  Path configFile() {
    if (config != null) {
      return config;
    }
    String fromEnv = env.get(CONFIG_ENV);
    return Path.of(fromEnv != null && !fromEnv.isBlank() ? fromEnv : DEFAULT_CONFIG);
  }

  /** Loads and validates the configuration file. */
  StoreConfig loadConfig() throws IOException, UsageException {
    Path file = configFile();
    try {
      return StoreConfig.load(file);
    } catch (NoSuchFileException e) {
      if (e.getFile() != null && !Path.of(e.getFile()).equals(file)) {
        throw e; // a key file named by the configuration; the parser names the line
      }
      throw new UsageException(
          "configuration file "
              + file
              + " does not exist (give --config FILE or set "
              + CONFIG_ENV
              + "; docs/cli.md describes the format)",
          e);
    }
  }

  InputStream stdin() {
    return stdin;
  }

  OutputStream stdout() {
    return stdout;
  }

  /** Reports the version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = RafeStoreCommand.class.getPackage().getImplementationVersion();
      return new String[] {"rafestore " + (v == null ? "(development build)" : v)};
    }
  }
}
