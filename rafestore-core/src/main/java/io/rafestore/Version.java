package io.rafestore;

import java.util.Objects;

/**
 * Identifies one version of a key. Versions are totally ordered by {@code timestamp}, then by
 * {@code writer}, then by {@code incarnation}: the timestamp is a logical counter (one more than
 * the highest the writer saw in readM), never a wall clock, so ordering needs no clock
 * synchronisation; two writers that picked the same counter concurrently are ordered by writer id.
 *
 * <p>The incarnation is a random 64-bit number a client picks when it is built, so that one writer
 * id restarted after a crash can never sign a second, different value under the version of the
 * first: a restarted writer that did not see the log its crashed predecessor left on a few clouds
 * may pick the same timestamp, but not the same incarnation. Versions written before incarnations
 * existed have incarnation 0 and print and parse as before.
 *
 * @param timestamp the logical timestamp, {@code >= 1}
 * @param writer the id of the writer that created the version
 * @param incarnation the writer client's incarnation (0 for versions of older logs)
 */
public record Version(long timestamp, String writer, long incarnation)
    implements Comparable<Version> {
  public Version {
    if (timestamp < 1) {
      throw new IllegalArgumentException("version timestamp must be >= 1, was " + timestamp);
    }
    io.rafestore.internal.util.Names.checkWriterId(writer);
  }

  /** A version of a log written before incarnations existed (incarnation 0). */
  public Version(long timestamp, String writer) {
    this(timestamp, writer, 0);
  }

  @Override
  public int compareTo(Version other) {
    // Timestamp, then writer, then incarnation (written out: a chain of comparators costs a few
    // lambda calls per comparison, and views sort every entry of every log per write).
    int c = Long.compare(timestamp, other.timestamp);
    if (c != 0) {
      return c;
    }
    c = writer.compareTo(other.writer);
    return c != 0 ? c : Long.compare(incarnation, other.incarnation);
  }

  /**
   * Parses the {@link #toString()} form {@code "<timestamp>@<writer>"} or {@code
   * "<timestamp>@<writer>.<incarnation as 16 hex digits>"}.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static Version parse(String text) {
    Objects.requireNonNull(text, "version text");
    int at = text.indexOf('@');
    if (at <= 0 || at == text.length() - 1) {
      throw new IllegalArgumentException(
          "version '"
              + text
              + "' is not of the form <timestamp>@<writer>[.<incarnation>], e.g. 12@alice");
    }
    long ts;
    try {
      ts = Long.parseLong(text.substring(0, at));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "version '" + text + "' has a timestamp that is not a number", e);
    }
    String rest = text.substring(at + 1);
    int dot = rest.indexOf('.');
    if (dot < 0) {
      return new Version(ts, rest);
    }
    String hex = rest.substring(dot + 1);
    if (hex.length() != 16) {
      throw new IllegalArgumentException(
          "version '" + text + "' has an incarnation that is not 16 hexadecimal digits");
    }
    long incarnation;
    try {
      incarnation = Long.parseUnsignedLong(hex, 16);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "version '" + text + "' has an incarnation that is not 16 hexadecimal digits", e);
    }
    return new Version(ts, rest.substring(0, dot), incarnation);
  }

  /**
   * The writer part of {@link #toString()}: the writer id, followed by {@code '.'} and the
   * incarnation in 16 hex digits unless it is 0. Writer ids never contain {@code '.'}.
   */
  public String writerTag() {
    return incarnation == 0 ? writer : writer + "." + hex(incarnation);
  }

  private static String hex(long incarnation) {
    return java.util.HexFormat.of().toHexDigits(incarnation); // 16 lowercase digits, zero-padded
  }

  @Override
  public String toString() {
    return timestamp + "@" + writerTag();
  }
}
