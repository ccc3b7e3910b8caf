package io.rafestore;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a background {@link Scrubber} walks the store ({@link RafeStore#scrubber}): its budget, what
 * it does with what it finds, and where it remembers how far it got. Start from {@link #defaults()}
 * and change what you need with the {@code with...} methods. Immutable and thread-safe.
 *
 * <p>The three budgets all apply, and the tightest one sets the pace: the scrubber starts a request
 * only when what it has spent so far (requests, egress bytes, dollars priced with each cloud's
 * {@link Pricing}) is within the budget's rate over the time it has run. It never saves up unused
 * budget: after a pause it goes on at the same rate, not faster.
 *
 * @param requestsPerHour requests the scrubber may send per hour, over all clouds; 1 to
 *     1,000,000,000 (default 36,000: ten a second)
 * @param egressBytesPerHour bytes it may download per hour, over all clouds; at least 1 (default 1
 *     GiB)
 * @param dollarsPerHour USD it may spend per hour on requests and egress, priced per cloud; a
 *     finite number above 0 (default 0.10)
 * @param dryRun verify only: report what is wrong but repair nothing (default false)
 * @param stateFile where the scrubber keeps its cursor and counters across restarts, written
 *     atomically after each key; empty to keep them in memory only (default)
 * @param passes how many passes over every key to make before the scrubber ends by itself; 0 to go
 *     on until stopped (default 0)
 * @param pauseBetweenPasses how long to wait after a pass before the next one; zero or positive
 *     (default 1 hour)
 * @param yieldToForeground whether a scrub request waits (up to {@link #MAX_YIELD} each time) while
 *     the client has foreground operations in flight (default true)
 */
public record ScrubOptions(
    long requestsPerHour,
    long egressBytesPerHour,
    double dollarsPerHour,
    boolean dryRun,
    Optional<Path> stateFile,
    int passes,
    Duration pauseBetweenPasses,
    boolean yieldToForeground) {

  /**
   * The longest a scrub request gives way to foreground operations before it goes anyway, so that a
   * client that is never idle is still scrubbed (at most one request per cloud at a time, within
   * the budget).
   */
  public static final Duration MAX_YIELD = Duration.ofSeconds(1);

  /**
   * @throws IllegalArgumentException naming the first setting out of its range
   */
  public ScrubOptions {
    if (requestsPerHour < 1 || requestsPerHour > 1_000_000_000L) {
      throw new IllegalArgumentException(
          "requestsPerHour must be 1 to 1,000,000,000, was " + requestsPerHour);
    }
    if (egressBytesPerHour < 1) {
      throw new IllegalArgumentException(
          "egressBytesPerHour must be >= 1, was " + egressBytesPerHour);
    }
    if (!(dollarsPerHour > 0) || Double.isInfinite(dollarsPerHour)) {
      throw new IllegalArgumentException(
          "dollarsPerHour must be a finite number above 0, was " + dollarsPerHour);
    }
    Objects.requireNonNull(stateFile, "stateFile");
    if (passes < 0) {
      throw new IllegalArgumentException("passes must be >= 0 (0: until stopped), was " + passes);
    }
    Objects.requireNonNull(pauseBetweenPasses, "pauseBetweenPasses");
    if (pauseBetweenPasses.isNegative()) {
      throw new IllegalArgumentException(
          "pauseBetweenPasses must be zero or positive, was " + pauseBetweenPasses);
    }
  }

  /** The defaults documented on each setting. */
  public static ScrubOptions defaults() {
    return new ScrubOptions(
        36_000, 1L << 30, 0.10, false, Optional.empty(), 0, Duration.ofHours(1), true);
  }

  /** The same options with another request budget. */
  public ScrubOptions withRequestsPerHour(long requests) {
    return new ScrubOptions(
        requests,
        egressBytesPerHour,
        dollarsPerHour,
        dryRun,
        stateFile,
        passes,
        pauseBetweenPasses,
        yieldToForeground);
  }

  /** The same options with another egress budget. */
  public ScrubOptions withEgressBytesPerHour(long bytes) {
    return new ScrubOptions(
        requestsPerHour,
        bytes,
        dollarsPerHour,
        dryRun,
        stateFile,
        passes,
        pauseBetweenPasses,
        yieldToForeground);
  }

  /** The same options with another dollar budget. */
  public ScrubOptions withDollarsPerHour(double usd) {
    return new ScrubOptions(
        requestsPerHour,
        egressBytesPerHour,
        usd,
        dryRun,
        stateFile,
        passes,
        pauseBetweenPasses,
        yieldToForeground);
  }

  /** The same options, verifying only ({@code true}) or repairing too. */
  public ScrubOptions withDryRun(boolean verifyOnly) {
    return new ScrubOptions(
        requestsPerHour,
        egressBytesPerHour,
        dollarsPerHour,
        verifyOnly,
        stateFile,
        passes,
        pauseBetweenPasses,
        yieldToForeground);
  }

  /** The same options, keeping the state in {@code file} (null: in memory only). */
  public ScrubOptions withStateFile(Path file) {
    return new ScrubOptions(
        requestsPerHour,
        egressBytesPerHour,
        dollarsPerHour,
        dryRun,
        Optional.ofNullable(file),
        passes,
        pauseBetweenPasses,
        yieldToForeground);
  }

  /** The same options, ending after {@code count} passes (0: until stopped). */
  public ScrubOptions withPasses(int count) {
    return new ScrubOptions(
        requestsPerHour,
        egressBytesPerHour,
        dollarsPerHour,
        dryRun,
        stateFile,
        count,
        pauseBetweenPasses,
        yieldToForeground);
  }

  /** The same options with another pause between passes. */
  public ScrubOptions withPauseBetweenPasses(Duration pause) {
    return new ScrubOptions(
        requestsPerHour,
        egressBytesPerHour,
        dollarsPerHour,
        dryRun,
        stateFile,
        passes,
        pause,
        yieldToForeground);
  }

  /** The same options, giving way to foreground operations or not. */
  public ScrubOptions withYieldToForeground(boolean yield) {
    return new ScrubOptions(
        requestsPerHour,
        egressBytesPerHour,
        dollarsPerHour,
        dryRun,
        stateFile,
        passes,
        pauseBetweenPasses,
        yield);
  }
}
