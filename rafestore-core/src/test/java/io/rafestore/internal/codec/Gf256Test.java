package io.rafestore.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The field axioms of GF(2^8) under 0x11D, checked exhaustively against the tables. */
class Gf256Test {

  @Test
  void productTableMatchesBitwiseDefinition() {
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        assertThat(Gf256.mul(a, b)).as("%d * %d", a, b).isEqualTo(Gf256.slowMul(a, b));
      }
    }
  }

  @Test
  void twoGeneratesTheMultiplicativeGroup() {
    boolean[] seen = new boolean[256];
    for (int i = 0; i < 255; i++) {
      int e = Gf256.EXP[i];
      assertThat(seen[e]).as("2^%d repeats", i).isFalse();
      seen[e] = true;
      assertThat(Gf256.LOG[e]).isEqualTo(i);
    }
    assertThat(seen[0]).isFalse();
    assertThat(Gf256.slowMul(Gf256.EXP[254], 2)).isEqualTo(1);
  }

  @Test
  void identitiesAndCommutativity() {
    for (int a = 0; a < 256; a++) {
      assertThat(Gf256.mul(a, 1)).isEqualTo(a);
      assertThat(Gf256.mul(a, 0)).isZero();
      assertThat(a ^ a).isZero();
      for (int b = 0; b < 256; b++) {
        assertThat(Gf256.mul(a, b)).isEqualTo(Gf256.mul(b, a));
      }
    }
  }

  @Test
  void associativityAndDistributivityExhaustive() {
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        int ab = Gf256.mul(a, b);
        for (int c = 0; c < 256; c++) {
          if (Gf256.mul(ab, c) != Gf256.mul(a, Gf256.mul(b, c))) {
            throw new AssertionError("(a*b)*c != a*(b*c) for " + a + "," + b + "," + c);
          }
          if (Gf256.mul(a, b ^ c) != (ab ^ Gf256.mul(a, c))) {
            throw new AssertionError("a*(b+c) != a*b+a*c for " + a + "," + b + "," + c);
          }
        }
      }
    }
  }

  @Test
  void everyNonZeroElementHasAUniqueInverse() {
    for (int a = 1; a < 256; a++) {
      int inv = Gf256.inv(a);
      assertThat(Gf256.mul(a, inv)).as("%d * inv", a).isEqualTo(1);
      int count = 0;
      for (int b = 1; b < 256; b++) {
        if (Gf256.mul(a, b) == 1) {
          count++;
        }
      }
      assertThat(count).isEqualTo(1);
      assertThat(Gf256.div(Gf256.mul(a, 77), a)).isEqualTo(77);
    }
    assertThatThrownBy(() -> Gf256.inv(0)).isInstanceOf(ArithmeticException.class);
  }

  @Test
  void powMatchesRepeatedMultiplication() {
    for (int a = 0; a < 256; a++) {
      int p = 1;
      for (int e = 0; e < 600; e++) {
        assertThat(Gf256.pow(a, e)).as("%d^%d", a, e).isEqualTo(p);
        p = Gf256.mul(p, a);
      }
    }
  }

  @Test
  void bulkKernelsMatchScalarMultiplication() {
    Random random = new Random(7);
    byte[] in = new byte[1000];
    random.nextBytes(in);
    for (int c = 0; c < 256; c++) {
      byte[] out = new byte[1010];
      random.nextBytes(out);
      byte[] before = out.clone();
      Gf256.mulAdd(c, in, 3, out, 5, 990);
      for (int i = 0; i < 990; i++) {
        int expected = (before[5 + i] & 0xFF) ^ Gf256.mul(c, in[3 + i] & 0xFF);
        assertThat(out[5 + i] & 0xFF).isEqualTo(expected);
      }
      assertThat(out[4]).isEqualTo(before[4]);
      assertThat(out[995]).isEqualTo(before[995]);
      Gf256.mulAssign(c, in, 3, out, 5, 990);
      for (int i = 0; i < 990; i++) {
        assertThat(out[5 + i] & 0xFF).isEqualTo(Gf256.mul(c, in[3 + i] & 0xFF));
      }
    }
  }

  @Test
  void fusedSumMatchesScalarForEveryInputCount() {
    Random random = new Random(13);
    for (int n = 1; n <= 11; n++) {
      int[] c = new int[n];
      byte[][] in = new byte[n][300];
      for (int j = 0; j < n; j++) {
        c[j] = random.nextInt(256);
        random.nextBytes(in[j]);
      }
      c[0] = n % 3 == 0 ? 0 : c[0];
      c[n - 1] = n % 4 == 0 ? 1 : c[n - 1];
      byte[] out = new byte[300];
      random.nextBytes(out);
      byte[] before = out.clone();
      Gf256.mulSum(c, in, 10, out, 20, 250);
      for (int i = 0; i < 300; i++) {
        int expected = before[i] & 0xFF;
        if (i >= 20 && i < 270) {
          expected = 0;
          for (int j = 0; j < n; j++) {
            expected ^= Gf256.slowMul(c[j], in[j][i - 10] & 0xFF);
          }
        }
        assertThat(out[i] & 0xFF).as("n=%d i=%d", n, i).isEqualTo(expected);
      }
    }
  }

  @Test
  void invertRecoversIdentityAndRejectsSingular() {
    Random random = new Random(11);
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + random.nextInt(12);
      int[][] m = new int[n][n];
      for (int[] row : m) {
        for (int c = 0; c < n; c++) {
          row[c] = random.nextInt(256);
        }
      }
      int[][] inv;
      try {
        inv = Gf256.invert(m);
      } catch (ArithmeticException singular) {
        continue;
      }
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          int sum = 0;
          for (int x = 0; x < n; x++) {
            sum ^= Gf256.mul(m[i][x], inv[x][j]);
          }
          assertThat(sum).isEqualTo(i == j ? 1 : 0);
        }
      }
    }
    int[][] singular = {{1, 2}, {2, 4}};
    assertThatThrownBy(() -> Gf256.invert(singular)).isInstanceOf(ArithmeticException.class);
  }
}
