package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rafestore.Version;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.protocol.layout.CodedPieces;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MalformedMetadataException;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataCodecTest;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.util.Names;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property-based fuzzing of every parser of bytes a cloud returns: metadata logs (values, coded and
 * parted entries, tombstones, watermarks, sealed entries), the confidentiality option's envelopes
 * ("RFSE"), Shamir key shares, DepSky-CA pieces (share then fragment), Reed-Solomon fragments as
 * reads decode them and as repair rebuilds a lost piece from them, AES-GCM sealed values, and
 * object names from listings decoded back to keys.
 *
 * <p><b>The property</b>, for arbitrary bytes and for mutations of valid encodings (bit flips,
 * truncations, insertions, trailing bytes, splices of random bytes or of another valid encoding,
 * and 1-, 2-, 4- and 8-byte fields set to huge values): the parser either returns a result that is
 * allowed for that input or throws the integrity error it documents ({@link
 * MalformedMetadataException}, {@link MalformedInputException}); never another throwable, never a
 * hang (each parse runs on a worker with a generous guard, far above the microseconds a parse
 * takes: a hang guard, not a speed target), and never an allocation sized by what the input claims:
 * a parse may allocate at most 64 bytes per input byte plus 4 MiB (measured with {@code
 * ThreadMXBean#getThreadAllocatedBytes} on the worker thread), so a cloud claiming a 2 GB length is
 * refused unread.
 *
 * <p><b>Where the inputs come from.</b> Each property is a generator of cases and a check of one
 * case ({@link Prop}); generators draw every decision from a {@link Choices}. Two sources feed
 * them: in the build, {@link #holds} runs each property on {@code -Drafestore.fuzz.tries} cases
 * (default 2,000, set in rafestore-core's pom) drawn from a {@link SplittableRandom} seeded with
 * {@link #SEED} and the property's name, so the build is reproducible and a longer run by hand (for
 * example {@code -Drafestore.fuzz.tries=1000000}) explores further along the same sequence; by
 * hand, {@link #anyProperty} hands Jazzer's coverage-guided input to the same generators
 * (docs/design.md, section 12). A failing case is shrunk by dropping edits and bytes, and reported
 * with its case seed, which {@code -Drafestore.fuzz.case} replays alone.
 */
class ParserFuzzTest {

  /**
   * The generation seed of the build's run; {@code -Drafestore.fuzz.seed=N} picks another sequence.
   */
  static final long SEED = Long.getLong("rafestore.fuzz.seed", 20261121L);

  /** Cases per property in the build's run. */
  static final int TRIES = Integer.getInteger("rafestore.fuzz.tries", 2000);

  static final int MAX = 1 << 20;

  // ---------------------------------------------------------------- running one parse

  interface Parser {
    /** Parses; returns the result on acceptance, throws the parser's own exception otherwise. */
    Object parse(byte[] input) throws Exception;
  }

  /** What a parse did: its result or its throwable, and what it allocated. */
  record Outcome(Object result, Throwable thrown, long allocated) {}

  private static final AtomicLong WORKER_ID = new AtomicLong();
  private static ExecutorService worker = newWorker();

  private static ExecutorService newWorker() {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, "parser-fuzz-worker");
          t.setDaemon(true);
          WORKER_ID.set(t.getId());
          return t;
        });
  }

  private static long allocated() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getThreadAllocatedBytes(Thread.currentThread().getId());
  }

  /**
   * Runs one parse on the worker thread. A parse that has not returned after the guard is a hang:
   * the worker is abandoned (it is a daemon) and the case fails.
   */
  static Outcome run(Parser parser, byte[] input) {
    Future<Outcome> f =
        worker.submit(
            () -> {
              long before = allocated();
              Object result = null;
              Throwable thrown = null;
              try {
                result = parser.parse(input);
              } catch (Throwable t) {
                thrown = t;
              }
              return new Outcome(result, thrown, allocated() - before);
            });
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      worker = newWorker();
      throw new AssertionError("the parse did not return within 30 s (a hang) on " + hex(input));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    }
  }

  /**
   * Checks the property for one input: the integrity error or an acceptable result, bounded
   * allocation. Returns the accepted result, or null when the input was rejected.
   */
  static Object check(
      String name, Parser parser, byte[] input, Class<? extends Throwable> rejection) {
    Outcome o = run(parser, input);
    if (o.thrown != null && !rejection.isInstance(o.thrown)) {
      fail(
          name
              + " threw "
              + o.thrown
              + " instead of "
              + rejection.getSimpleName()
              + " on "
              + hex(input),
          o.thrown);
    }
    long bound = 64L * input.length + (4 << 20);
    long allocated = o.allocated;
    if (allocated >= bound) {
      // The first parse to reach a class loads it (and under Jazzer's fuzzing, instruments it) on
      // the worker, which is not the parse's own allocation: measure a second, identical parse.
      allocated = run(parser, input).allocated;
    }
    assertThat(allocated)
        .as("%s allocated %d bytes for a %d-byte input", name, allocated, input.length)
        .isLessThan(bound);
    return o.thrown == null ? o.result : null;
  }

  static String hex(byte[] b) {
    return b.length
        + " bytes "
        + HexFormat.of().formatHex(b, 0, Math.min(96, b.length))
        + (b.length > 96 ? "..." : "");
  }

  // ---------------------------------------------------------------- mutations

  /** One edit of a byte array; positions are taken modulo the length, so any int is valid. */
  sealed interface Edit {
    byte[] apply(byte[] in, List<byte[]> others);
  }

  /** Flips bit {@code bit} of byte {@code pos}. */
  record Flip(int pos, int bit) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      if (in.length == 0) {
        return in;
      }
      byte[] b = in.clone();
      b[pos % b.length] ^= (byte) (1 << bit);
      return b;
    }
  }

  /** Keeps the first {@code keep} bytes. */
  record Truncate(int keep) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      return Arrays.copyOf(in, keep % (in.length + 1));
    }
  }

  /** Inserts {@code bytes} at {@code pos}. */
  record Insert(int pos, byte[] bytes) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      int p = pos % (in.length + 1);
      byte[] out = new byte[in.length + bytes.length];
      System.arraycopy(in, 0, out, 0, p);
      System.arraycopy(bytes, 0, out, p, bytes.length);
      System.arraycopy(in, p, out, p + bytes.length, in.length - p);
      return out;
    }

    @Override
    public String toString() {
      return "Insert[pos=" + pos + ", bytes=" + HexFormat.of().formatHex(bytes) + "]";
    }
  }

  /** A length or count field set huge: {@code width} bytes at {@code pos} set to {@code value}. */
  record Huge(int pos, int width, long value) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      if (in.length < width) {
        return in;
      }
      byte[] b = in.clone();
      int p = pos % (in.length - width + 1);
      for (int i = 0; i < width; i++) {
        b[p + i] = (byte) (value >>> (8 * (width - 1 - i)));
      }
      return b;
    }
  }

  /** Trailing bytes after the end. */
  record Append(byte[] bytes) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      byte[] out = Arrays.copyOf(in, in.length + bytes.length);
      System.arraycopy(bytes, 0, out, in.length, bytes.length);
      return out;
    }

    @Override
    public String toString() {
      return "Append[bytes=" + HexFormat.of().formatHex(bytes) + "]";
    }
  }

  /** All but the last {@code drop} bytes: a read cut short. */
  record Chop(int drop) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      return Arrays.copyOf(in, Math.max(0, in.length - drop));
    }
  }

  /** The first {@code pos} bytes, then random bytes. */
  record Splice(int pos, byte[] tail) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      int p = pos % (in.length + 1);
      byte[] out = Arrays.copyOf(in, p + tail.length);
      System.arraycopy(tail, 0, out, p, tail.length);
      return out;
    }

    @Override
    public String toString() {
      return "Splice[pos=" + pos + ", tail=" + HexFormat.of().formatHex(tail) + "]";
    }
  }

  /** The first {@code pos} bytes, then another valid encoding from its byte {@code from} on. */
  record Graft(int pos, int other, int from) implements Edit {
    @Override
    public byte[] apply(byte[] in, List<byte[]> others) {
      byte[] o = others.get(other % others.size());
      int p = pos % (in.length + 1);
      int f = from % (o.length + 1);
      byte[] out = Arrays.copyOf(in, p + o.length - f);
      System.arraycopy(o, f, out, p, o.length - f);
      return out;
    }
  }

  /** A valid encoding and the edits applied to it, shown in a failure report. */
  record Mutant(byte[] valid, List<Edit> edits, List<byte[]> seeds) {
    byte[] bytes() {
      byte[] b = valid;
      for (Edit e : edits) {
        b = e.apply(b, seeds);
      }
      return b;
    }

    @Override
    public String toString() {
      return "Mutant[edits=" + edits + ", of a valid " + valid.length + "-byte encoding]";
    }
  }

  // ---------------------------------------------------------------- generating cases

  /**
   * The decisions a generator makes, from a seeded random stream (the build) or from the fuzzer's
   * input (Jazzer). Sizes lean small and positions lean toward the header, where the length and
   * count fields are.
   */
  interface Choices {
    /** An int in {@code [min, max]}. */
    int between(int min, int max);

    /** Up to {@code maxLength} bytes. */
    byte[] bytes(int maxLength);

    default <T> T oneOf(List<T> options) {
      return options.get(between(0, options.size() - 1));
    }

    default int position() {
      return between(0, 3) == 0 ? between(0, 1 << 16) : between(0, 64);
    }
  }

  /** Choices from a seeded {@link SplittableRandom}: the build's reproducible cases. */
  record SeededChoices(SplittableRandom random) implements Choices {
    @Override
    public int between(int min, int max) {
      return random.nextInt(min, max + 1);
    }

    @Override
    public byte[] bytes(int maxLength) {
      int n =
          random.nextInt(4) == 0
              ? random.nextInt(Math.min(16, maxLength) + 1)
              : between(0, maxLength);
      byte[] b = new byte[n];
      random.nextBytes(b);
      return b;
    }
  }

  /** Choices from Jazzer's input: the fuzzer steers them toward new coverage. */
  record FuzzerChoices(FuzzedDataProvider data) implements Choices {
    @Override
    public int between(int min, int max) {
      return data.consumeInt(min, max);
    }

    @Override
    public byte[] bytes(int maxLength) {
      return data.consumeBytes(maxLength);
    }
  }

  static final List<Long> HUGE =
      List.of(0x7FFFFFFFL, 0xFFFFFFFFL, 0x80000000L, 0xFFFFL, 2_000_000_000L, Long.MAX_VALUE, -1L);

  static Edit edit(Choices c) {
    return switch (c.between(0, 7)) {
      case 0 -> new Flip(c.position(), c.between(0, 7));
      case 1 -> new Truncate(c.position());
      case 2 -> new Insert(c.position(), someBytes(c));
      case 3 -> new Huge(c.position(), c.oneOf(List.of(1, 2, 4, 8)), c.oneOf(HUGE));
      case 4 -> new Splice(c.position(), someBytes(c));
      case 5 -> new Append(someBytes(c));
      case 6 -> new Chop(c.between(1, 64));
      default -> new Graft(c.position(), c.between(0, 16), c.position());
    };
  }

  static byte[] someBytes(Choices c) {
    byte[] b = c.bytes(64);
    return b.length == 0 ? new byte[] {(byte) c.between(0, 255)} : b;
  }

  /** One of the valid encodings with one to four edits. */
  static Mutant mutant(Choices c, List<byte[]> seeds) {
    byte[] valid = c.oneOf(seeds);
    int n = c.between(1, 4);
    List<Edit> edits = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      edits.add(edit(c));
    }
    return new Mutant(valid, List.copyOf(edits), seeds);
  }

  /** Arbitrary bytes, shown in hex in a failure report. */
  record Bytes(byte[] bytes) {
    @Override
    public String toString() {
      return hex(bytes);
    }
  }

  static Bytes arbitrary(Choices c, int maxLength) {
    return new Bytes(c.bytes(maxLength));
  }

  /** A case that is a mutant or arbitrary bytes, and positions among the four clouds. */
  record Hostile(Object input, int at, int target) {
    byte[] bytes() {
      return input instanceof Mutant m ? m.bytes() : ((Bytes) input).bytes();
    }

    /** Repair's target: any piece but the hostile one. */
    int rebuilt() {
      return at == target ? (target + 1) % 4 : target;
    }
  }

  /** A listed name: the encoding of an arbitrary key, or a string of the name alphabet. */
  static String listedName(Choices c) {
    if (c.between(0, 1) == 0) {
      StringBuilder key = new StringBuilder();
      int n = c.between(1, 300);
      for (int i = 0; i < n; i++) {
        key.append(
            (char)
                switch (c.between(0, 3)) {
                  case 0 -> c.between(0, 0xFFFF);
                  case 1 -> c.between(0, 0x7F);
                  default -> c.between(0x20, 0x7E);
                });
      }
      return Names.encodeKey(key.toString());
    }
    String alphabet = "Aa09-_.~%/0123456789:;<=>?@ABCDEF";
    StringBuilder name = new StringBuilder();
    int n = c.between(0, 420);
    for (int i = 0; i < n; i++) {
      name.append(alphabet.charAt(c.between(0, alphabet.length() - 1)));
    }
    return name.toString();
  }

  /** Smaller cases that may still fail: fewer edits, fewer bytes. */
  static List<Object> smaller(Object value) {
    List<Object> out = new ArrayList<>();
    if (value instanceof Mutant m) {
      for (int i = 0; i < m.edits().size(); i++) {
        List<Edit> fewer = new ArrayList<>(m.edits());
        fewer.remove(i);
        out.add(new Mutant(m.valid(), List.copyOf(fewer), m.seeds()));
      }
    } else if (value instanceof Bytes b && b.bytes().length > 0) {
      byte[] in = b.bytes();
      out.add(new Bytes(Arrays.copyOf(in, in.length / 2)));
      out.add(new Bytes(Arrays.copyOfRange(in, in.length / 2, in.length)));
      out.add(new Bytes(Arrays.copyOf(in, in.length - 1)));
      out.add(new Bytes(Arrays.copyOfRange(in, 1, in.length)));
    } else if (value instanceof Hostile h) {
      for (Object s : smaller(h.input())) {
        out.add(new Hostile(s, h.at(), h.target()));
      }
    } else if (value instanceof String s && !s.isEmpty()) {
      out.add(s.substring(0, s.length() / 2));
      out.add(s.substring(0, s.length() - 1));
      out.add(s.substring(1));
    }
    return out;
  }

  /** The check of one case: throws on a violation. */
  interface Check<T> {
    void accept(T value) throws Exception;
  }

  /** A property: a generator of cases and the check each case must pass. */
  record Prop<T>(String name, Function<Choices, T> generator, Check<T> check) {
    @SuppressWarnings("unchecked")
    void checkValue(Object value) throws Exception {
      check.accept((T) value);
    }

    /** The failure of one case, or null if it passes. */
    Throwable failureOn(Object value) {
      try {
        checkValue(value);
        return null;
      } catch (Throwable t) {
        return t;
      }
    }

    /** Greedily replaces a failing case by a smaller one that still fails. */
    Object shrink(Object value) {
      Object current = value;
      for (int step = 0; step < 1000; step++) {
        Object next = null;
        for (Object s : smaller(current)) {
          if (failureOn(s) != null) {
            next = s;
            break;
          }
        }
        if (next == null) {
          break;
        }
        current = next;
      }
      return current;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static <T> Prop<T> prop(String name, Function<Choices, T> generator, Check<T> check) {
    return new Prop<>(name, generator, check);
  }

  // ---------------------------------------------------------------- valid encodings

  static final MetadataCodec CODEC = new MetadataCodec();
  static final List<byte[]> LOGS = new ArrayList<>();
  static final List<byte[]> ENVELOPES = new ArrayList<>();
  static final List<byte[]> SHARES = new ArrayList<>();
  static final byte[] SEALED;
  static final Aead AEAD = Aead.withKey(Aead.newKey());
  static final byte[] AD = {1, 2, 3};

  /** DepSky-CA: a sealed value coded k = 2 of n = 4, pieces = share i || fragment i. */
  static final ReedSolomon RS = ReedSolomon.of(2, 2);

  static final byte[] CA_SEALED;
  static final List<byte[]> FRAGMENTS;
  static final List<byte[]> PIECES = new ArrayList<>();
  static final LogEntry CA_ENTRY;

  static {
    for (int n : new int[] {0, 1, 5}) {
      List<LogEntry> entries = new ArrayList<>(MetadataCodecTest.sample(n).entries());
      long ts = entries.get(entries.size() - 1).timestamp();
      entries.add(LogEntry.collected(ts + 1, 9, new Version(Math.max(1, ts - 1), "bob")));
      LOGS.add(
          CODEC.encode(
              new MetadataLog("k", "alice", 3 + n, 0, entries), Harness.ALICE.getPrivate()));
    }
    LOGS.add(CODEC.encode(MetadataCodecTest.sealedSample(2), Harness.ALICE.getPrivate()));
    LOGS.add(CODEC.encode(MetadataCodecTest.codedPartsSample(), Harness.ALICE.getPrivate()));
    LOGS.add(
        CODEC.encode(new MetadataLog("k", "alice", 1, 0, List.of()), Harness.ALICE.getPrivate()));
    // Formats 3 and 4: logs of a writer incarnation, holding entries of two incarnations (a fork
    // merged by the later one) and a watermark through a version of a nonzero incarnation.
    LOGS.add(CODEC.encode(MetadataCodecTest.incarnationSample(false), Harness.ALICE.getPrivate()));
    LOGS.add(CODEC.encode(MetadataCodecTest.incarnationSample(true), Harness.ALICE.getPrivate()));
    // Inline values (coding 16) and packed ones (coding 17), sealed or not.
    LOGS.add(CODEC.encode(MetadataCodecTest.inlineSample(false), Harness.ALICE.getPrivate()));
    LOGS.add(CODEC.encode(MetadataCodecTest.inlineSample(true), Harness.ALICE.getPrivate()));
    // Logs signed together (signature algorithm 3): each carries its path to the signed root.
    LOGS.addAll(
        new io.rafestore.internal.protocol.metadata.BatchSigner(
                CODEC, Harness.ALICE.getPrivate(), Runnable::run, 1 << 20)
            .signTogether(
                List.of(
                    MetadataCodecTest.sample(2),
                    MetadataCodecTest.inlineSample(false),
                    MetadataCodecTest.incarnationSample(true))));
    for (byte[] log : LOGS) {
      SortedMap<LogEntry.Id, byte[]> perCloud = new TreeMap<>();
      perCloud.put(new LogEntry.Id(1, 0), Shamir.split(new byte[32], 4, 2).get(0).toBytes());
      perCloud.put(new LogEntry.Id(6, -3), new byte[] {1, 2, 3});
      ENVELOPES.add(MetadataCodec.envelope(log, perCloud));
    }
    for (Shamir.Share s : Shamir.split(new byte[32], 4, 2)) {
      SHARES.add(s.toBytes());
    }
    SEALED = AEAD.encrypt(new byte[300], AD);
    byte[] key = Aead.newKey();
    CA_SEALED = Aead.withKey(key).encrypt(new byte[200], AD);
    FRAGMENTS = List.of(RS.encode(CA_SEALED));
    List<Shamir.Share> keyShares = Shamir.split(key, 4, 2);
    List<byte[]> pieceHashes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      byte[] piece = CodedPieces.join(keyShares.get(i), FRAGMENTS.get(i));
      PIECES.add(piece);
      pieceHashes.add(Sha256.hash(piece));
    }
    CA_ENTRY =
        LogEntry.coded(
            1,
            1,
            "d/k/alice-ca",
            200,
            Sha256.hash(CA_SEALED),
            List.of("p0", "p1", "p2", "p3"),
            LogEntry.Coding.DEPSKY_CA,
            2,
            pieceHashes);
  }

  /**
   * Re-signs a log body with alice's key, as a trusted writer would sign it (signature algorithm 2:
   * over the body's digest, with the JDK's Ed25519).
   */
  static byte[] signed(byte[] body) {
    try {
      Signature s = Signature.getInstance("Ed25519");
      s.initSign(Harness.ALICE.getPrivate());
      s.update(MetadataCodec.digestMessage(body, body.length));
      byte[] sig = s.sign();
      byte[] all = Arrays.copyOf(body, body.length + 2 + sig.length);
      all[body.length] = MetadataCodec.SIG_ED25519_SHA256;
      all[body.length + 1] = (byte) sig.length;
      System.arraycopy(sig, 0, all, body.length + 2, sig.length);
      return all;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static List<byte[]> bodies() {
    List<byte[]> out = new ArrayList<>();
    for (byte[] log : LOGS) {
      out.add(Arrays.copyOf(log, log.length - 66));
    }
    return out;
  }

  /** Log bodies without their signature, to be mutated and signed anew. */
  static final List<byte[]> BODIES = bodies();

  static boolean isSeed(List<byte[]> seeds, byte[] input) {
    return seeds.stream().anyMatch(s -> Arrays.equals(s, input));
  }

  // ---------------------------------------------------------------- parsers under test

  static final Parser LOG = in -> CODEC.decode(in, "k", "alice", Harness.ALICE.getPublic(), MAX);
  static final Parser ENVELOPE =
      in -> CODEC.decodeEnvelope(in, "k", "alice", Harness.ALICE.getPublic(), MAX);
  static final Parser SHARE = Shamir.Share::parse;

  /** An operator key that signs the seed certificate and revocation list. */
  static final java.security.KeyPair OPERATOR = io.rafestore.SigningKeys.generate();

  static final Map<String, java.security.PublicKey> OPERATORS = Map.of("ops", OPERATOR.getPublic());

  /** A writer certificate and a revocation list, as stored under c/ and r/. */
  static final List<byte[]> TRUST_FORMS =
      List.of(
          io.rafestore.WriterCertificate.issue(
                  "bob",
                  Harness.BOB.getPublic(),
                  java.time.Instant.ofEpochMilli(1_000),
                  java.time.Instant.ofEpochMilli(2_000_000),
                  java.time.Instant.ofEpochMilli(1_000),
                  "ops",
                  OPERATOR.getPrivate())
              .encoded(),
          io.rafestore.RevocationList.issue(
                  "ops",
                  7,
                  java.time.Instant.ofEpochMilli(5),
                  List.of("bob", "carol", "x"),
                  OPERATOR.getPrivate())
              .encoded());

  /** A certificate (magic "RFSC") or a revocation list, parsed and verified as a reader does. */
  static final Parser TRUST_FORM =
      in -> {
        if (in.length >= 4 && in[3] == 'C') {
          io.rafestore.WriterCertificate c = io.rafestore.WriterCertificate.decode(in);
          c.verify(OPERATORS);
          return c;
        }
        io.rafestore.RevocationList l = io.rafestore.RevocationList.decode(in);
        l.verify(OPERATORS);
        return l;
      };

  static final Parser PIECE = CodedPieces::split;
  static final Parser DECRYPT = in -> AEAD.decrypt(in, AD);

  /** CodedFetch: one hostile fragment at position {@code at}, a valid one of the others. */
  static Parser fragmentAt(int at) {
    return in -> {
      byte[][] present = new byte[4][];
      present[at] = in;
      present[(at + 1) % 4] = FRAGMENTS.get((at + 1) % 4);
      return RS.decode(present, CA_SEALED.length);
    };
  }

  /** Repair: piece {@code target} rebuilt from a hostile piece and a valid one. */
  static Parser rebuildFrom(int hostile, int target) {
    return in -> {
      int other = (hostile + 1) % 4 == target ? (hostile + 2) % 4 : (hostile + 1) % 4;
      Map<Integer, byte[]> valid = new TreeMap<>();
      valid.put(hostile, in);
      valid.put(other, PIECES.get(other));
      return CodedPieces.rebuild(CA_ENTRY, valid, target);
    };
  }

  // ---------------------------------------------------------------- properties

  static void aMetadataLogIsRejectedUnlessUnchanged(Mutant m) {
    byte[] in = m.bytes();
    Object log = check("MetadataCodec.decode", LOG, in, MalformedMetadataException.class);
    assertThat(log == null || isSeed(LOGS, in)).as("accepted a modified signed log").isTrue();
  }

  static void arbitraryBytesAreNotAMetadataLog(Bytes in) {
    assertThat(check("MetadataCodec.decode", LOG, in.bytes(), MalformedMetadataException.class))
        .isNull();
  }

  /**
   * Mutations signed anew by the trusted writer's key, so the parse runs to the end: what the
   * parser accepts is exactly what the encoder writes (the format is canonical: correct clouds
   * return byte-identical logs, which the verified-log cache relies on).
   */
  static void aSignedLogDecodesOnlyIfItIsTheCanonicalEncoding(Mutant m) {
    byte[] in = signed(m.bytes());
    Object log = check("MetadataCodec.decode", LOG, in, MalformedMetadataException.class);
    if (log != null) {
      assertThat(CODEC.encode((MetadataLog) log, Harness.ALICE.getPrivate()))
          .as("re-encoding of an accepted log")
          .isEqualTo(in);
    }
  }

  /**
   * An envelope's share section is not signed (each share is checked later against its signed
   * hash), so a changed envelope may be accepted, but never with a log other than the signed one.
   */
  static void anEnvelopeYieldsOnlyItsSignedLog(Mutant m) throws Exception {
    byte[] in = m.bytes();
    Object env =
        check("MetadataCodec.decodeEnvelope", ENVELOPE, in, MalformedMetadataException.class);
    if (env != null) {
      MetadataLog log = ((MetadataCodec.Envelope) env).log();
      boolean known = false;
      for (byte[] valid : LOGS) {
        known |= log.equals(LOG.parse(valid));
      }
      assertThat(known).as("envelope accepted with a log nobody signed").isTrue();
    }
  }

  static void arbitraryBytesAreNotAnEnvelope(Bytes in) {
    byte[] withMagic = Arrays.copyOf(MetadataCodec.envelopeMagic(), 4 + in.bytes().length);
    System.arraycopy(in.bytes(), 0, withMagic, 4, in.bytes().length);
    assertThat(
            check(
                "MetadataCodec.decodeEnvelope",
                ENVELOPE,
                withMagic,
                MalformedMetadataException.class))
        .isNull();
  }

  /** An operator-signed form is accepted only unchanged (every reason is a trust refusal). */
  static void aTrustFormIsRejectedUnlessUnchanged(Mutant m) {
    byte[] in = m.bytes();
    Object form =
        check(
            "WriterCertificate/RevocationList.decode",
            TRUST_FORM,
            in,
            io.rafestore.WriterTrustException.class);
    assertThat(form == null || isSeed(TRUST_FORMS, in))
        .as("accepted a modified operator-signed form")
        .isTrue();
  }

  static void arbitraryBytesAreNotATrustForm(Bytes in) {
    assertThat(
            check(
                "WriterCertificate/RevocationList.decode",
                TRUST_FORM,
                in.bytes(),
                io.rafestore.WriterTrustException.class))
        .isNull();
  }

  static void aKeyShareParsesOrIsRejected(Mutant m) {
    Object share = check("Shamir.Share.parse", SHARE, m.bytes(), MalformedInputException.class);
    if (share != null) {
      Shamir.Share s = (Shamir.Share) share;
      assertThat(s.x()).isBetween(1, 255);
      assertThat(s.toBytes()).as("a share re-encodes to its bytes").isEqualTo(m.bytes());
    }
  }

  static void arbitraryBytesAsAKeyShare(Bytes in) {
    check("Shamir.Share.parse", SHARE, in.bytes(), MalformedInputException.class);
  }

  static void aDepSkyPieceSplitsOrIsRejected(Mutant m) {
    byte[] in = m.bytes();
    Object piece = check("CodedPieces.split", PIECE, in, MalformedInputException.class);
    if (piece != null) {
      CodedPieces.Piece p = (CodedPieces.Piece) piece;
      assertThat(CodedPieces.join(p.share(), p.fragment())).isEqualTo(in);
    }
  }

  static void arbitraryBytesAsADepSkyPiece(Bytes in) {
    check("CodedPieces.split", PIECE, in.bytes(), MalformedInputException.class);
  }

  /** A read decodes k fragments; a wrong-sized one is refused, any right-sized one decodes. */
  static void aHostileFragmentDecodesToTheSignedLengthOrIsRejected(Hostile h) {
    Object out =
        check("ReedSolomon.decode", fragmentAt(h.at()), h.bytes(), MalformedInputException.class);
    if (out != null) {
      assertThat((byte[]) out).hasSize(CA_SEALED.length);
    }
  }

  /**
   * Repair rebuilds a piece only if it matches the signed piece hash (from a mutated piece or from
   * arbitrary bytes).
   */
  static void repairRebuildsOnlyTheSignedPiece(Hostile h) {
    Object out =
        check(
            "CodedPieces.rebuild",
            rebuildFrom(h.at(), h.rebuilt()),
            h.bytes(),
            MalformedInputException.class);
    if (out != null) {
      assertThat((byte[]) out).isEqualTo(PIECES.get(h.rebuilt()));
    }
  }

  static void aSealedValueDecryptsOnlyIfUnchanged(Mutant m) {
    byte[] in = m.bytes();
    Object plain = check("Aead.decrypt", DECRYPT, in, MalformedInputException.class);
    assertThat(plain == null || Arrays.equals(in, SEALED))
        .as("decrypted a modified sealed value")
        .isTrue();
  }

  static void arbitraryBytesDoNotDecrypt(Bytes in) {
    assertThat(check("Aead.decrypt", DECRYPT, in.bytes(), MalformedInputException.class)).isNull();
  }

  /**
   * Keys come back from listings as object names a cloud chose: decoding one gives a valid key that
   * encodes back to the same name, or null; never an exception.
   */
  static void aListedNameDecodesToAKeyThatEncodesBackOrToNothing(String name) {
    Object key =
        check(
            "Names.decodeKey",
            in -> Objects.requireNonNullElse(Names.decodeKey(name), ""),
            name.getBytes(StandardCharsets.UTF_8),
            Error.class);
    if (key != null && !"".equals(key)) {
      assertThat(Names.encodeKey((String) key)).isEqualTo(name);
      assertThat(Names.checkKey((String) key)).isEqualTo(key);
    }
  }

  /** Every property, with the generator of its cases. */
  static List<Prop<?>> properties() {
    return List.of(
        prop(
            "aMetadataLogIsRejectedUnlessUnchanged",
            c -> mutant(c, LOGS),
            ParserFuzzTest::aMetadataLogIsRejectedUnlessUnchanged),
        prop(
            "arbitraryBytesAreNotAMetadataLog",
            c -> arbitrary(c, 2048),
            ParserFuzzTest::arbitraryBytesAreNotAMetadataLog),
        prop(
            "aSignedLogDecodesOnlyIfItIsTheCanonicalEncoding",
            c -> mutant(c, BODIES),
            ParserFuzzTest::aSignedLogDecodesOnlyIfItIsTheCanonicalEncoding),
        prop(
            "anEnvelopeYieldsOnlyItsSignedLog",
            c -> mutant(c, ENVELOPES),
            ParserFuzzTest::anEnvelopeYieldsOnlyItsSignedLog),
        prop(
            "arbitraryBytesAreNotAnEnvelope",
            c -> arbitrary(c, 2048),
            ParserFuzzTest::arbitraryBytesAreNotAnEnvelope),
        prop(
            "aKeyShareParsesOrIsRejected",
            c -> mutant(c, SHARES),
            ParserFuzzTest::aKeyShareParsesOrIsRejected),
        prop(
            "arbitraryBytesAsAKeyShare",
            c -> arbitrary(c, 1024),
            ParserFuzzTest::arbitraryBytesAsAKeyShare),
        prop(
            "aDepSkyPieceSplitsOrIsRejected",
            c -> mutant(c, PIECES),
            ParserFuzzTest::aDepSkyPieceSplitsOrIsRejected),
        prop(
            "arbitraryBytesAsADepSkyPiece",
            c -> arbitrary(c, 1024),
            ParserFuzzTest::arbitraryBytesAsADepSkyPiece),
        prop(
            "aHostileFragmentDecodesToTheSignedLengthOrIsRejected",
            c -> new Hostile(mutant(c, FRAGMENTS), c.between(0, 3), 0),
            ParserFuzzTest::aHostileFragmentDecodesToTheSignedLengthOrIsRejected),
        prop(
            "repairRebuildsOnlyTheSignedPiece",
            c -> new Hostile(mutant(c, PIECES), c.between(0, 3), c.between(0, 3)),
            ParserFuzzTest::repairRebuildsOnlyTheSignedPiece),
        prop(
            "arbitraryBytesAsAPieceToRebuildFrom",
            c -> new Hostile(arbitrary(c, 1024), c.between(0, 3), c.between(0, 3)),
            ParserFuzzTest::repairRebuildsOnlyTheSignedPiece),
        prop(
            "aSealedValueDecryptsOnlyIfUnchanged",
            c -> mutant(c, List.of(SEALED)),
            ParserFuzzTest::aSealedValueDecryptsOnlyIfUnchanged),
        prop(
            "arbitraryBytesDoNotDecrypt",
            c -> arbitrary(c, 1024),
            ParserFuzzTest::arbitraryBytesDoNotDecrypt),
        prop(
            "aListedNameDecodesToAKeyThatEncodesBackOrToNothing",
            ParserFuzzTest::listedName,
            ParserFuzzTest::aListedNameDecodesToAKeyThatEncodesBackOrToNothing),
        prop(
            "aTrustFormIsRejectedUnlessUnchanged",
            c -> mutant(c, TRUST_FORMS),
            ParserFuzzTest::aTrustFormIsRejectedUnlessUnchanged),
        prop(
            "arbitraryBytesAreNotATrustForm",
            c -> arbitrary(c, 1024),
            ParserFuzzTest::arbitraryBytesAreNotATrustForm));
  }

  // ---------------------------------------------------------------- the two runs

  /**
   * The build's run: {@link #TRIES} cases of the property from its own seeded sequence (or only the
   * case {@code -Drafestore.fuzz.case} names). A failure is shrunk and reported with its case seed.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("properties")
  void holds(Prop<?> property) {
    Long only = Long.getLong("rafestore.fuzz.case");
    SplittableRandom sequence = new SplittableRandom(SEED * 31 + property.name().hashCode());
    int tries = only == null ? TRIES : 1;
    for (int i = 0; i < tries; i++) {
      long caseSeed = only == null ? sequence.nextLong() : only;
      Object value = property.generator().apply(new SeededChoices(new SplittableRandom(caseSeed)));
      Throwable failure = property.failureOn(value);
      if (failure != null) {
        Object small = property.shrink(value);
        Throwable smallFailure = Objects.requireNonNullElse(property.failureOn(small), failure);
        throw new AssertionError(
            property.name()
                + " fails on case "
                + i
                + " of "
                + tries
                + " (replay it alone with -Drafestore.fuzz.case="
                + caseSeed
                + "), shrunk to "
                + small
                + ": "
                + smallFailure.getMessage(),
            smallFailure);
      }
    }
  }

  /**
   * Jazzer's run: its input picks a property ({@code -Drafestore.fuzz.property} pins one) and
   * drives that property's generator. Without {@code JAZZER_FUZZ} (the build) Jazzer replays only
   * the stored inputs (the empty one, and any finding saved under {@code ParserFuzzTestInputs});
   * with {@code JAZZER_FUZZ=1} it searches, guided by the parsers' coverage (docs/design.md,
   * section 12).
   */
  @FuzzTest(maxDuration = "10m")
  void anyProperty(FuzzedDataProvider data) throws Exception {
    List<Prop<?>> all = new ArrayList<>(properties());
    String pinned = System.getProperty("rafestore.fuzz.property");
    if (pinned != null) {
      all.removeIf(p -> !p.name().equals(pinned));
      assertThat(all).as("no property named %s", pinned).isNotEmpty();
    }
    Prop<?> property = all.get(data.consumeInt(0, all.size() - 1));
    property.checkValue(property.generator().apply(new FuzzerChoices(data)));
  }

  /** Every 4-byte field of a log set to 0x7FFFFFFF is refused without a large allocation. */
  @Test
  void aMetadataObjectClaimingHugeCountsIsRefusedUnread() {
    byte[] valid = LOGS.get(1);
    for (int p = 0; p < valid.length - 4; p++) {
      byte[] b = valid.clone();
      ByteBuffer.wrap(b).putInt(p, Integer.MAX_VALUE);
      assertThat(check("MetadataCodec.decode", LOG, b, MalformedMetadataException.class))
          .as("accepted a log with a huge field at %d", p)
          .isNull();
    }
  }

  /**
   * Found by {@link #holds}: a log signed in the sealed format (2) without a sealed entry was
   * accepted, though the encoder writes such a log in format 1, so one log had two signed
   * encodings. Now refused, as format 3 with incarnation 0 is.
   */
  @Test
  void aSealedFormatLogWithoutASealedEntryIsNotCanonical() {
    byte[] body = BODIES.get(4).clone();
    assertThat(body[4]).isEqualTo((byte) MetadataCodec.FORMAT);
    assertThat(check("MetadataCodec.decode", LOG, signed(body), MalformedMetadataException.class))
        .isNotNull();
    body[4] = MetadataCodec.FORMAT_SEALED;
    assertThat(check("MetadataCodec.decode", LOG, signed(body), MalformedMetadataException.class))
        .as("a format-2 log without a sealed entry")
        .isNull();
  }
}
