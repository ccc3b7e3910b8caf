package io.rafestore.spi;

import java.util.Objects;

/**
 * One entry of a listing.
 *
 * @param key the object's name
 * @param size its size in bytes
 */
public record ObjectInfo(ObjectKey key, long size) {
  public ObjectInfo {
    Objects.requireNonNull(key, "key");
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0, was " + size);
    }
  }
}
