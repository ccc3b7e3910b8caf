package io.rafestore.internal.protocol;

import io.rafestore.Version;
import io.rafestore.VersionInfo;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One entry of a writer's metadata log: a version of the key with its data's location, size and
 * hash, or a tombstone that hides every version up to and including its own.
 *
 * @param kind value or tombstone
 * @param timestamp the version's logical timestamp (the writer is the log's writer)
 * @param createdAtMillis the writer's wall clock, informational
 * @param dataObject the name of the data object on each holder ("" for a tombstone)
 * @param size the value's size
 * @param sha256 the value's SHA-256 (32 zero bytes for a tombstone)
 * @param holders the data clouds that acknowledged the value before writeM
 */
public record LogEntry(
    Kind kind,
    long timestamp,
    long createdAtMillis,
    String dataObject,
    long size,
    byte[] sha256,
    List<String> holders) {

  /** Entry kinds; the wire code is {@link #code}. */
  public enum Kind {
    VALUE(1),
    TOMBSTONE(2);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    static Kind of(int code) {
      for (Kind k : values()) {
        if (k.code == code) {
          return k;
        }
      }
      return null;
    }
  }

  public LogEntry {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(dataObject, "dataObject");
    if (timestamp < 1) {
      throw new IllegalArgumentException("timestamp must be >= 1");
    }
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0");
    }
    if (sha256 == null || sha256.length != 32) {
      throw new IllegalArgumentException("sha256 must be 32 bytes");
    }
    sha256 = sha256.clone();
    holders = List.copyOf(holders);
  }

  /** A tombstone at {@code timestamp}. */
  static LogEntry tombstone(long timestamp, long createdAtMillis) {
    return new LogEntry(Kind.TOMBSTONE, timestamp, createdAtMillis, "", 0, new byte[32], List.of());
  }

  @Override
  public byte[] sha256() {
    return sha256.clone();
  }

  /** The hash without a copy, for internal comparisons only. */
  byte[] sha256Unsafe() {
    return sha256;
  }

  /** The version this entry names, given its log's writer. */
  Version version(String writer) {
    return new Version(timestamp, writer);
  }

  VersionInfo info(String key, String writer) {
    return new VersionInfo(
        key, version(writer), size, sha256, holders, Instant.ofEpochMilli(createdAtMillis));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LogEntry e
        && kind == e.kind
        && timestamp == e.timestamp
        && createdAtMillis == e.createdAtMillis
        && dataObject.equals(e.dataObject)
        && size == e.size
        && Arrays.equals(sha256, e.sha256)
        && holders.equals(e.holders);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, timestamp, dataObject, size, Arrays.hashCode(sha256), holders);
  }
}
