package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.config.StoreConfig;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rafestore get KEY [--version V] [-o FILE]}: reads a version of a key. */
@Command(
    name = "get",
    description = {
      "Reads the latest version of KEY (or the one given) and writes its bytes to standard output"
          + " or to FILE. The bytes are verified against the SHA-256 a trusted writer signed.",
      "With --json and no -o, prints the metadata and the value in Base64."
    })
final class GetCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "KEY", description = "The key.")
  String key;

  @Option(
      names = "--version",
      paramLabel = "V",
      description =
          "The version to read, as listed by 'history' (TIMESTAMP@WRITER.INCARNATION, e.g."
              + " 3@alice.9f86d081884c7d65; 3@alice names the only version 3 of alice).")
  String version;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "Write the bytes to FILE (replacing it) instead of standard output.")
  Path output;

  private Version parsedVersion;

  @Override
  void prepare(StoreConfig config) throws UsageException {
    if (version != null) {
      try {
        parsedVersion = Version.parse(version);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--version: " + e.getMessage(), e);
      }
    }
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    StoredValue v =
        parsedVersion == null
            ? store.blocking().read(key)
            : store.blocking().read(key, resolve(store, parsedVersion));
    if (output != null) {
      byte[] bytes = v.value();
      Transfers.replaceAtomically(output, out -> out.write(bytes));
    }
    if (json()) {
      Map<String, Object> o = describe(v.info());
      o.put("servedBy", v.servedBy());
      if (output != null) {
        o.put("file", output.toString());
      } else {
        o.put("value", Base64.getEncoder().encodeToString(v.value()));
      }
      printJson(o);
    } else if (output != null) {
      out()
          .printf(
              "get %s: version %s, %d bytes (verified), from %s, written to %s%n",
              key, v.version(), v.info().size(), v.servedBy(), output);
    } else {
      out().flush();
      OutputStream raw = root.stdout();
      raw.write(v.value());
      raw.flush();
    }
    return ExitCodes.OK;
  }

  /**
   * A version typed without its incarnation ({@code 3@alice}) names the one version of that
   * timestamp and writer in the history, whatever its incarnation; two incarnations of one writer
   * sharing a timestamp (a writer restarted after a crash) must be told apart by the full form.
   */
  private Version resolve(RafeStore store, Version typed) throws Exception {
    if (version.contains(".") || typed.incarnation() != 0) {
      return typed;
    }
    java.util.List<Version> matches = new java.util.ArrayList<>();
    java.util.Optional<Version> before = java.util.Optional.empty();
    boolean past = false;
    while (!past) {
      io.rafestore.HistoryPage page = store.blocking().history(key, before, 1000);
      for (io.rafestore.VersionInfo info : page.versions()) {
        Version v = info.version();
        past |= v.timestamp() < typed.timestamp();
        if (v.timestamp() == typed.timestamp() && v.writer().equals(typed.writer())) {
          matches.add(v);
        }
      }
      before = page.nextBefore();
      past |= before.isEmpty();
    }
    if (matches.size() > 1) {
      throw new UsageException(
          "--version "
              + version
              + " matches "
              + matches.size()
              + " versions of two incarnations of "
              + typed.writer()
              + ": "
              + matches
              + "; give one of them in full");
    }
    return matches.isEmpty() ? typed : matches.get(0);
  }
}
