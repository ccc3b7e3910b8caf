package io.rafestore.internal.codec;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * Shamir secret sharing over GF(2^8), byte by byte: for every byte s of the secret an independent
 * uniformly random polynomial {@code p(x) = s + a_1 x + ... + a_(t-1) x^(t-1)} is drawn, and share
 * i is {@code (x = i, y = p(i))} for i in 1..n. Any {@code threshold = t} shares determine every p
 * and so the secret (Lagrange interpolation at 0); any t - 1 shares are, for every candidate
 * secret, consistent with exactly one polynomial each, so they carry no information about it
 * (perfect secrecy; the coefficients come from {@link SecureRandom}).
 *
 * <p>The scheme has no integrity of its own: a changed share silently yields a different secret.
 * DepSky-CA shares the key of an authenticated cipher ({@link Aead}) and checks each share's hash
 * against signed metadata before combining.
 *
 * <p>No maintained Shamir library resolves cleanly for this project, so this one is written here
 * from the definition, on the same GF(2^8) tables as {@link ReedSolomon}; its tests check the field
 * exhaustively, recovery from every subset, and secrecy by enumerating every polynomial. It does
 * not try to be constant-time: table lookups indexed by secret bytes may leak through the cache to
 * a co-located attacker, which is outside RafeStore's fault model (clouds, not local processes, are
 * the adversary).
 *
 * <p>Stateless and thread-safe.
 */
public final class Shamir {
  /** The most shares: the non-zero elements of GF(2^8) are the only usable x coordinates. */
  public static final int MAX_SHARES = 255;

  private static final SecureRandom RANDOM = new SecureRandom();

  private Shamir() {}

  /**
   * Splits {@code secret} into {@code n} shares with x = 1..n such that any {@code threshold} of
   * them recover it and fewer reveal nothing about it.
   *
   * @throws IllegalArgumentException unless {@code 1 <= threshold <= n <= 255}
   */
  public static List<Share> split(byte[] secret, int n, int threshold) {
    return split(secret, n, threshold, RANDOM);
  }

  /** {@link #split(byte[], int, int)} drawing coefficients from {@code random}; for tests. */
  static List<Share> split(byte[] secret, int n, int threshold, Random random) {
    Objects.requireNonNull(secret, "secret");
    if (n < 1 || n > MAX_SHARES) {
      throw new IllegalArgumentException("n must be in 1.." + MAX_SHARES + ", was " + n);
    }
    if (threshold < 1 || threshold > n) {
      throw new IllegalArgumentException(
          "threshold must be in 1..n (n = " + n + "), was " + threshold);
    }
    int len = secret.length;
    // coefficients[d - 1][b] is a_d of the polynomial for secret byte b.
    byte[][] coefficients = new byte[threshold - 1][len];
    for (byte[] row : coefficients) {
      random.nextBytes(row);
    }
    List<Share> shares = new ArrayList<>(n);
    try {
      for (int x = 1; x <= n; x++) {
        // Horner's rule, one degree at a time across all bytes:
        // y = (..(a_(t-1) x + a_(t-2)) x + ..) x + s.
        byte[] y = new byte[len];
        if (threshold == 1) {
          System.arraycopy(secret, 0, y, 0, len);
        } else {
          System.arraycopy(coefficients[threshold - 2], 0, y, 0, len);
          for (int d = threshold - 3; d >= -1; d--) {
            Gf256.mulAssign(x, y, 0, y, 0, len);
            byte[] add = d >= 0 ? coefficients[d] : secret;
            for (int b = 0; b < len; b++) {
              y[b] ^= add[b];
            }
          }
        }
        shares.add(new Share(x, y, false));
      }
    } finally {
      for (byte[] row : coefficients) {
        Arrays.fill(row, (byte) 0);
      }
    }
    return List.copyOf(shares);
  }

  /**
   * The secret from {@code shares}, by Lagrange interpolation at 0 through all of them. Pass at
   * least {@code threshold} shares of one split, all correct: fewer, or one changed share, give a
   * wrong secret and this method cannot tell.
   *
   * @throws IllegalArgumentException if there are no shares, two have the same x, or their lengths
   *     differ
   */
  public static byte[] combine(Collection<Share> shares) {
    return interpolate(shares, 0);
  }

  /**
   * The share at {@code x} (1..255) of the polynomials that {@code shares} determine: with at least
   * the threshold of shares of one split, exactly the share that split gave (or would have given)
   * to x. Lets a holder of threshold shares restore a lost share without learning anything it could
   * not already compute, since it could recover the secret.
   *
   * @throws IllegalArgumentException as {@link #combine}, or if x is not in 1..255
   */
  public static Share shareAt(Collection<Share> shares, int x) {
    if (x < 1 || x > MAX_SHARES) {
      throw new IllegalArgumentException("x must be in [1, " + MAX_SHARES + "], was " + x);
    }
    return new Share(x, interpolate(shares, x));
  }

  /** Lagrange interpolation of every byte's polynomial at {@code x} (0 gives the secret). */
  private static byte[] interpolate(Collection<Share> shares, int x) {
    Objects.requireNonNull(shares, "shares");
    if (shares.isEmpty()) {
      throw new IllegalArgumentException("at least one share is needed");
    }
    Share[] s = shares.toArray(new Share[0]);
    int len = s[0].y.length;
    boolean[] seen = new boolean[256];
    for (Share share : s) {
      Objects.requireNonNull(share, "share");
      if (seen[share.x]) {
        throw new IllegalArgumentException("two shares have x = " + share.x);
      }
      seen[share.x] = true;
      if (share.y.length != len) {
        throw new IllegalArgumentException(
            "shares have different lengths: " + len + " and " + share.y.length);
      }
    }
    byte[] out = new byte[len];
    for (int j = 0; j < s.length; j++) {
      if (s[j].x == x) {
        // The polynomial passes through this share: L_j(x_j) = 1 and every other L_m(x_j) = 0.
        return s[j].y.clone();
      }
    }
    for (int j = 0; j < s.length; j++) {
      // L_j(x) = prod_{m != j} (x - x_m) / (x_j - x_m); subtraction is XOR, and x_m != x_j.
      int numerator = 1;
      int denominator = 1;
      for (int m = 0; m < s.length; m++) {
        if (m != j) {
          numerator = Gf256.mul(numerator, x ^ s[m].x);
          denominator = Gf256.mul(denominator, s[m].x ^ s[j].x);
        }
      }
      Gf256.mulAdd(Gf256.div(numerator, denominator), s[j].y, 0, out, 0, len);
    }
    return out;
  }

  /**
   * One share: the x coordinate (1..255) and the value of every byte's polynomial at x. Immutable;
   * {@link #toString} does not print the value.
   *
   * <p>Wire format, version 1 (big-endian): {@code 0x01 | x (1 byte) | length (4 bytes) | y (length
   * bytes)}.
   */
  public static final class Share {
    private static final byte FORMAT_VERSION = 1;
    private static final int HEADER_BYTES = 6;

    private final int x;
    private final byte[] y;

    /**
     * A share with the given coordinates; {@code y} is copied.
     *
     * @throws IllegalArgumentException unless {@code 1 <= x <= 255}
     */
    public Share(int x, byte[] y) {
      this(x, y, true);
    }

    /** {@code copy} is false only for arrays this class allocated and no one else holds. */
    private Share(int x, byte[] y, boolean copy) {
      Objects.requireNonNull(y, "y");
      if (x < 1 || x > MAX_SHARES) {
        throw new IllegalArgumentException("x must be in 1.." + MAX_SHARES + ", was " + x);
      }
      this.x = x;
      this.y = copy ? y.clone() : y;
    }

    public int x() {
      return x;
    }

    /** A copy of the share's value. */
    public byte[] y() {
      return y.clone();
    }

    /** The share in the wire format above. */
    public byte[] toBytes() {
      return ByteBuffer.allocate(HEADER_BYTES + y.length)
          .put(FORMAT_VERSION)
          .put((byte) x)
          .putInt(y.length)
          .put(y)
          .array();
    }

    /**
     * Reads one share from {@code in}, advancing its position past it; the bytes may be hostile.
     * Every length is checked against what remains before anything is allocated.
     *
     * @throws MalformedInputException if the bytes are not a version-1 share; {@code in}'s position
     *     is then unspecified
     */
    public static Share read(ByteBuffer in) throws MalformedInputException {
      if (in.remaining() < HEADER_BYTES) {
        throw new MalformedInputException(
            "share truncated: " + in.remaining() + " bytes, header needs " + HEADER_BYTES);
      }
      byte version = in.get();
      if (version != FORMAT_VERSION) {
        throw new MalformedInputException("unknown share format version " + version);
      }
      int x = in.get() & 0xFF;
      if (x == 0) {
        throw new MalformedInputException("share has x = 0, which would be the secret itself");
      }
      int length = in.getInt();
      if (length < 0 || length > in.remaining()) {
        throw new MalformedInputException(
            "share declares " + length + " value bytes, " + in.remaining() + " remain");
      }
      byte[] y = new byte[length];
      in.get(y);
      return new Share(x, y, false);
    }

    /**
     * Parses a share that is the whole of {@code bytes}.
     *
     * @throws MalformedInputException if the bytes are not exactly one version-1 share
     */
    public static Share parse(byte[] bytes) throws MalformedInputException {
      ByteBuffer in = ByteBuffer.wrap(Objects.requireNonNull(bytes, "bytes"));
      Share share = read(in);
      if (in.hasRemaining()) {
        throw new MalformedInputException(in.remaining() + " bytes after the share");
      }
      return share;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Share other && x == other.x && Arrays.equals(y, other.y);
    }

    @Override
    public int hashCode() {
      return 31 * x + Arrays.hashCode(y);
    }

    @Override
    public String toString() {
      return "Share[x=" + x + ", " + y.length + " bytes]";
    }
  }
}
