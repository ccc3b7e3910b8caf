package io.rafestore.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.internal.codec.Shamir.Share;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShamirTest {

  /** Every subset of at least threshold shares recovers; checked for all n <= 7. */
  @Test
  void everySubsetOfThresholdSharesRecovers() {
    Random random = new Random(1);
    for (int n = 1; n <= 7; n++) {
      for (int t = 1; t <= n; t++) {
        byte[] secret = ReedSolomonTest.randomBytes(random, 1 + random.nextInt(64));
        List<Share> shares = Shamir.split(secret, n, t);
        assertThat(shares).extracting(Share::x).doesNotHaveDuplicates().allMatch(x -> x >= 1);
        for (int mask = 1; mask < 1 << n; mask++) {
          List<Share> subset = subset(shares, mask);
          if (subset.size() >= t) {
            assertThat(Shamir.combine(subset))
                .as("n=%d t=%d mask=%d", n, t, mask)
                .isEqualTo(secret);
          }
        }
      }
    }
  }

  /** Any threshold shares restore every other share of their split exactly. */
  @RepeatedTest(20)
  void thresholdSharesRestoreEveryOtherShare(RepetitionInfo info) {
    Random random = new Random(500 + info.getCurrentRepetition());
    int n = 2 + random.nextInt(12);
    int t = 1 + random.nextInt(n);
    byte[] secret = ReedSolomonTest.randomBytes(random, 1 + random.nextInt(64));
    List<Share> shares = Shamir.split(secret, n, t);
    List<Share> shuffled = new ArrayList<>(shares);
    Collections.shuffle(shuffled, random);
    List<Share> known = shuffled.subList(0, t);
    for (Share original : shares) {
      assertThat(Shamir.shareAt(known, original.x())).isEqualTo(original);
    }
    if (t > 1) {
      // Fewer than the threshold determine a different polynomial: some restored share is wrong.
      List<Share> tooFew = shuffled.subList(0, t - 1);
      assertThat(shares).anyMatch(orig -> !Shamir.shareAt(tooFew, orig.x()).equals(orig));
    }
    assertThatThrownBy(() -> Shamir.shareAt(known, 0)).hasMessageContaining("x must be");
  }

  @RepeatedTest(30)
  void largeRandomSplitsRecoverFromRandomSubsets(RepetitionInfo info) {
    Random random = new Random(100 + info.getCurrentRepetition());
    int n = 1 + random.nextInt(Shamir.MAX_SHARES);
    int t = 1 + random.nextInt(n);
    byte[] secret = ReedSolomonTest.randomBytes(random, random.nextInt(3000));
    List<Share> shares = new ArrayList<>(Shamir.split(secret, n, t));
    Collections.shuffle(shares, random);
    assertThat(Shamir.combine(shares.subList(0, t))).isEqualTo(secret);
  }

  /**
   * Perfect secrecy, by enumeration: for a 1-byte secret and threshold t, each of the 256^(t-1)
   * coefficient choices is equally likely, and for EVERY secret they map one-to-one onto the values
   * of any t - 1 shares. So every (t-1)-tuple of share values occurs exactly once per secret: the
   * shares' distribution is uniform and the same whatever the secret.
   */
  @ParameterizedTest(name = "t={0}")
  @CsvSource({"2", "3"})
  void anyThresholdMinusOneSharesAreUniformForEverySecret(int t) {
    int polynomials = 1 << (8 * (t - 1));
    int[] secrets = t == 2 ? range(256) : new int[] {0, 1, 0x5A, 0xFF};
    for (int secret : secrets) {
      // Observed share values of x = 1..t-1, and of x = 2..t, for every polynomial.
      int[] countsLow = new int[polynomials];
      int[] countsHigh = new int[polynomials];
      for (int coefficients = 0; coefficients < polynomials; coefficients++) {
        List<Share> shares =
            Shamir.split(new byte[] {(byte) secret}, t, t, fixedBytes(coefficients, t - 1));
        countsLow[tuple(shares.subList(0, t - 1))]++;
        countsHigh[tuple(shares.subList(1, t))]++;
        assertThat(Shamir.combine(shares)).containsExactly((byte) secret);
      }
      for (int v = 0; v < polynomials; v++) {
        assertThat(countsLow[v]).as("secret %d, shares %d", secret, v).isEqualTo(1);
        assertThat(countsHigh[v]).as("secret %d, shares %d", secret, v).isEqualTo(1);
      }
    }
  }

  /**
   * The same from the attacker's side: given f = t - 1 real shares of a secret, every one of the
   * 256 candidate secrets is consistent with them (some share at x = 0 completes a valid set).
   */
  @Test
  void fSharesAreConsistentWithEveryCandidateSecret() {
    for (int f = 1; f <= 4; f++) {
      List<Share> shares = Shamir.split(new byte[] {42}, f + 1, f + 1);
      List<Share> seen = shares.subList(0, f);
      // Take the f seen shares plus a guessed share at x = t; each guess gives one secret.
      boolean[] reachable = new boolean[256];
      for (int guess = 0; guess < 256; guess++) {
        List<Share> completed = new ArrayList<>(seen);
        completed.add(new Share(f + 1, new byte[] {(byte) guess}));
        reachable[Shamir.combine(completed)[0] & 0xFF] = true;
      }
      for (int s = 0; s < 256; s++) {
        assertThat(reachable[s]).as("f=%d candidate %d", f, s).isTrue();
      }
    }
  }

  /** A statistical check of the real random source: one share of a fixed secret is uniform. */
  @Test
  void singleShareValuesLookUniformWithSecureRandom() {
    int samples = 256 * 200;
    int[] counts = new int[256];
    for (int i = 0; i < samples; i++) {
      counts[Shamir.split(new byte[] {7}, 2, 2).get(0).y()[0] & 0xFF]++;
    }
    double expected = samples / 256.0;
    double chiSquare = 0;
    for (int c : counts) {
      chiSquare += (c - expected) * (c - expected) / expected;
    }
    // 255 degrees of freedom: P(chi^2 > 400) is about 1e-8.
    assertThat(chiSquare).isLessThan(400);
  }

  @Test
  void tamperedShareGivesADifferentSecret() {
    Random random = new Random(3);
    for (int trial = 0; trial < 200; trial++) {
      int n = 2 + random.nextInt(10);
      int t = 1 + random.nextInt(n);
      byte[] secret = ReedSolomonTest.randomBytes(random, 1 + random.nextInt(100));
      List<Share> shares = new ArrayList<>(Shamir.split(secret, n, t).subList(0, t));
      int victim = random.nextInt(t);
      byte[] y = shares.get(victim).y();
      int at = random.nextInt(y.length);
      y[at] ^= (byte) (1 + random.nextInt(255));
      shares.set(victim, new Share(shares.get(victim).x(), y));
      byte[] combined = Shamir.combine(shares);
      // The Lagrange coefficient of every share is non-zero, so exactly that byte changes.
      assertThat(combined[at]).isNotEqualTo(secret[at]);
      combined[at] = secret[at];
      assertThat(combined).isEqualTo(secret);
    }
  }

  @Test
  void splitAndCombineValidateArguments() {
    byte[] secret = {1, 2, 3};
    assertThatThrownBy(() -> Shamir.split(secret, 0, 1))
        .hasMessageContaining("n must be in 1..255");
    assertThatThrownBy(() -> Shamir.split(secret, 256, 1)).hasMessageContaining("was 256");
    assertThatThrownBy(() -> Shamir.split(secret, 3, 4))
        .hasMessageContaining("threshold must be in 1..n (n = 3), was 4");
    assertThatThrownBy(() -> Shamir.split(secret, 3, 0)).hasMessageContaining("was 0");
    assertThat(Shamir.split(secret, 255, 255)).hasSize(255);

    List<Share> shares = Shamir.split(secret, 3, 2);
    assertThatThrownBy(() -> Shamir.combine(List.of())).hasMessageContaining("at least one share");
    assertThatThrownBy(() -> Shamir.combine(List.of(shares.get(0), shares.get(0))))
        .hasMessageContaining("two shares have x = 1");
    assertThatThrownBy(() -> Shamir.combine(List.of(shares.get(0), new Share(2, new byte[2]))))
        .hasMessageContaining("different lengths: 3 and 2");
    assertThatThrownBy(() -> new Share(0, new byte[1])).hasMessageContaining("x must be in 1..255");
    assertThatThrownBy(() -> new Share(256, new byte[1])).hasMessageContaining("was 256");
    assertThat(shares.get(0).toString()).doesNotContain("[1, 2, 3]").contains("3 bytes");
  }

  @Test
  void sharesAreImmutable() {
    byte[] y = {1, 2};
    Share share = new Share(5, y);
    y[0] = 9;
    share.y()[1] = 9;
    assertThat(share.y()).containsExactly(1, 2);
    assertThat(share).isEqualTo(new Share(5, new byte[] {1, 2})).hasSameHashCodeAs(share);
  }

  @Test
  void wireFormatRoundTrips() throws Exception {
    for (Share share : Shamir.split(new byte[] {9, 8, 7, 6}, 5, 3)) {
      byte[] bytes = share.toBytes();
      assertThat(bytes).hasSize(6 + 4);
      assertThat(Share.parse(bytes)).isEqualTo(share);
    }
    Share empty = new Share(3, new byte[0]);
    assertThat(Share.parse(empty.toBytes())).isEqualTo(empty);

    ByteBuffer two = ByteBuffer.allocate(100);
    Share a = new Share(1, new byte[] {1});
    Share b = new Share(2, new byte[] {2, 2});
    two.put(a.toBytes()).put(b.toBytes()).put((byte) 0x55).flip();
    assertThat(Share.read(two)).isEqualTo(a);
    assertThat(Share.read(two)).isEqualTo(b);
    assertThat(two.remaining()).isEqualTo(1);
  }

  @Test
  void hostileSharesAreRejectedBeforeAllocating() {
    byte[] good = new Share(4, new byte[] {1, 2, 3}).toBytes();
    for (int cut = 0; cut < good.length; cut++) {
      byte[] truncated = Arrays.copyOf(good, cut);
      assertThatThrownBy(() -> Share.parse(truncated)).isInstanceOf(MalformedInputException.class);
    }
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> Share.parse(trailing)).hasMessageContaining("1 bytes after");
    byte[] version = good.clone();
    version[0] = 2;
    assertThatThrownBy(() -> Share.parse(version)).hasMessageContaining("version 2");
    byte[] xZero = good.clone();
    xZero[1] = 0;
    assertThatThrownBy(() -> Share.parse(xZero)).hasMessageContaining("x = 0");
    // A 2 GiB length claim in a 6-byte header must fail fast, not allocate.
    byte[] huge =
        ByteBuffer.allocate(6).put((byte) 1).put((byte) 1).putInt(Integer.MAX_VALUE).array();
    assertThatThrownBy(() -> Share.parse(huge))
        .isInstanceOf(MalformedInputException.class)
        .hasMessageContaining("declares 2147483647 value bytes, 0 remain");
    byte[] negative = ByteBuffer.allocate(7).put((byte) 1).put((byte) 1).putInt(-1).array();
    assertThatThrownBy(() -> Share.parse(negative)).hasMessageContaining("declares -1");
    Random random = new Random(4);
    for (int i = 0; i < 10_000; i++) {
      byte[] noise = ReedSolomonTest.randomBytes(random, random.nextInt(20));
      try {
        Share.parse(noise);
      } catch (MalformedInputException expected) {
        // The only failure random bytes may cause.
      }
    }
  }

  private static int tuple(List<Share> shares) {
    int v = 0;
    for (Share s : shares) {
      v = (v << 8) | (s.y()[0] & 0xFF);
    }
    return v;
  }

  private static int[] range(int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; i++) {
      r[i] = i;
    }
    return r;
  }

  /** A "random" source that yields the given coefficients, a_1 first, one byte each. */
  private static Random fixedBytes(int coefficients, int count) {
    return new Random() {
      private static final long serialVersionUID = 1L;
      private int next = 0;

      @Override
      public void nextBytes(byte[] bytes) {
        assertThat(bytes).hasSize(1);
        bytes[0] = (byte) (coefficients >>> (8 * next++));
        assertThat(next).isLessThanOrEqualTo(count);
      }
    };
  }

  private static List<Share> subset(List<Share> shares, int mask) {
    List<Share> out = new ArrayList<>();
    for (int i = 0; i < shares.size(); i++) {
      if ((mask & (1 << i)) != 0) {
        out.add(shares.get(i));
      }
    }
    return out;
  }
}
