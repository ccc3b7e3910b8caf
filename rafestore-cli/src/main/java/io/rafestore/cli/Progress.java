package io.rafestore.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The {@code -P/--progress} line of a transfer, on standard error: bytes and files done of the
 * total, the average rate since the start and the time left at that rate. It is printed at most
 * every {@link #INTERVAL_NANOS} (so a fast local copy does not flood the terminal) and once more
 * when the transfer ends. A disabled instance only counts. Not thread-safe: the thread that copies
 * updates it.
 */
final class Progress {
  /** The shortest time between two lines. */
  static final long INTERVAL_NANOS = 500_000_000L;

  private final PrintWriter err;
  private final boolean enabled;
  private final LongSupplier nanoClock;
  private final long totalBytes;
  private final int totalFiles;
  private final long start;
  private long lastPrint;
  private long bytes;
  private int files;

  Progress(PrintWriter err, boolean enabled, long totalBytes, int totalFiles, LongSupplier clock) {
    this.err = err;
    this.enabled = enabled;
    this.totalBytes = totalBytes;
    this.totalFiles = totalFiles;
    this.nanoClock = clock;
    this.start = clock.getAsLong();
    this.lastPrint = start;
  }

  /** An instance that only counts, for a transfer shown by no progress line. */
  static Progress silent() {
    return new Progress(null, false, 0, 0, () -> 0L);
  }

  /** Counts {@code n} more bytes and prints a line if the interval has passed. */
  void add(long n) {
    bytes += n;
    long now = nanoClock.getAsLong();
    if (enabled && now - lastPrint >= INTERVAL_NANOS) {
      lastPrint = now;
      err.print(line(now) + "\n");
      err.flush();
    }
  }

  /** Counts one more file done. */
  void fileDone() {
    files++;
  }

  /** Bytes counted so far. */
  long bytes() {
    return bytes;
  }

  /** Prints the final line (when enabled). */
  void finish() {
    if (enabled) {
      err.print(line(nanoClock.getAsLong()) + ", done\n");
      err.flush();
    }
  }

  /** A stream that counts what is read through it. */
  InputStream counting(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          add(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buf, int off, int len) throws IOException {
        int n = super.read(buf, off, len);
        if (n > 0) {
          add(n);
        }
        return n;
      }
    };
  }

  private String line(long now) {
    double seconds = Math.max(1e-9, (now - start) / 1e9);
    double rate = bytes / seconds;
    String eta;
    if (bytes >= totalBytes) {
      eta = "0s";
    } else if (rate <= 0) {
      eta = "-";
    } else {
      eta = duration((long) Math.ceil((totalBytes - bytes) / rate));
    }
    return String.format(
        Locale.ROOT,
        "Transferred: %s / %s, %d%%, %s/s, ETA %s, files %d/%d, elapsed %s",
        size(bytes),
        size(totalBytes),
        totalBytes == 0 ? 100 : (int) (100 * bytes / totalBytes),
        size((long) rate),
        eta,
        files,
        totalFiles,
        duration((long) seconds));
  }

  /** Bytes in binary units: {@code 512 B}, {@code 1.5 KiB}, {@code 12.0 MiB}. */
  static String size(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  /** Seconds as {@code 5s}, {@code 3m20s}, {@code 2h05m}. */
  static String duration(long s) {
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}
