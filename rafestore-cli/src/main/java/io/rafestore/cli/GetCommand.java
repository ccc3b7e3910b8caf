package io.rafestore.cli;

import io.rafestore.HistoryPage;
import io.rafestore.KeyNotFoundException;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.VersionNotFoundException;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rafestore get KEY [--version V] [-o FILE]}: reads a version of a key. */
@Command(
    name = "get",
    description = {
      "Reads the latest version of KEY (or the one given) and writes its bytes to standard output"
          + " or to FILE. The bytes are verified against the SHA-256 a trusted writer signed.",
      "A value larger than one part is streamed part by part (memory about partsInFlight x"
          + " partSize, whatever the size), each part verified before its bytes are written; to"
          + " standard output, the bytes before a failing part have then been written.",
      "With --json and no -o, prints the metadata and the value in Base64 (read whole, so at"
          + " most maxValueBytes)."
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
    if (json() && output == null) {
      // The value goes into the JSON object in Base64, so it is read whole (up to maxValueBytes).
      StoredValue v =
          parsedVersion == null
              ? store.blocking().read(key)
              : store.blocking().read(key, resolve(store, parsedVersion));
      Map<String, Object> o = describe(v.info());
      o.put("servedBy", v.servedBy());
      o.put("value", Base64.getEncoder().encodeToString(v.value()));
      printJson(o);
      return ExitCodes.OK;
    }
    VersionInfo info = info(store);
    long partSize = config.partSize().orElse(PutCommand.DEFAULT_PART_SIZE);
    String servedBy = null;
    if (info.size() <= partSize) {
      // One part's worth, which a stream would buffer anyway: read whole, so nothing is written
      // before the bytes verified and the cloud that served them can be named.
      StoredValue v = store.blocking().read(key, info.version());
      servedBy = v.servedBy();
      byte[] bytes = v.value();
      deliver(out -> out.write(bytes));
    } else {
      // Streamed part by part, each verified before its bytes are written; to a file through a
      // temporary file renamed once the whole SHA-256 matched.
      deliver(
          out -> {
            try (InputStream in = Transfers.open(store, key, info.version())) {
              in.transferTo(out);
            }
          });
    }
    if (json()) {
      Map<String, Object> o = describe(info);
      if (servedBy != null) {
        o.put("servedBy", servedBy);
      }
      o.put("file", output.toString());
      printJson(o);
    } else if (output != null) {
      out()
          .printf(
              "get %s: version %s, %d bytes (verified), from %s, written to %s%n",
              key,
              info.version(),
              info.size(),
              servedBy != null ? servedBy : "its data clouds, in parts",
              output);
    }
    return ExitCodes.OK;
  }

  /** Writes the bytes to {@code -o FILE} (atomically) or to standard output. */
  private void deliver(Transfers.FileWriter writer) throws IOException {
    if (output != null) {
      Transfers.replaceAtomically(output, writer);
      return;
    }
    out().flush();
    OutputStream raw = root.stdout();
    writer.writeTo(raw);
    raw.flush();
  }

  /**
   * The signed metadata of the version to read: the latest, or the one {@code --version} names. A
   * named version that the history does not hold is left to the read, which reports it.
   */
  private VersionInfo info(RafeStore store) throws Exception {
    if (parsedVersion == null) {
      HistoryPage h = store.blocking().history(key, Optional.empty(), 1);
      if (h.versions().isEmpty()) {
        throw new KeyNotFoundException(key, "it has no versions");
      }
      return h.versions().get(0);
    }
    Version wanted = resolve(store, parsedVersion);
    for (VersionInfo i : allVersions(store, key)) {
      if (i.version().equals(wanted)) {
        return i;
      }
    }
    Transfers.open(store, key, wanted).close(); // throws the read's own not-found
    throw new VersionNotFoundException(key, wanted, "it is not in the history");
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
