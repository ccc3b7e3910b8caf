package io.rafestore.cli;

import io.rafestore.HistoryPage;
import io.rafestore.RafeStore;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * A subcommand that works on the store the configuration file describes: it checks its arguments
 * ({@link #prepare}), opens the store, runs ({@link #run}) and closes the store. Exceptions are
 * turned into exit codes and one line on standard error by {@link Main}. Not thread-safe.
 */
abstract class StoreCommand implements Callable<Integer> {
  /**
   * How long closing the store waits for a completed write's log to reach the clouds beyond its
   * quorum before the process exits ({@link RafeStore.Builder#closeGrace}): without it a `put`
   * leaves the slowest cloud (often the one whose SDK client was still being built) without the new
   * log, and `verify` reports it missing until a repair.
   */
  static final java.time.Duration CLOSE_GRACE = java.time.Duration.ofSeconds(5);

  @ParentCommand RafeStoreCommand root;

  @Spec CommandSpec spec;

  @Override
  public final Integer call() throws Exception {
    StoreConfig config = root.loadConfig();
    try {
      prepare(config);
      try (RafeStore store =
          config.open(
              b -> {
                b.closeGrace(CLOSE_GRACE);
                customize(b);
              })) {
        return run(store, config);
      }
    } finally {
      out().flush();
      cleanUp();
    }
  }

  /** Removes what {@link #prepare} or {@link #run} left behind (temporary files). Default: none. */
  void cleanUp() throws IOException {}

  /**
   * Checks arguments and reads local input before any cloud is contacted, so that a typo costs no
   * connection. Default: nothing.
   */
  void prepare(StoreConfig config) throws Exception {}

  /** Sets what this command needs on the builder (a listener, say). Default: nothing. */
  void customize(RafeStore.Builder builder) {}

  /** Does the work; returns the exit code. */
  abstract int run(RafeStore store, StoreConfig config) throws Exception;

  /** Whether to print JSON instead of text. */
  final boolean json() {
    return root.json;
  }

  /** Standard output, as text. */
  final PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Prints {@code object} as one line of JSON. */
  final void printJson(Map<String, Object> object) {
    out().println(Json.write(object));
  }

  /** A version's signed metadata as a JSON object. */
  static Map<String, Object> describe(VersionInfo info) {
    Map<String, Object> o = Json.object();
    o.put("key", info.key());
    o.put("version", info.version().toString());
    o.put("timestamp", info.version().timestamp());
    o.put("writer", info.version().writer());
    o.put("incarnation", String.format("%016x", info.version().incarnation()));
    o.put("size", info.size());
    o.put("sha256", info.sha256Hex());
    o.put("createdAt", info.createdAt().toString());
    o.put("dataClouds", info.dataClouds());
    return o;
  }

  /** Every version of {@code key}, newest first (metadata only: no value is fetched). */
  static List<VersionInfo> allVersions(RafeStore store, String key) throws IOException {
    List<VersionInfo> all = new ArrayList<>();
    Optional<Version> before = Optional.empty();
    do {
      HistoryPage page = store.blocking().history(key, before, 1000);
      all.addAll(page.versions());
      before = page.nextBefore();
    } while (before.isPresent());
    return all;
  }

  /** Fails with a usage error unless the configuration has a writer. */
  static void requireWriter(StoreConfig config, String command) throws UsageException {
    if (config.writer().isEmpty()) {
      throw new UsageException(
          config.source()
              + " has no writer, so '"
              + command
              + "' cannot sign anything: set writer.id and writer.key (make a key with"
              + " 'rafestore keygen')");
    }
  }
}
