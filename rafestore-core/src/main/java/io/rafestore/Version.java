package io.rafestore;

import java.util.Comparator;
import java.util.Objects;

/**
 * Identifies one version of a key. Versions are totally ordered by {@code timestamp}, then by
 * {@code writer}: the timestamp is a logical counter (one more than the highest the writer saw in
 * readM), never a wall clock, so ordering needs no clock synchronisation; two writers that picked
 * the same counter concurrently are ordered by writer id.
 *
 * @param timestamp the logical timestamp, {@code >= 1}
 * @param writer the id of the writer that created the version
 */
public record Version(long timestamp, String writer) implements Comparable<Version> {
  private static final Comparator<Version> ORDER =
      Comparator.comparingLong(Version::timestamp).thenComparing(Version::writer);

  public Version {
    if (timestamp < 1) {
      throw new IllegalArgumentException("version timestamp must be >= 1, was " + timestamp);
    }
    io.rafestore.internal.util.Names.checkWriterId(writer);
  }

  @Override
  public int compareTo(Version other) {
    return ORDER.compare(this, other);
  }

  /**
   * Parses the {@link #toString()} form {@code "<timestamp>@<writer>"}.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static Version parse(String text) {
    Objects.requireNonNull(text, "version text");
    int at = text.indexOf('@');
    if (at <= 0 || at == text.length() - 1) {
      throw new IllegalArgumentException(
          "version '" + text + "' is not of the form <timestamp>@<writer>, e.g. 12@alice");
    }
    long ts;
    try {
      ts = Long.parseLong(text.substring(0, at));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "version '" + text + "' has a timestamp that is not a number", e);
    }
    return new Version(ts, text.substring(at + 1));
  }

  @Override
  public String toString() {
    return timestamp + "@" + writer;
  }
}
