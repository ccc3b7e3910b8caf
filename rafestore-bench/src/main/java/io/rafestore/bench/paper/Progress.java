package io.rafestore.bench.paper;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress bar on stderr for long runs. Work is counted in expected paper milliseconds, so the
 * estimate of the time left weighs large values by how long they take. On a terminal the bar is
 * redrawn in place at most once a second; into a file or pipe it prints one line every 30 seconds.
 * Thread-safe.
 */
final class Progress {
  private static final int WIDTH = 30;

  private final PrintStream err;
  private final double total;
  private final boolean terminal;
  private final long startNanos = System.nanoTime();
  private double done;
  private long lastPrintNanos;

  Progress(PrintStream err, double totalWork) {
    this.err = err;
    this.total = Math.max(totalWork, 1e-9);
    this.terminal = System.console() != null && err == System.err;
  }

  synchronized void advance(double work, String label) {
    done += work;
    long now = System.nanoTime();
    long every = terminal ? 1_000_000_000L : 30_000_000_000L;
    if (now - lastPrintNanos < every) {
      return;
    }
    lastPrintNanos = now;
    print(label, now);
  }

  synchronized void finish() {
    done = total;
    print("done", System.nanoTime());
    if (terminal) {
      err.println();
    }
  }

  private void print(String label, long now) {
    double fraction = Math.min(1, done / total);
    int filled = (int) Math.round(fraction * WIDTH);
    double elapsed = (now - startNanos) / 1e9;
    double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : Double.NaN;
    String line =
        String.format(
            Locale.ROOT,
            "[%s%s] %5.1f%%  %-26s elapsed %s  left ~%s",
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            100 * fraction,
            label,
            duration(elapsed),
            Double.isNaN(eta) ? "?" : duration(eta));
    if (terminal) {
      err.print("\r" + line);
    } else {
      err.println(line);
    }
    err.flush();
  }

  private static String duration(double seconds) {
    long s = Math.round(seconds);
    return s >= 3600
        ? String.format(Locale.ROOT, "%dh%02dm", s / 3600, s / 60 % 60)
        : String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
  }
}
