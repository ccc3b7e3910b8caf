package io.rafestore;

import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * What the signed metadata says about one version of a key.
 *
 * @param key the user key
 * @param version the version
 * @param size the value's size in bytes
 * @param sha256 the value's SHA-256 (copied; 32 bytes)
 * @param dataClouds ids of the clouds that acknowledged storing the value before the metadata was
 *     written (at least f+1)
 * @param createdAt the writer's wall clock when it wrote; informational only, never used for
 *     ordering
 */
public record VersionInfo(
    String key,
    Version version,
    long size,
    byte[] sha256,
    List<String> dataClouds,
    Instant createdAt) {

  public VersionInfo {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(createdAt, "createdAt");
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0, was " + size);
    }
    if (sha256 == null || sha256.length != 32) {
      throw new IllegalArgumentException("sha256 must be 32 bytes");
    }
    sha256 = sha256.clone();
    dataClouds = List.copyOf(dataClouds);
  }

  @Override
  public byte[] sha256() {
    return sha256.clone();
  }

  /** The hash as lowercase hex. */
  public String sha256Hex() {
    return HexFormat.of().formatHex(sha256);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VersionInfo v
        && key.equals(v.key)
        && version.equals(v.version)
        && size == v.size
        && java.util.Arrays.equals(sha256, v.sha256)
        && dataClouds.equals(v.dataClouds)
        && createdAt.equals(v.createdAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, version, size, java.util.Arrays.hashCode(sha256), dataClouds);
  }

  @Override
  public String toString() {
    return "VersionInfo["
        + key
        + " "
        + version
        + ", "
        + size
        + " bytes, sha256 "
        + sha256Hex().substring(0, 12)
        + "..., on "
        + dataClouds
        + "]";
  }
}
