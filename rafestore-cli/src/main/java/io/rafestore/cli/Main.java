package io.rafestore.cli;

import io.rafestore.IntegrityException;
import io.rafestore.KeyNotFoundException;
import io.rafestore.QuorumException;
import io.rafestore.VersionNotFoundException;
import io.rafestore.config.ConfigException;
import io.rafestore.spi.CloudException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import picocli.CommandLine;

/**
 * Entry point of the {@code rafestore} command. {@link #newCommandLine} builds the command with
 * injected streams and environment, so tests run it in-process; {@link #main} runs it on the
 * process's own and exits with one of the {@link ExitCodes}.
 *
 * <p>Errors are reported as one line on standard error, {@code rafestore COMMAND: message}, with
 * the stack trace only under {@code --verbose}.
 */
public final class Main {
  private Main() {}

  /** Runs the command and exits the JVM with its exit code. */
  public static void main(String[] args) {
    PrintStream stdout = System.out;
    CommandLine cl = newCommandLine(System.in, stdout, System.err, System.getenv(), args);
    int code = cl.execute(args);
    stdout.flush();
    System.exit(code);
  }

  /**
   * The {@code rafestore} command line, ready to {@link CommandLine#execute execute}.
   *
   * @param stdin read by {@code put KEY -}
   * @param stdout standard output: text and value bytes
   * @param stderr standard error: error lines and usage help
   * @param env the environment (for {@code RAFESTORE_CONFIG})
   */
  public static CommandLine newCommandLine(
      InputStream stdin, OutputStream stdout, OutputStream stderr, Map<String, String> env) {
    return newCommandLine(stdin, stdout, stderr, env, null);
  }

  /**
   * As {@link #newCommandLine(InputStream, OutputStream, OutputStream, Map)}, registering only the
   * subcommand that {@code args} name (all of them when {@code args} is null, or names none or an
   * unknown one, or asks for help or completion), which saves the reflection over the others.
   */
  public static CommandLine newCommandLine(
      InputStream stdin,
      OutputStream stdout,
      OutputStream stderr,
      Map<String, String> env,
      String[] args) {
    RafeStoreCommand root = new RafeStoreCommand(stdin, stdout, env);
    CommandLine cl = new CommandLine(root);
    String only = args == null ? null : subcommandNamed(args);
    if (only != null) {
      cl.addSubcommand(RafeStoreCommand.SUBCOMMANDS.get(only));
    } else {
      for (Class<?> c : RafeStoreCommand.SUBCOMMANDS.values()) {
        cl.addSubcommand(c);
      }
    }
    cl.setOut(new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8), true));
    cl.setErr(new PrintWriter(new OutputStreamWriter(stderr, StandardCharsets.UTF_8), true));
    cl.setParameterExceptionHandler(
        (ex, unusedArgs) -> {
          CommandLine c = ex.getCommandLine();
          PrintWriter err = c.getErr();
          err.println(c.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
          err.println("(see '" + c.getCommandSpec().qualifiedName() + " --help')");
          err.flush();
          return ExitCodes.USAGE;
        });
    cl.setExecutionExceptionHandler(
        (ex, c, parseResult) -> {
          PrintWriter err = c.getErr();
          c.getOut().flush();
          err.println(c.getCommandSpec().qualifiedName() + ": " + message(ex));
          if (root.verbose) {
            ex.printStackTrace(err);
          }
          err.flush();
          return exitCode(ex);
        });
    return cl;
  }

  /**
   * The subcommand {@code args} run, if it is one that needs no other registered: the first
   * argument that is not an option (nor --config's value). Null for none, an unknown name, help and
   * completion.
   */
  static String subcommandNamed(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("-c") || a.equals("--config")) {
        i++; // its value
      } else if (!a.startsWith("-")) {
        return RafeStoreCommand.SUBCOMMANDS.containsKey(a)
                && !a.equals("help")
                && !a.equals("completion")
            ? a
            : null;
      } else if (a.equals("--")) {
        return null;
      }
    }
    return null;
  }

  /** The exit code for an exception a command threw. */
  static int exitCode(Throwable e) {
    if (e instanceof IntegrityException) {
      return ExitCodes.INTEGRITY;
    }
    if (e instanceof KeyNotFoundException || e instanceof VersionNotFoundException) {
      return ExitCodes.NOT_FOUND;
    }
    if (e instanceof QuorumException || e instanceof CloudException) {
      return ExitCodes.UNAVAILABLE;
    }
    if (e instanceof UsageException
        || e instanceof ConfigException
        || e instanceof IllegalArgumentException) {
      // IllegalArgumentException: the client rejected an argument (a bad key, a too large value).
      return ExitCodes.USAGE;
    }
    return ExitCodes.FAILED;
  }

  static String message(Throwable e) {
    if (e instanceof NoSuchFileException n) {
      return "no such file: " + n.getFile();
    }
    // Our exceptions and the client's carry complete one-line messages (configuration errors
    // as FILE:LINE: KEY: problem); anything else falls back to its type.
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }
}
