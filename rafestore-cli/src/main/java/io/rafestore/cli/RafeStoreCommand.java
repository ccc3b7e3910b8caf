package io.rafestore.cli;

import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
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
 * tests run the command in-process. A new subcommand is one more entry in {@link #SUBCOMMANDS}: a
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
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done",
      "1:the operation failed for another reason (a local file, a bucket, ...)",
      "2:bad arguments, or a missing or invalid configuration or key file",
      "3:an integrity problem was found (bytes or metadata that do not verify)",
      "4:the key or version was not found (or was deleted or collected)",
      "5:unavailable: too many clouds unreachable or failing (more than f)"
    },
    footer = {"", "Every setting of the configuration file is described in docs/cli.md."})
public final class RafeStoreCommand implements Callable<Integer> {
  /** The environment variable naming the configuration file when --config is not given. */
  public static final String CONFIG_ENV = ConfigLocator.CONFIG_ENV;

  /**
   * Every subcommand, by name. {@link Main#newCommandLine} registers only the one a command line
   * names (picocli reflects over each registered class, which was a third of a short command's
   * start-up), and all of them for help, completion or an unknown name.
   */
  static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

  private static Map<String, Class<?>> subcommands() {
    Map<String, Class<?>> m = new java.util.LinkedHashMap<>();
    for (Class<?> c :
        List.of(
            PutCommand.class,
            GetCommand.class,
            CatCommand.class,
            CpCommand.class,
            LsCommand.class,
            LsJsonCommand.class,
            HistoryCommand.class,
            RmCommand.class,
            KeygenCommand.class,
            CertifyCommand.class,
            RevokeCommand.class,
            InitCommand.class,
            VerifyCommand.class,
            ScrubCommand.class,
            GcCommand.class,
            ProbeCommand.class,
            BenchCommand.class,
            CompletionCommand.class,
            CommandLine.HelpCommand.class)) {
      m.put(c.getAnnotation(Command.class).name(), c);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  @Spec CommandSpec spec;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description =
          "The configuration file (default: $"
              + CONFIG_ENV
              + ", else ./rafestore.properties, else"
              + " $XDG_CONFIG_HOME/rafestore/rafestore.properties, by default under ~/.config)."
              + " RAFESTORE_<SETTING> variables override single settings (docs/cli.md).")
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

  /** The configuration file this run uses (see {@link ConfigLocator}). */
  Path configFile() throws UsageException {
    return locator().locate(config);
  }

  /** Finds, loads and validates the configuration, with the environment's overrides. */
  StoreConfig loadConfig() throws IOException, UsageException {
    return locator().load(configFile(), config != null);
  }

  private ConfigLocator locator() {
    return new ConfigLocator(env, Path.of(""));
  }

  /** The environment this run was given. */
  Map<String, String> env() {
    return env;
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
