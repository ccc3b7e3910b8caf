package io.rafestore;

import java.util.Objects;

/**
 * Something the read tier's cache found and did, reported to {@link RafeStoreListener#cacheEvent}:
 * a unit whose bytes did not match its signed hash, a file of the cache directory that was
 * truncated, corrupt or not a unit's, dropped and never served.
 *
 * @param kind what happened
 * @param key the user key concerned, or empty if unknown (a file too damaged to name one)
 * @param detail what was found, for a person (a file name, the sizes)
 */
public record CacheEvent(Kind kind, String key, String detail) {
  /** What the cache found. */
  public enum Kind {
    /** Bytes the cache returned did not match the unit's signed SHA-256 or size: dropped. */
    CORRUPT,
    /** A cache file shorter or longer than its header says: dropped. */
    TRUNCATED,
    /** A cache file that is not a unit of this format, or names another unit: dropped. */
    FOREIGN,
    /** A cache file could not be read or written (the disk's error): the unit is not cached. */
    IO_ERROR
  }

  public CacheEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(detail, "detail");
  }
}
