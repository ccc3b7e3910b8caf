package io.rafestore.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Any k of k + m shards decode, for every small code exhaustively and large ones by sampling. */
class ReedSolomonTest {

  static Stream<Arguments> smallCodes() {
    List<Arguments> codes = new ArrayList<>();
    for (int k = 1; k <= 6; k++) {
      for (int m = 0; k + m <= 9; m++) {
        codes.add(Arguments.of(k, m));
      }
    }
    return codes.stream();
  }

  /** Every subset of at least k shards, for every code with k + m <= 9. */
  @ParameterizedTest(name = "k={0} m={1}")
  @MethodSource("smallCodes")
  void everySubsetOfAtLeastKShardsDecodes(int k, int m) throws Exception {
    ReedSolomon rs = ReedSolomon.of(k, m);
    Random random = new Random(31L * k + m);
    for (int length : new int[] {0, 1, k, 5 * k + 1, 1000 + random.nextInt(100)}) {
      byte[] data = randomBytes(random, length);
      byte[][] shards = rs.encode(data);
      assertThat(shards).hasNumberOfRows(k + m);
      for (byte[] shard : shards) {
        assertThat(shard).hasSize(rs.shardSize(length));
      }
      for (int j = 0; j < k; j++) {
        int from = Math.min(j * rs.shardSize(length), length);
        int to = Math.min(from + rs.shardSize(length), length);
        assertThat(Arrays.copyOf(shards[j], to - from))
            .as("systematic")
            .isEqualTo(Arrays.copyOfRange(data, from, to));
      }
      for (int mask = 0; mask < 1 << (k + m); mask++) {
        if (Integer.bitCount(mask) < k) {
          continue;
        }
        assertThat(rs.decode(keep(shards, mask), length)).as("mask %s", mask).isEqualTo(data);
      }
    }
  }

  /** Random (k, m) up to 256 shards; random subsets of exactly k shards. */
  @RepeatedTest(60)
  void randomCodesDecodeFromRandomKSubsets(RepetitionInfo info) throws Exception {
    Random random = new Random(1000 + info.getCurrentRepetition());
    int k = 1 + random.nextInt(info.getCurrentRepetition() % 5 == 0 ? 200 : 20);
    int m = random.nextInt(Math.min(ReedSolomon.MAX_SHARDS - k, 40) + 1);
    if (info.getCurrentRepetition() == 1) {
      k = 128;
      m = 128;
    }
    ReedSolomon rs = ReedSolomon.of(k, m);
    byte[] data = randomBytes(random, random.nextInt(20_000));
    byte[][] shards = rs.encode(data);
    for (int trial = 0; trial < 20; trial++) {
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < k + m; i++) {
        order.add(i);
      }
      Collections.shuffle(order, random);
      byte[][] subset = new byte[k + m][];
      for (int i = 0; i < k; i++) {
        subset[order.get(i)] = shards[order.get(i)];
      }
      assertThat(rs.decode(subset, data.length)).as("k=%d m=%d", k, m).isEqualTo(data);
    }
  }

  @Test
  void parityOnlyDecodeAndLargeValues() throws Exception {
    Random random = new Random(5);
    ReedSolomon rs = ReedSolomon.of(3, 3);
    byte[] data = randomBytes(random, 3 * 100_000 + 2);
    byte[][] shards = rs.encode(data);
    byte[][] parityOnly = {null, null, null, shards[3], shards[4], shards[5]};
    assertThat(rs.decode(parityOnly, data.length)).isEqualTo(data);
  }

  /**
   * Erasure codes do not detect errors: a corrupted shard silently changes the output. The protocol
   * compares each shard's SHA-256 with the signed metadata and drops the mismatch.
   */
  @RepeatedTest(20)
  void corruptedShardIsFoundByHashAndExcluded(RepetitionInfo info) throws Exception {
    Random random = new Random(77 + info.getCurrentRepetition());
    int k = 1 + random.nextInt(6);
    int m = 1 + random.nextInt(4);
    ReedSolomon rs = ReedSolomon.of(k, m);
    // A multiple of k, so no shard has padding, where a flipped byte would change nothing.
    byte[] data = randomBytes(random, k * (1 + random.nextInt(2000)));
    byte[][] shards = rs.encode(data);
    byte[][] hashes = new byte[k + m][];
    for (int i = 0; i < k + m; i++) {
      hashes[i] = Sha256.hash(shards[i]);
    }

    int bad = random.nextInt(k + m);
    byte[][] received = new byte[k + m][];
    for (int i = 0; i < k + m; i++) {
      received[i] = shards[i].clone();
    }
    received[bad][random.nextInt(received[bad].length)] ^= (byte) (1 + random.nextInt(255));

    // Used blindly, the bad shard yields wrong bytes whenever it is one of the k chosen.
    byte[][] blind = received.clone();
    int dropped = 0;
    for (int i = 0; i < k + m && dropped < m; i++) {
      if (i != bad) {
        blind[i] = null;
        dropped++;
      }
    }
    assertThat(rs.decode(blind, data.length)).isNotEqualTo(data);

    // The hash check finds exactly the bad shard; decoding without it is correct.
    byte[][] verified = new byte[k + m][];
    List<Integer> rejected = new ArrayList<>();
    for (int i = 0; i < k + m; i++) {
      if (Sha256.matches(received[i], hashes[i])) {
        verified[i] = received[i];
      } else {
        rejected.add(i);
      }
    }
    assertThat(rejected).containsExactly(bad);
    assertThat(rs.decode(verified, data.length)).isEqualTo(data);
  }

  @Test
  void encodeParityWorksOnSlicesAndMatchesEncode() {
    Random random = new Random(3);
    ReedSolomon rs = ReedSolomon.of(4, 2);
    byte[] data = randomBytes(random, 4 * 50_000);
    byte[][] full = rs.encode(data);
    byte[][] dataShards = Arrays.copyOf(full, 4);
    byte[][] parity = {new byte[50_000], new byte[50_000]};
    random.nextBytes(parity[0]);
    rs.encodeParity(dataShards, parity, 0, 20_000);
    rs.encodeParity(dataShards, parity, 20_000, 30_000);
    assertThat(parity[0]).isEqualTo(full[4]);
    assertThat(parity[1]).isEqualTo(full[5]);
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> ReedSolomon.of(0, 1)).hasMessageContaining("dataShards must be >= 1");
    assertThatThrownBy(() -> ReedSolomon.of(2, -1))
        .hasMessageContaining("parityShards must be >= 0");
    assertThatThrownBy(() -> ReedSolomon.of(200, 57)).hasMessageContaining("<= 256");
    assertThat(ReedSolomon.of(1, 255).totalShards()).isEqualTo(256);

    ReedSolomon rs = ReedSolomon.of(2, 2);
    byte[][] shards = rs.encode(new byte[10]);
    assertThatThrownBy(() -> rs.decode(Arrays.copyOf(shards, 3), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected 4 shard slots");
    assertThatThrownBy(() -> rs.decode(new byte[][] {shards[0], null, null, null}, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("need 2 shards");
    assertThatThrownBy(() -> rs.decode(shards, -1)).isInstanceOf(IllegalArgumentException.class);
    byte[][] wrongLength = shards.clone();
    wrongLength[3] = new byte[6];
    assertThatThrownBy(() -> rs.decode(wrongLength, 10))
        .isInstanceOf(MalformedInputException.class)
        .hasMessageContaining("shard 3 has 6 bytes, expected 5");
    assertThatThrownBy(() -> rs.decode(shards, 12)).isInstanceOf(MalformedInputException.class);
    assertThatThrownBy(() -> rs.encodeParity(new byte[2][4], new byte[2][4], 2, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> rs.encodeParity(new byte[3][4], new byte[2][4], 0, 4))
        .hasMessageContaining("dataShards must have 2 arrays");
  }

  @Test
  void decodeDoesNotModifyItsInput() throws Exception {
    ReedSolomon rs = ReedSolomon.of(3, 2);
    byte[] data = randomBytes(new Random(9), 999);
    byte[][] shards = rs.encode(data);
    byte[][] copy = new byte[5][];
    for (int i = 0; i < 5; i++) {
      copy[i] = shards[i].clone();
    }
    byte[][] in = {null, shards[1], null, shards[3], shards[4]};
    assertThat(rs.decode(in, 999)).isEqualTo(data);
    for (int i = 1; i < 5; i++) {
      assertThat(shards[i]).isEqualTo(copy[i]);
    }
  }

  /** One instance shared by threads that decode different erasure patterns at once. */
  @Test
  void concurrentDecodesShareOneInstance() throws Exception {
    ReedSolomon rs = ReedSolomon.of(4, 4);
    byte[] data = randomBytes(new Random(21), 40_000);
    byte[][] shards = rs.encode(data);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int task = 0; task < 200; task++) {
        int seed = task;
        results.add(
            pool.submit(
                () -> {
                  Random random = new Random(seed);
                  List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5, 6, 7));
                  Collections.shuffle(order, random);
                  byte[][] subset = new byte[8][];
                  for (int i = 0; i < 4; i++) {
                    subset[order.get(i)] = shards[order.get(i)];
                  }
                  return Arrays.equals(rs.decode(subset, data.length), data);
                }));
      }
      for (Future<Boolean> result : results) {
        assertThat(result.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static byte[][] keep(byte[][] shards, int mask) {
    byte[][] out = new byte[shards.length][];
    for (int i = 0; i < shards.length; i++) {
      if ((mask & (1 << i)) != 0) {
        out[i] = shards[i];
      }
    }
    return out;
  }

  static byte[] randomBytes(Random random, int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }
}
