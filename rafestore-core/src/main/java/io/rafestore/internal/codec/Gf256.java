package io.rafestore.internal.codec;

import java.util.Arrays;

/**
 * Arithmetic in GF(2^8) with the reducing polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D), for which 2
 * is a generator of the multiplicative group. Elements are ints in 0..255; addition and subtraction
 * are XOR.
 *
 * <p>Multiplication uses a full 256 x 256 product table ({@link #MUL}, 64 KiB) indexed by {@code (a
 * << 8) | b}, so the bulk kernels ({@link #mulAssign}, {@link #mulAdd}) do one array load per byte
 * with no branches. The tables are built once from the bitwise definition at class initialisation.
 * Stateless and thread-safe.
 */
final class Gf256 {
  /** The reducing polynomial, including the x^8 term. */
  static final int POLYNOMIAL = 0x11D;

  /** {@code EXP[i] = 2^i}, doubled in length so {@code EXP[LOG[a] + LOG[b]]} needs no modulo. */
  static final int[] EXP = new int[510];

  /** {@code LOG[a]} for a in 1..255; {@code LOG[0]} is unused. */
  static final int[] LOG = new int[256];

  /** {@code MUL[(a << 8) | b] = a * b}. Never written after class initialisation. */
  static final byte[] MUL = new byte[256 * 256];

  /** {@code INV[a] = a^-1} for a in 1..255; {@code INV[0] = 0} and is never used as an inverse. */
  static final int[] INV = new int[256];

  static {
    int x = 1;
    for (int i = 0; i < 255; i++) {
      EXP[i] = x;
      EXP[i + 255] = x;
      LOG[x] = i;
      x = slowMul(x, 2);
    }
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        MUL[(a << 8) | b] = (byte) (a == 0 || b == 0 ? 0 : EXP[LOG[a] + LOG[b]]);
      }
    }
    for (int a = 1; a < 256; a++) {
      INV[a] = EXP[255 - LOG[a]];
    }
  }

  private Gf256() {}

  /** Carry-less multiplication reduced modulo {@link #POLYNOMIAL}, straight from the definition. */
  static int slowMul(int a, int b) {
    int product = 0;
    int aa = a;
    int bb = b;
    while (bb != 0) {
      if ((bb & 1) != 0) {
        product ^= aa;
      }
      aa <<= 1;
      if ((aa & 0x100) != 0) {
        aa ^= POLYNOMIAL;
      }
      bb >>>= 1;
    }
    return product;
  }

  static int mul(int a, int b) {
    return MUL[(a << 8) | b] & 0xFF;
  }

  /** The multiplicative inverse of a non-zero element. */
  static int inv(int a) {
    if (a == 0) {
      throw new ArithmeticException("0 has no inverse in GF(2^8)");
    }
    return INV[a];
  }

  static int div(int a, int b) {
    return mul(a, inv(b));
  }

  /** {@code a^e} for e >= 0, with {@code 0^0 = 1}. */
  static int pow(int a, int e) {
    if (e == 0) {
      return 1;
    }
    if (a == 0) {
      return 0;
    }
    return EXP[(int) ((long) LOG[a] * e % 255)];
  }

  /** {@code out[outOff..+len) = c * in[inOff..+len)}. */
  static void mulAssign(int c, byte[] in, int inOff, byte[] out, int outOff, int len) {
    if (c == 0) {
      Arrays.fill(out, outOff, outOff + len, (byte) 0);
    } else if (c == 1) {
      System.arraycopy(in, inOff, out, outOff, len);
    } else {
      final byte[] mul = MUL;
      final int row = c << 8;
      for (int i = 0; i < len; i++) {
        out[outOff + i] = mul[row | (in[inOff + i] & 0xFF)];
      }
    }
  }

  /** {@code out[outOff..+len) ^= c * in[inOff..+len)}. */
  static void mulAdd(int c, byte[] in, int inOff, byte[] out, int outOff, int len) {
    if (c == 0) {
      return;
    }
    if (c == 1) {
      for (int i = 0; i < len; i++) {
        out[outOff + i] ^= in[inOff + i];
      }
    } else {
      final byte[] mul = MUL;
      final int row = c << 8;
      for (int i = 0; i < len; i++) {
        out[outOff + i] ^= mul[row | (in[inOff + i] & 0xFF)];
      }
    }
  }

  /**
   * {@code out[outOff..+len) (^)= sum_j c[j] * in[j][inOff..+len)} for {@code j} in {@code
   * from..from+4}: four inputs fused in one pass, so the output is loaded and stored once per four
   * products instead of four times. Overwrites the output unless {@code accumulate}.
   */
  static void mulSum4(
      int[] c, int from, byte[][] in, int inOff, byte[] out, int outOff, int len, boolean acc) {
    final byte[] mul = MUL;
    final int r0 = c[from] << 8;
    final int r1 = c[from + 1] << 8;
    final int r2 = c[from + 2] << 8;
    final int r3 = c[from + 3] << 8;
    final byte[] a = in[from];
    final byte[] b = in[from + 1];
    final byte[] d = in[from + 2];
    final byte[] e = in[from + 3];
    for (int i = 0; i < len; i++) {
      int p = inOff + i;
      int v =
          mul[r0 | (a[p] & 0xFF)]
              ^ mul[r1 | (b[p] & 0xFF)]
              ^ mul[r2 | (d[p] & 0xFF)]
              ^ mul[r3 | (e[p] & 0xFF)];
      out[outOff + i] = (byte) (acc ? out[outOff + i] ^ v : v);
    }
  }

  /** {@link #mulSum4} for three inputs. */
  static void mulSum3(
      int[] c, int from, byte[][] in, int inOff, byte[] out, int outOff, int len, boolean acc) {
    final byte[] mul = MUL;
    final int r0 = c[from] << 8;
    final int r1 = c[from + 1] << 8;
    final int r2 = c[from + 2] << 8;
    final byte[] a = in[from];
    final byte[] b = in[from + 1];
    final byte[] d = in[from + 2];
    for (int i = 0; i < len; i++) {
      int p = inOff + i;
      int v = mul[r0 | (a[p] & 0xFF)] ^ mul[r1 | (b[p] & 0xFF)] ^ mul[r2 | (d[p] & 0xFF)];
      out[outOff + i] = (byte) (acc ? out[outOff + i] ^ v : v);
    }
  }

  /** {@link #mulSum4} for two inputs. */
  static void mulSum2(
      int[] c, int from, byte[][] in, int inOff, byte[] out, int outOff, int len, boolean acc) {
    final byte[] mul = MUL;
    final int r0 = c[from] << 8;
    final int r1 = c[from + 1] << 8;
    final byte[] a = in[from];
    final byte[] b = in[from + 1];
    for (int i = 0; i < len; i++) {
      int p = inOff + i;
      int v = mul[r0 | (a[p] & 0xFF)] ^ mul[r1 | (b[p] & 0xFF)];
      out[outOff + i] = (byte) (acc ? out[outOff + i] ^ v : v);
    }
  }

  /**
   * {@code out[outOff..+len) = sum_j c[j] * in[j][inOff..+len)} over all j: the one bulk kernel of
   * Reed-Solomon encoding and decoding. Inputs are taken four, three or two at a time.
   */
  static void mulSum(int[] c, byte[][] in, int inOff, byte[] out, int outOff, int len) {
    int n = c.length;
    int j = 0;
    boolean acc = false;
    while (j < n) {
      int left = n - j;
      if (left >= 4 && left != 5) {
        mulSum4(c, j, in, inOff, out, outOff, len, acc);
        j += 4;
      } else if (left == 3 || left == 5) {
        mulSum3(c, j, in, inOff, out, outOff, len, acc);
        j += 3;
      } else if (left == 2) {
        mulSum2(c, j, in, inOff, out, outOff, len, acc);
        j += 2;
      } else if (acc) {
        mulAdd(c[j], in[j], inOff, out, outOff, len);
        j++;
      } else {
        mulAssign(c[j], in[j], inOff, out, outOff, len);
        j++;
      }
      acc = true;
    }
  }

  /**
   * Inverts a square matrix by Gauss-Jordan elimination.
   *
   * @return the inverse (a new matrix); {@code matrix} is left unchanged
   * @throws ArithmeticException if the matrix is singular
   */
  static int[][] invert(int[][] matrix) {
    int n = matrix.length;
    int[][] a = new int[n][];
    int[][] inv = new int[n][n];
    for (int i = 0; i < n; i++) {
      if (matrix[i].length != n) {
        throw new IllegalArgumentException("matrix is not square");
      }
      a[i] = matrix[i].clone();
      inv[i][i] = 1;
    }
    for (int col = 0; col < n; col++) {
      int pivot = col;
      while (pivot < n && a[pivot][col] == 0) {
        pivot++;
      }
      if (pivot == n) {
        throw new ArithmeticException("singular matrix");
      }
      swap(a, col, pivot);
      swap(inv, col, pivot);
      int scale = inv(a[col][col]);
      scaleRow(a[col], scale);
      scaleRow(inv[col], scale);
      for (int r = 0; r < n; r++) {
        int factor = a[r][col];
        if (r != col && factor != 0) {
          for (int c = 0; c < n; c++) {
            a[r][c] ^= mul(factor, a[col][c]);
            inv[r][c] ^= mul(factor, inv[col][c]);
          }
        }
      }
    }
    return inv;
  }

  private static void swap(int[][] m, int i, int j) {
    int[] t = m[i];
    m[i] = m[j];
    m[j] = t;
  }

  private static void scaleRow(int[] row, int scale) {
    for (int c = 0; c < row.length; c++) {
      row[c] = mul(row[c], scale);
    }
  }
}
