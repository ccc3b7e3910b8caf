package io.rafestore.internal.codec;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A systematic Reed-Solomon erasure code over GF(2^8) (polynomial 0x11D) with k data shards and m
 * parity shards: a value is split into k equal data shards, m parity shards are computed from them,
 * and the value can be rebuilt from ANY k of the k + m shards.
 *
 * <p><b>Construction.</b> The encoding matrix is {@code [I_k ; C]}, where C is the m x k Cauchy
 * matrix {@code C[i][j] = 1 / (x_i + y_j)} with {@code x_i = k + i} and {@code y_j = j}; these k +
 * m points are distinct elements of GF(2^8), which is why k + m is at most 256. Every square
 * submatrix of a Cauchy matrix is non-singular, so every k x k submatrix of {@code [I_k ; C]} is
 * non-singular (expand along the identity rows it contains): any k shards determine the data.
 *
 * <p><b>Length.</b> Shards carry no header. {@link #encode} pads the value with zeros to {@code k *
 * shardSize(length)} bytes, and {@link #decode} needs the original length back from the caller. In
 * RafeStore that length lives in the signed metadata of the version, which is authoritative; a
 * length in an unsigned shard header would be one more thing a Byzantine cloud could forge.
 *
 * <p><b>Faults.</b> The code corrects erasures, not errors: a corrupted shard that is used for
 * decoding yields wrong data without any error. Callers must verify each shard (RafeStore checks a
 * per-fragment SHA-256 from the signed metadata) and pass only verified shards, with {@code null}
 * for the rest.
 *
 * <p>Instances are immutable apart from a bounded cache of decoding matrices and are safe for
 * concurrent use by any number of threads.
 */
public final class ReedSolomon {
  /** The largest k + m: the number of distinct evaluation points in GF(2^8). */
  public static final int MAX_SHARDS = 256;

  /** Bytes processed per pass, so the data and parity slices of one block stay in cache. */
  private static final int BLOCK = 16 * 1024;

  /** Decoding matrices kept per set of rows used; bounded because C(k+m, k) can be huge. */
  private static final int MAX_CACHED_INVERSES = 1024;

  private final int dataShards;
  private final int parityShards;

  /** {@code parity[i][j]}: the coefficient of data shard j in parity shard i. */
  private final int[][] parity;

  private final Map<BitSet, int[][]> inverses = new ConcurrentHashMap<>();

  private ReedSolomon(int dataShards, int parityShards) {
    this.dataShards = dataShards;
    this.parityShards = parityShards;
    this.parity = new int[parityShards][dataShards];
    for (int i = 0; i < parityShards; i++) {
      for (int j = 0; j < dataShards; j++) {
        parity[i][j] = Gf256.inv((dataShards + i) ^ j);
      }
    }
  }

  /**
   * A code with {@code dataShards} data and {@code parityShards} parity shards.
   *
   * @throws IllegalArgumentException unless {@code dataShards >= 1}, {@code parityShards >= 0} and
   *     {@code dataShards + parityShards <= 256}
   */
  public static ReedSolomon of(int dataShards, int parityShards) {
    if (dataShards < 1) {
      throw new IllegalArgumentException("dataShards must be >= 1, was " + dataShards);
    }
    if (parityShards < 0) {
      throw new IllegalArgumentException("parityShards must be >= 0, was " + parityShards);
    }
    if (dataShards + parityShards > MAX_SHARDS) {
      throw new IllegalArgumentException(
          "dataShards + parityShards must be <= "
              + MAX_SHARDS
              + ", was "
              + dataShards
              + " + "
              + parityShards);
    }
    return new ReedSolomon(dataShards, parityShards);
  }

  /** k, the number of data shards, which is also the number of shards needed to decode. */
  public int dataShards() {
    return dataShards;
  }

  /** m, the number of parity shards, which is also the number of shards that may be lost. */
  public int parityShards() {
    return parityShards;
  }

  /** k + m. */
  public int totalShards() {
    return dataShards + parityShards;
  }

  /** The size of every shard of a value of {@code length} bytes: {@code ceil(length / k)}. */
  public int shardSize(int length) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0, was " + length);
    }
    return (int) (((long) length + dataShards - 1) / dataShards);
  }

  /**
   * Splits {@code data} into k data shards (the value in order, the last one zero-padded) followed
   * by m parity shards, each {@link #shardSize shardSize(data.length)} bytes long. {@code data} is
   * not modified or retained.
   */
  public byte[][] encode(byte[] data) {
    Objects.requireNonNull(data, "data");
    int size = shardSize(data.length);
    byte[][] shards = new byte[totalShards()][];
    for (int j = 0; j < dataShards; j++) {
      // copyOfRange zero-pads past the end of data and skips zeroing what it copies.
      int from = Math.min(j * size, data.length);
      shards[j] = Arrays.copyOfRange(data, from, from + size);
    }
    for (int i = dataShards; i < totalShards(); i++) {
      shards[i] = new byte[size];
    }
    encodeParity(
        Arrays.copyOfRange(shards, 0, dataShards),
        Arrays.copyOfRange(shards, dataShards, totalShards()),
        0,
        size);
    return shards;
  }

  /**
   * Computes {@code parityOut[i][off..off+len)} for every parity shard i from {@code
   * dataShards[j][off..off+len)}, overwriting the output range. Lets a caller encode in place, in
   * slices, or into buffers it reuses.
   *
   * @throws IllegalArgumentException if the array counts are not k and m
   * @throws IndexOutOfBoundsException if {@code off..off+len} is outside a shard
   */
  public void encodeParity(byte[][] dataShards, byte[][] parityOut, int off, int len) {
    checkShards("dataShards", dataShards, this.dataShards, off, len);
    checkShards("parityOut", parityOut, parityShards, off, len);
    for (int block = off; block < off + len; block += BLOCK) {
      int n = Math.min(BLOCK, off + len - block);
      for (int i = 0; i < parityShards; i++) {
        combine(parity[i], dataShards, block, parityOut[i], block, n);
      }
    }
  }

  /**
   * Rebuilds the value from any k shards.
   *
   * @param shards k + m entries in encoding order, {@code null} for a shard that is missing or
   *     failed verification; present entries are not modified or retained
   * @param originalLength the length of the encoded value, from trusted metadata
   * @return a new array of {@code originalLength} bytes
   * @throws IllegalArgumentException if {@code shards} does not have k + m entries, fewer than k
   *     are present, or {@code originalLength} is negative
   * @throws MalformedInputException if a present shard is not {@code shardSize(originalLength)}
   *     bytes long
   */
  public byte[] decode(byte[][] shards, int originalLength) throws MalformedInputException {
    Objects.requireNonNull(shards, "shards");
    if (shards.length != totalShards()) {
      throw new IllegalArgumentException(
          "expected " + totalShards() + " shard slots (null for missing), got " + shards.length);
    }
    int size = shardSize(originalLength);
    // Choose k present rows, preferring data rows: each present data shard is copied verbatim.
    int[] rows = new int[dataShards];
    int chosen = 0;
    for (int i = 0; i < shards.length; i++) {
      if (shards[i] != null) {
        if (shards[i].length != size) {
          throw new MalformedInputException(
              "shard "
                  + i
                  + " has "
                  + shards[i].length
                  + " bytes, expected "
                  + size
                  + " for a value of "
                  + originalLength
                  + " bytes");
        }
        if (chosen < dataShards) {
          rows[chosen++] = i;
        }
      }
    }
    if (chosen < dataShards) {
      throw new IllegalArgumentException(
          "need " + dataShards + " shards to decode, only " + chosen + " present");
    }
    byte[] out = new byte[originalLength];
    boolean missingData = rows[dataShards - 1] >= dataShards;
    int[][] inverse = missingData ? inverse(rows) : null;
    byte[][] sources = new byte[dataShards][];
    for (int r = 0; r < dataShards; r++) {
      sources[r] = shards[rows[r]];
    }
    for (int j = 0; j < dataShards; j++) {
      int from = j * size;
      int n = Math.max(0, Math.min(size, originalLength - from));
      if (n == 0) {
        continue;
      }
      if (shards[j] != null) {
        System.arraycopy(shards[j], 0, out, from, n);
      } else {
        for (int block = 0; block < n; block += BLOCK) {
          combine(inverse[j], sources, block, out, from + block, Math.min(BLOCK, n - block));
        }
      }
    }
    return out;
  }

  private static void combine(
      int[] coefficients, byte[][] in, int inOff, byte[] out, int outOff, int len) {
    Gf256.mulSum(coefficients, in, inOff, out, outOff, len);
  }

  /**
   * The inverse of the k x k submatrix of the encoding matrix made of {@code rows}, whose row j
   * gives data shard j as a combination of the shards in {@code rows}.
   */
  private int[][] inverse(int[] rows) {
    BitSet key = new BitSet(totalShards());
    for (int r : rows) {
      key.set(r);
    }
    int[][] cached = inverses.get(key);
    if (cached != null) {
      return cached;
    }
    int[][] sub = new int[dataShards][];
    for (int r = 0; r < dataShards; r++) {
      if (rows[r] < dataShards) {
        sub[r] = new int[dataShards];
        sub[r][rows[r]] = 1;
      } else {
        sub[r] = parity[rows[r] - dataShards].clone();
      }
    }
    int[][] inv = Gf256.invert(sub);
    if (inverses.size() < MAX_CACHED_INVERSES) {
      // Another thread may have cached the same inverse first; both are equal, use the cached.
      int[][] raced = inverses.putIfAbsent(key, inv);
      if (raced != null) {
        return raced;
      }
    }
    return inv;
  }

  private static void checkShards(String name, byte[][] shards, int count, int off, int len) {
    Objects.requireNonNull(shards, name);
    if (shards.length != count) {
      throw new IllegalArgumentException(
          name + " must have " + count + " arrays, has " + shards.length);
    }
    for (int i = 0; i < count; i++) {
      Objects.requireNonNull(shards[i], name + "[" + i + "]");
      Objects.checkFromIndexSize(off, len, shards[i].length);
    }
  }
}
