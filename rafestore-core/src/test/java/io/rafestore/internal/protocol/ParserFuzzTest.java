package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.rafestore.Version;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Shamir;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * A seeded fuzzer over every parser of bytes that a cloud returns: metadata logs (with values,
 * coded entries, tombstones and collection watermarks), Shamir shares, Reed-Solomon fragments and
 * AES-GCM sealed values. Inputs are mutations of valid encodings (bit flips, truncations,
 * insertions, length and count fields set huge, splices) and random bytes.
 *
 * <p>Envelopes (the confidentiality option's per-cloud wrapper) are fuzzed too; a mutation inside
 * an envelope's unsigned share section may be accepted (shares are checked later against signed
 * hashes), so only the signed log must reject every change.
 *
 * <p>Each input must be rejected with the parser's own checked exception (or, for a mutation that
 * changed nothing, accepted), never another throwable, and the parse must not allocate much more
 * than the input's size (a cloud claiming a 2 GB length is refused unread). The budget is {@code
 * -Drafestore.fuzz.iterations} per parser (default 3,000) from {@code -Drafestore.fuzz.seed}
 * (printed). The timeout is a hang guard, far above the normal run time.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ParserFuzzTest {
  static final int ITERATIONS = Integer.getInteger("rafestore.fuzz.iterations", 3_000);
  static final long SEED = Long.getLong("rafestore.fuzz.seed", System.nanoTime());
  static final int MAX = 1 << 20;

  /** Bytes allocated by this thread, to catch allocations sized by a claimed length. */
  private static long allocated() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getThreadAllocatedBytes(Thread.currentThread().getId());
  }

  interface Parser {
    /** Parses; returns normally on acceptance, throws the parser's own exception on rejection. */
    void parse(byte[] input) throws Exception;
  }

  static byte[] mutate(byte[] valid, SplittableRandom r) {
    byte[] b = valid.clone();
    switch (r.nextInt(7)) {
      case 0 -> {
        for (int i = 0, flips = 1 + r.nextInt(8); i < flips; i++) {
          int p = r.nextInt(b.length);
          b[p] ^= (byte) (1 << r.nextInt(8));
        }
      }
      case 1 -> b = Arrays.copyOf(b, r.nextInt(b.length));
      case 2 -> {
        // A length or count field set huge: 2 or 4 bytes of 0xFF / 0x7F at a random offset.
        int width = r.nextBoolean() ? 2 : 4;
        int p = r.nextInt(Math.max(1, b.length - width));
        for (int i = 0; i < width && p + i < b.length; i++) {
          b[p + i] = (byte) (i == 0 && r.nextBoolean() ? 0x7F : 0xFF);
        }
      }
      case 3 -> {
        int p = r.nextInt(b.length + 1);
        byte[] extra = new byte[1 + r.nextInt(64)];
        r.nextBytes(extra);
        byte[] out = new byte[b.length + extra.length];
        System.arraycopy(b, 0, out, 0, p);
        System.arraycopy(extra, 0, out, p, extra.length);
        System.arraycopy(b, p, out, p + extra.length, b.length - p);
        b = out;
      }
      case 4 -> {
        // Splice: a prefix of the valid bytes followed by random bytes.
        int p = r.nextInt(b.length);
        r.nextBytes(b);
        System.arraycopy(valid, 0, b, 0, p);
      }
      case 5 -> {
        int p = r.nextInt(b.length);
        b[p] = (byte) r.nextInt(256);
      }
      default -> {
        b = new byte[r.nextInt(512)];
        r.nextBytes(b);
      }
    }
    return b;
  }

  static void fuzz(
      String name,
      List<byte[]> seeds,
      Parser parser,
      Class<? extends Throwable> rejection,
      boolean everyChangeRejected,
      SplittableRandom r) {
    int rejected = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      byte[] valid = seeds.get(r.nextInt(seeds.size()));
      byte[] input = mutate(valid, r);
      long before = allocated();
      try {
        parser.parse(input);
        // Some mutations are harmless for formats without a signature (a flipped share byte is
        // still a share); a signed log must reject every change.
        assertThat(everyChangeRejected && !Arrays.equals(input, valid))
            .as("%s accepted a modified signed log", name)
            .isFalse();
      } catch (Throwable t) {
        if (!rejection.isInstance(t)) {
          fail(
              name
                  + " threw "
                  + t
                  + " on input "
                  + i
                  + " (seed "
                  + SEED
                  + "): "
                  + java.util.HexFormat.of().formatHex(input, 0, Math.min(64, input.length)),
              t);
        }
        rejected++;
      }
      long used = allocated() - before;
      assertThat(used)
          .as("%s allocated %d bytes for a %d-byte input (seed %d)", name, used, input.length, SEED)
          .isLessThan(64L * input.length + (4 << 20));
    }
    assertThat(rejected).as("%s rejected some inputs", name).isPositive();
  }

  @TestFactory
  Stream<DynamicTest> parsersRejectHostileBytesWithTheirOwnException() throws Exception {
    System.out.println("ParserFuzzTest seed=" + SEED + " iterations=" + ITERATIONS);
    SplittableRandom root = new SplittableRandom(SEED);
    MetadataCodec codec = new MetadataCodec();
    List<byte[]> logs = new ArrayList<>();
    for (int n : new int[] {0, 1, 5}) {
      List<LogEntry> entries = new ArrayList<>(MetadataCodecTest.sample(n).entries());
      long ts = entries.get(entries.size() - 1).timestamp();
      entries.add(LogEntry.collected(ts + 1, 9, new Version(Math.max(1, ts - 1), "bob")));
      logs.add(
          codec.encode(new MetadataLog("k", "alice", 3 + n, entries), Harness.ALICE.getPrivate()));
    }
    List<byte[]> envelopes = new ArrayList<>();
    for (byte[] log : logs) {
      java.util.SortedMap<Long, byte[]> perCloud = new java.util.TreeMap<>();
      perCloud.put(1L, Shamir.split(new byte[32], 4, 2).get(0).toBytes());
      perCloud.put(2L, new byte[] {1, 2, 3});
      envelopes.add(MetadataCodec.envelope(log, perCloud));
    }
    List<byte[]> shares = new ArrayList<>();
    for (Shamir.Share s : Shamir.split(new byte[32], 4, 2)) {
      shares.add(s.toBytes());
    }
    ReedSolomon rs = ReedSolomon.of(2, 2);
    byte[] sealedValue = Aead.withKey(Aead.newKey()).encrypt(new byte[300], new byte[] {1});
    byte[][] fragments = rs.encode(sealedValue);
    List<byte[]> fragmentSeeds = List.of(fragments);
    List<byte[]> sealedSeeds = List.of(sealedValue);
    Aead aead = Aead.withKey(Aead.newKey());
    return Stream.of(
        DynamicTest.dynamicTest(
            "metadata log",
            () ->
                fuzz(
                    "MetadataCodec.decode",
                    logs,
                    in -> codec.decode(in, "k", "alice", Harness.ALICE.getPublic(), MAX),
                    MalformedMetadataException.class,
                    true,
                    root.split())),
        DynamicTest.dynamicTest(
            "metadata envelope (confidentiality option)",
            () ->
                fuzz(
                    "MetadataCodec.decodeEnvelope",
                    envelopes,
                    in -> codec.decodeEnvelope(in, "k", "alice", Harness.ALICE.getPublic(), MAX),
                    MalformedMetadataException.class,
                    false,
                    root.split())),
        DynamicTest.dynamicTest(
            "Shamir share",
            () ->
                fuzz(
                    "Shamir.Share.parse",
                    shares,
                    in -> Shamir.Share.read(ByteBuffer.wrap(in)),
                    MalformedInputException.class,
                    false,
                    root.split())),
        DynamicTest.dynamicTest(
            "DepSky-CA piece (share then fragment) and Reed-Solomon decode",
            () -> {
              SplittableRandom r = root.split();
              fuzz(
                  "ReedSolomon.decode",
                  fragmentSeeds,
                  in -> {
                    // k = 2 distinct positions, as CodedFetch passes: one hostile fragment and one
                    // valid fragment (possibly at the wrong position).
                    byte[][] present = new byte[4][];
                    int a = r.nextInt(4);
                    present[a] = in;
                    present[(a + 1 + r.nextInt(3)) % 4] = fragments[r.nextInt(4)];
                    rs.decode(present, sealedValue.length);
                  },
                  MalformedInputException.class,
                  false,
                  r);
            }),
        DynamicTest.dynamicTest(
            "sealed value",
            () ->
                fuzz(
                    "Aead.decrypt",
                    sealedSeeds,
                    in -> aead.decrypt(in, new byte[] {1}),
                    MalformedInputException.class,
                    true,
                    root.split())));
  }

  @TestFactory
  Stream<DynamicTest> aMetadataObjectClaimingHugeCountsIsRefusedUnread() throws Exception {
    MetadataCodec codec = new MetadataCodec();
    byte[] valid = codec.encode(MetadataCodecTest.sample(2), Harness.ALICE.getPrivate());
    return IntStream.range(0, valid.length - 4)
        .mapToObj(
            p ->
                DynamicTest.dynamicTest(
                    "0x7FFFFFFF at offset " + p,
                    () -> {
                      byte[] b = valid.clone();
                      ByteBuffer.wrap(b).putInt(p, Integer.MAX_VALUE);
                      long before = allocated();
                      try {
                        codec.decode(b, "k", "alice", Harness.ALICE.getPublic(), MAX);
                        fail("accepted a log with a huge field at " + p);
                      } catch (MalformedMetadataException expected) {
                        assertThat(allocated() - before).isLessThan(4L << 20);
                      }
                    }));
  }
}
