package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.Version;
import io.rafestore.WriteReceipt;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Streams values between local files and the store with bounded memory: {@code write(key, in,
 * size)} and {@code openStream}, which hold about {@code partsInFlight x partSize} bytes. In the
 * DepSky modes, which handle a value whole, they fall back to the whole-value calls (bounded by
 * {@code maxValueBytes}). Stateless.
 */
final class Transfers {
  private Transfers() {}

  /** Opens a version of {@code key} (the latest when {@code version} is null) as a stream. */
  static InputStream open(RafeStore store, String key, Version version) throws IOException {
    try {
      return version == null
          ? store.blocking().openStream(key)
          : store.blocking().openStream(key, version);
    } catch (UnsupportedOperationException e) {
      byte[] v =
          version == null
              ? store.blocking().read(key).value()
              : store.blocking().read(key, version).value();
      return new ByteArrayInputStream(v);
    }
  }

  /** Writes the file's bytes as a new version of {@code key}, counting them in {@code progress}. */
  static WriteReceipt upload(RafeStore store, String key, Path file, Progress progress)
      throws IOException {
    long size = Files.size(file);
    try (InputStream in = progress.counting(Files.newInputStream(file))) {
      return store.blocking().write(key, in, size);
    } catch (UnsupportedOperationException e) {
      byte[] bytes = Files.readAllBytes(file);
      WriteReceipt r = store.blocking().write(key, bytes);
      progress.add(bytes.length);
      return r;
    }
  }

  /**
   * Copies a version to {@code target} through a temporary file beside it that is renamed over it
   * once the whole value verified, so a failed or corrupt read leaves no partial file.
   */
  static void download(RafeStore store, String key, Version version, Path target, Progress progress)
      throws IOException {
    replaceAtomically(
        target,
        out -> {
          try (InputStream in = progress.counting(open(store, key, version))) {
            in.transferTo(out);
          }
        });
  }

  /** Writes the bytes of a file that {@link #replaceAtomically} puts in place. */
  interface FileWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Writes {@code target} through a temporary file beside it (its directories made first) that is
   * renamed over it only once {@code writer} finished, so a failure leaves no partial file.
   */
  static void replaceAtomically(Path target, FileWriter writer) throws IOException {
    Path absolute = target.toAbsolutePath();
    Path dir = absolute.getParent();
    Path name = absolute.getFileName();
    if (dir == null || name == null) {
      throw new IOException(target + " is not a file path");
    }
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + name, ".part");
    try {
      try (OutputStream out = Files.newOutputStream(tmp)) {
        writer.writeTo(out);
      }
      try {
        Files.move(
            tmp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
