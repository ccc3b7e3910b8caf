package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rafestore put KEY (FILE|-)}: writes a new version of a key. */
@Command(
    name = "put",
    description =
        "Writes a new version of KEY holding the bytes of FILE (or of standard input: -).")
final class PutCommand extends StoreCommand {
  /** The client's default largest value, used when the configuration sets none. */
  private static final long DEFAULT_MAX_VALUE = 64L * 1024 * 1024;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key (1 to 256 bytes of UTF-8).")
  String key;

  @Parameters(index = "1", paramLabel = "FILE|-", description = "The value's file, or - for stdin.")
  String file;

  private byte[] value;

  @Override
  void prepare(StoreConfig config) throws Exception {
    requireWriter(config, "put");
    long max = config.maxValueBytes().orElse(DEFAULT_MAX_VALUE);
    if (file.equals("-")) {
      value = readAtMost(root.stdin(), max, "standard input");
      return;
    }
    Path path = Path.of(file);
    try {
      if (Files.isDirectory(path)) {
        throw new UsageException(file + " is a directory, not a file");
      }
      if (Files.size(path) > max) {
        throw new UsageException(
            file
                + " is "
                + Files.size(path)
                + " bytes, over maxValueBytes = "
                + max
                + " (raise it in the configuration)");
      }
      try (InputStream in = Files.newInputStream(path)) {
        value = readAtMost(in, max, file);
      }
    } catch (NoSuchFileException e) {
      throw new UsageException("cannot read " + file + ": no such file", e);
    } catch (IOException e) {
      throw new UsageException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static byte[] readAtMost(InputStream in, long max, String what)
      throws IOException, UsageException {
    byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, max + 1));
    if (bytes.length > max) {
      throw new UsageException(
          what
              + " holds more than maxValueBytes = "
              + max
              + " bytes (raise it in the configuration)");
    }
    return bytes;
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    WriteReceipt r = store.blocking().write(key, value);
    VersionInfo info = r.info();
    if (json()) {
      Map<String, Object> o = describe(info);
      o.put("dataCloudsContacted", r.dataCloudsContacted());
      o.put("writeDfUsed", r.writeDfUsed());
      o.put("metadataAcks", r.metadataAcks());
      o.put("latencyMillis", r.latency().toMillis());
      printJson(o);
    } else {
      out()
          .printf(
              "put %s: version %s, %d bytes, sha256 %s, data on %s%s, %d ms%n",
              key,
              info.version(),
              info.size(),
              info.sha256Hex(),
              String.join(", ", info.dataClouds()),
              r.writeDfUsed() ? " (writeDf added clouds)" : "",
              r.latency().toMillis());
    }
    return ExitCodes.OK;
  }
}
