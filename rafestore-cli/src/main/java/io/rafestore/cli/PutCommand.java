package io.rafestore.cli;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rafestore put KEY (FILE|-)}: writes a new version of a key. */
@Command(
    name = "put",
    description = {
      "Writes a new version of KEY holding the bytes of FILE (or of standard input: -).",
      "The bytes are streamed in parts (memory about partsInFlight x partSize, whatever the size);"
          + " standard input longer than one part is first copied to a temporary file, since a"
          + " version's size is signed before its parts are sent. The DepSky modes hold a value"
          + " whole and accept at most maxValueBytes."
    })
final class PutCommand extends StoreCommand {
  /** The client's default largest value, used when the configuration sets none. */
  private static final long DEFAULT_MAX_VALUE = 64L * 1024 * 1024;

  /** The client's default part size, used when the configuration sets none. */
  static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key (1 to 256 bytes of UTF-8).")
  String key;

  @Parameters(index = "1", paramLabel = "FILE|-", description = "The value's file, or - for stdin.")
  String file;

  /** The whole value, when it was small enough to hold (or the mode needs it whole). */
  private byte[] value;

  /** The file to stream from when {@link #value} is null: FILE, or stdin's spool. */
  private Path source;

  /** Standard input copied to a temporary file, deleted by {@link #cleanUp}. */
  private Path spool;

  @Override
  void prepare(StoreConfig config) throws Exception {
    requireWriter(config, "put");
    boolean whole = !streams(config.mode());
    long max = config.maxValueBytes().orElse(DEFAULT_MAX_VALUE);
    if (file.equals("-")) {
      readStdin(whole, max, config.partSize().orElse(DEFAULT_PART_SIZE));
      return;
    }
    Path path = Path.of(file);
    try {
      if (Files.isDirectory(path)) {
        throw new UsageException(file + " is a directory, not a file");
      }
      long size = Files.size(path);
      if (!whole) {
        Files.newInputStream(path).close(); // readable: checked before any cloud is contacted
        source = path;
        return;
      }
      if (size > max) {
        throw new UsageException(
            file
                + " is "
                + size
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

  /** Whether the mode writes from a stream ({@code write(key, in, size)}). */
  static boolean streams(ProtocolMode mode) {
    return mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST;
  }

  /**
   * Standard input's size is known only at its end: up to one part is held in memory; beyond that,
   * what was read and the rest go to an owner-only temporary file that is streamed from.
   */
  private void readStdin(boolean whole, long max, long partSize)
      throws IOException, UsageException {
    InputStream in = root.stdin();
    if (whole) {
      value = readAtMost(in, max, "standard input");
      return;
    }
    byte[] head = in.readNBytes((int) Math.min(partSize, Integer.MAX_VALUE - 8));
    if (head.length < partSize) {
      value = head;
      return;
    }
    spool = Files.createTempFile("rafestore-put-", ".stdin");
    try (OutputStream out = Files.newOutputStream(spool)) {
      out.write(head);
      in.transferTo(out);
    }
    source = spool;
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
    WriteReceipt r =
        value != null
            ? store.blocking().write(key, value)
            : Transfers.upload(store, key, source, Progress.silent());
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

  @Override
  void cleanUp() throws IOException {
    if (spool != null) {
      Files.deleteIfExists(spool);
    }
  }
}
