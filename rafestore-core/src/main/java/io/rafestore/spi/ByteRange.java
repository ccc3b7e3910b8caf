package io.rafestore.spi;

/**
 * A range of bytes of an object: {@code length} bytes starting at {@code offset}. A range that runs
 * past the end of the object is cut at the end (as HTTP range requests are); one that starts at or
 * after the end yields no bytes.
 *
 * @param offset first byte, {@code >= 0}
 * @param length number of bytes, {@code >= 0}
 */
public record ByteRange(long offset, long length) {
  public ByteRange {
    if (offset < 0) {
      throw new IllegalArgumentException("range offset must be >= 0, was " + offset);
    }
    if (length < 0) {
      throw new IllegalArgumentException("range length must be >= 0, was " + length);
    }
  }

  /** The range from {@code offset} of {@code length} bytes. */
  public static ByteRange of(long offset, long length) {
    return new ByteRange(offset, length);
  }

  /** Last byte index, inclusive, as HTTP Range headers want it ({@code offset - 1} if empty). */
  public long lastInclusive() {
    return offset + length - 1;
  }

  /**
   * The part of an object of {@code size} bytes this range covers, as {@code [from, to)} indexes
   * clipped to the object.
   */
  public long[] clip(long size) {
    long from = Math.min(offset, size);
    long to = Math.min(size, offset + length);
    return new long[] {from, Math.max(from, to)};
  }
}
