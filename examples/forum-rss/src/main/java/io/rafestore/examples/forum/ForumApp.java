package io.rafestore.examples.forum;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * The forum web application: {@code scripts/demo.sh} runs it. It starts the embedded default store
 * ({@link ForumStores#embedded}), seeds a welcome topic when the forum is empty, serves on
 * 127.0.0.1 and runs until interrupted (Ctrl-C).
 *
 * <p>Options: {@code --port N} (default 8080; 0 picks a free port) and {@code --data DIR} (keep the
 * forum in DIR across runs; by default a fresh temporary directory, deleted on exit).
 */
public final class ForumApp implements AutoCloseable {
  static final int DEFAULT_PORT = 8080;
  static final String WELCOME_ID = "welcome";
  static final String WELCOME_TITLE = "Welcome to the RafeStore forum";
  static final String WELCOME_AUTHOR = "RafeStore";
  static final String WELCOME_BODY =
      "This topic is one key kept on four clouds; this post is its first version.\n"
          + "Post a reply below: the status panel under each post shows how long the write took,"
          + " which clouds hold the data (f+1 of them) and which hold the signed metadata (all).";

  private final ForumStores.Opened opened;
  private final ForumServer server;
  private final Optional<Path> deleteOnClose;

  private ForumApp(ForumStores.Opened opened, ForumServer server, Optional<Path> deleteOnClose) {
    this.opened = opened;
    this.server = server;
    this.deleteOnClose = deleteOnClose;
  }

  static final String USAGE =
      "usage: scripts/demo.sh [--port N] [--data DIR | --config FILE]\n"
          + "  --port N    serve on http://127.0.0.1:N/ (default "
          + DEFAULT_PORT
          + "; 0 picks a free port)\n"
          + "  --data DIR  keep the forum's four clouds in DIR across runs (default: a temporary\n"
          + "              directory, deleted on exit)\n"
          + "  --config FILE  run on the clouds a configuration file describes (real clouds or\n"
          + "              the local emulators; see docs/cli.md) instead of the embedded default\n"
          + "  --console   (first argument) the console demo instead of the forum";

  /** Parsed command line; {@code help} asks for the usage text. */
  record Options(int port, Optional<Path> data, Optional<Path> config, boolean help) {
    Options(int port, Optional<Path> data) {
      this(port, data, Optional.empty(), false);
    }

    static Options parse(String... args) {
      int port = DEFAULT_PORT;
      Optional<Path> data = Optional.empty();
      Optional<Path> config = Optional.empty();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--help", "-h" -> {
            return new Options(port, data, config, true);
          }
          case "--port" -> {
            String v = value(args, ++i, a);
            try {
              port = Integer.parseInt(v);
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("--port must be a number, was '" + v + "'", e);
            }
            if (port < 0 || port > 65535) {
              throw new IllegalArgumentException("--port must be 0 to 65535, was " + port);
            }
          }
          case "--data" -> data = Optional.of(Path.of(value(args, ++i, a)));
          case "--config" -> config = Optional.of(Path.of(value(args, ++i, a)));
          default ->
              throw new IllegalArgumentException(
                  "unknown option '"
                      + a
                      + "'; options are --port N, --data DIR, --config FILE and --help");
        }
      }
      if (data.isPresent() && config.isPresent()) {
        throw new IllegalArgumentException(
            "--data and --config exclude each other: --data keeps the embedded default's"
                + " clouds, --config names other clouds");
      }
      return new Options(port, data, config, false);
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }
  }

  /**
   * Starts the forum on the embedded default store.
   *
   * @param timeScale the WAN emulation's time scale ({@link ForumStores#DEMO_TIME_SCALE} for the
   *     demo)
   */
  static ForumApp start(Options options, double timeScale) throws IOException {
    Optional<Path> temp = Optional.empty();
    Path dir = null;
    if (options.config().isPresent()) {
      // The clouds come from the file; nothing local to create or delete.
    } else if (options.data().isPresent()) {
      dir = options.data().get();
    } else {
      dir = Files.createTempDirectory("rafestore-forum-");
      temp = Optional.of(dir);
    }
    ForumStores.Opened opened = null;
    try {
      opened =
          options.config().isPresent()
              ? ForumStores.fromConfig(options.config().get())
              : ForumStores.embedded(dir, timeScale);
      Forum forum =
          new Forum(
              opened.store(),
              Duration.ofSeconds(90),
              opened.demo().map(ForumStores.Demo::recorder),
              opened.demo().map(ForumStores.Demo::readBack).orElse(opened.store()));
      if (forum.topics().isEmpty()) {
        forum.createTopic(WELCOME_ID, WELCOME_TITLE, new Post(WELCOME_AUTHOR, WELCOME_BODY));
      }
      ForumServer server =
          ForumServer.start(
              forum,
              opened.description(),
              options.port(),
              opened.demo().map(ForumStores.Demo::faults));
      return new ForumApp(opened, server, temp);
    } catch (IOException | RuntimeException e) {
      if (opened != null) {
        closeQuietly(opened);
      }
      temp.ifPresent(ForumApp::deleteTree);
      throw e;
    }
  }

  /** The store the forum runs on (for tests that write as another client would). */
  io.rafestore.RafeStore store() {
    return opened.store();
  }

  /** The topic list's address. */
  java.net.URI uri() {
    return server.baseUri();
  }

  @Override
  public void close() {
    server.close();
    closeQuietly(opened);
    deleteOnClose.ifPresent(ForumApp::deleteTree);
  }

  /**
   * Runs the forum until the process is interrupted.
   *
   * @param args {@code --port N}, {@code --data DIR}
   */
  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("forum: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    if (options.help()) {
      out.println(USAGE);
      return;
    }
    ForumApp app;
    try {
      app = start(options, ForumStores.DEMO_TIME_SCALE);
    } catch (IOException e) {
      System.err.println("forum: could not start: " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  app.close();
                  out.println("Forum stopped.");
                  out.flush();
                  stopped.countDown();
                },
                "forum-shutdown"));
    out.println("RafeStore forum: " + app.opened.description());
    if (options.config().isEmpty()) {
      out.println(
          "Data: "
              + options
                  .data()
                  .map(p -> p.toAbsolutePath().toString())
                  .orElse("a temporary directory, deleted on exit (use --data DIR to keep it)"));
    }
    out.println("Forum running at " + app.uri() + "  (Ctrl-C to stop)");
    out.flush();
    stopped.await();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      System.getLogger(ForumApp.class.getName())
          .log(System.Logger.Level.WARNING, "closing the store failed", e);
    }
  }

  private static void deleteTree(Path root) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      System.err.println("forum: could not delete " + root + ": " + e.getMessage());
    }
  }
}
