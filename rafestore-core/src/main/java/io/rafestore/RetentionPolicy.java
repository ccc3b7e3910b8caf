package io.rafestore;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Which versions of a key {@link RafeStore#collect} keeps. Rules combine conservatively: a version
 * is kept if <em>any</em> rule keeps it, and collection only ever removes a prefix of the history
 * (every version older than the oldest kept one), because it is recorded as one signed watermark
 * ("everything up to version V is collected"). The newest version is always kept; to remove a key
 * entirely use {@link RafeStore#delete} (and {@link RafeStore#purge}).
 *
 * <p>"Newer than" uses each version's creation time as recorded by its writer's clock ({@link
 * VersionInfo#createdAt()}), which is informational: with skewed writer clocks the cut follows
 * version order, not wall time. Immutable and thread-safe.
 */
public final class RetentionPolicy {
  private final int keepLast;
  private final Instant keepNewerThan;

  private RetentionPolicy(int keepLast, Instant keepNewerThan) {
    this.keepLast = keepLast;
    this.keepNewerThan = keepNewerThan;
  }

  /**
   * Keeps the newest {@code n} versions.
   *
   * @throws IllegalArgumentException if {@code n < 1}
   */
  public static RetentionPolicy keepLast(int n) {
    return new RetentionPolicy(checkN(n), null);
  }

  /** Keeps every version created at or after {@code cutoff} (and always the newest). */
  public static RetentionPolicy keepNewerThan(Instant cutoff) {
    return new RetentionPolicy(0, Objects.requireNonNull(cutoff, "cutoff"));
  }

  /** This policy, also keeping the newest {@code n} versions. */
  public RetentionPolicy andKeepLast(int n) {
    return new RetentionPolicy(checkN(n), keepNewerThan);
  }

  /** This policy, also keeping every version created at or after {@code cutoff}. */
  public RetentionPolicy andKeepNewerThan(Instant cutoff) {
    return new RetentionPolicy(keepLast, Objects.requireNonNull(cutoff, "cutoff"));
  }

  private static int checkN(int n) {
    if (n < 1) {
      throw new IllegalArgumentException(
          "keepLast must be >= 1 (the newest version is always kept), was " + n);
    }
    return n;
  }

  /** The number of newest versions kept, 0 if this rule is not set. */
  public int keepLastCount() {
    return keepLast;
  }

  /** The creation-time cutoff, if that rule is set. */
  public Optional<Instant> keepNewerThanCutoff() {
    return Optional.ofNullable(keepNewerThan);
  }

  /**
   * Whether the version at {@code indexFromNewest} (0 = newest), created at {@code createdAt}, is
   * kept by some rule.
   */
  public boolean keeps(int indexFromNewest, Instant createdAt) {
    if (indexFromNewest == 0) {
      return true;
    }
    if (keepLast > 0 && indexFromNewest < keepLast) {
      return true;
    }
    return keepNewerThan != null && !createdAt.isBefore(keepNewerThan);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("RetentionPolicy[");
    if (keepLast > 0) {
      sb.append("keepLast=").append(keepLast);
    }
    if (keepNewerThan != null) {
      sb.append(keepLast > 0 ? ", " : "").append("keepNewerThan=").append(keepNewerThan);
    }
    return sb.append(']').toString();
  }
}
