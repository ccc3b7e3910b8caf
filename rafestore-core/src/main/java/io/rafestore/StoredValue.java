package io.rafestore;

import java.util.Objects;

/**
 * A value read from RafeStore, verified against the SHA-256 in signed metadata.
 *
 * @param info the version's metadata
 * @param value the bytes (a copy is returned by {@link #value()})
 * @param servedBy the id of the cloud whose bytes were returned, {@code (inline)} for a value
 *     carried inside its writer's signed log (no data cloud served it), {@link #FROM_CACHE} for
 *     bytes the client's {@link ValueCache} held (checked against the signed hash), or {@link
 *     #FROM_JOURNAL} for this client's own write-back write not yet on the clouds
 */
public record StoredValue(VersionInfo info, byte[] value, String servedBy) {
  /** {@link #servedBy} of a value whose bytes came from the client's {@link ValueCache}. */
  public static final String FROM_CACHE = "(cache)";

  /**
   * {@link #servedBy} of this client's own write-back write read before it reached the clouds
   * ({@link RafeStore#writeBack}): the bytes come from the local journal. Its version is final if
   * the write's metadata is already signed; otherwise it is provisional (the version the write
   * would get if it were stored now), and the write's {@link JournaledWrite#onClouds()} receipt has
   * the final one.
   */
  public static final String FROM_JOURNAL = "(journal)";

  public StoredValue {
    Objects.requireNonNull(info, "info");
    Objects.requireNonNull(servedBy, "servedBy");
    value = value.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  /** The version read. */
  public Version version() {
    return info.version();
  }

  /** The value decoded as UTF-8. */
  /** Whether the bytes came from the client's {@link ValueCache}. */
  public boolean fromCache() {
    return FROM_CACHE.equals(servedBy);
  }

  public String utf8() {
    return new String(value, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredValue s
        && info.equals(s.info)
        && java.util.Arrays.equals(value, s.value)
        && servedBy.equals(s.servedBy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(info, java.util.Arrays.hashCode(value), servedBy);
  }

  @Override
  public String toString() {
    return "StoredValue[" + info.version() + ", " + value.length + " bytes from " + servedBy + "]";
  }
}
