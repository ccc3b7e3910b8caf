package io.rafestore;

/**
 * What {@link RafeStore#probe} measures.
 *
 * @param rttRounds small puts per cloud for the round-trip time, one after another (the paper wrote
 *     "a few bytes ten times"); 1 to 1000
 * @param payloadBytes size of the puts that measure bandwidth, 64 KiB to 1 GiB (0 skips them)
 * @param payloadRounds puts of {@code payloadBytes} per cloud, 0 to 100
 * @param valueSize the value size the recommended arrangement and the size-aware Condition 1 are
 *     computed for, {@code >= 0}
 */
public record ProbeOptions(int rttRounds, long payloadBytes, int payloadRounds, long valueSize) {
  /** The probe objects' name prefix on every cloud; probe objects are deleted afterwards. */
  public static final String PREFIX = "probe/";

  public ProbeOptions {
    if (rttRounds < 1 || rttRounds > 1000) {
      throw new IllegalArgumentException("rttRounds must be 1 to 1000, was " + rttRounds);
    }
    if (payloadBytes != 0 && (payloadBytes < 64 * 1024 || payloadBytes > (1L << 30))) {
      throw new IllegalArgumentException(
          "payloadBytes must be 0 or 64 KiB to 1 GiB, was " + payloadBytes);
    }
    if (payloadRounds < 0 || payloadRounds > 100) {
      throw new IllegalArgumentException("payloadRounds must be 0 to 100, was " + payloadRounds);
    }
    if (valueSize < 0) {
      throw new IllegalArgumentException("valueSize must be >= 0, was " + valueSize);
    }
  }

  /** The paper's probe (ten small puts) plus three 1 MiB puts, arrangement for 1 MiB values. */
  public static ProbeOptions defaults() {
    return new ProbeOptions(10, 1 << 20, 3, 1 << 20);
  }

  /** Same, with the arrangement and Condition 1 computed for values of {@code size} bytes. */
  public ProbeOptions forValueSize(long size) {
    return new ProbeOptions(rttRounds, payloadBytes, payloadRounds, size);
  }
}
