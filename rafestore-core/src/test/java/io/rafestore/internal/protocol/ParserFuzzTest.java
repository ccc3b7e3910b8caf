package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

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
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Property-based fuzzing (jqwik) of every parser of bytes a cloud returns: metadata logs (values,
 * coded and parted entries, tombstones, watermarks, sealed entries), the confidentiality option's
 * envelopes ("RFSE"), Shamir key shares, DepSky-CA pieces (share then fragment), Reed-Solomon
 * fragments as reads decode them and as repair rebuilds a lost piece from them, AES-GCM sealed
 * values, and object names from listings decoded back to keys.
 *
 * <p><b>The property</b>, for arbitrary bytes and for mutations of valid encodings (bit flips,
 * truncations, insertions, splices of random bytes or of another valid encoding, and 2-, 4- and
 * 8-byte fields set to huge values): the parser either returns a result that is allowed for that
 * input or throws the integrity error it documents ({@link MalformedMetadataException}, {@link
 * MalformedInputException}); never another throwable, never a hang (each parse runs on a worker
 * with a generous guard, far above the microseconds a parse takes: a hang guard, not a speed
 * target), and never an allocation sized by what the input claims: a parse may allocate at most 64
 * bytes per input byte plus 4 MiB (measured with {@code ThreadMXBean#getThreadAllocatedBytes} on
 * the worker thread), so a cloud claiming a 2 GB length is refused unread.
 *
 * <p>jqwik shrinks a failing case: mutations are lists of edits whose positions and values shrink
 * toward zero, so a failure reports a minimal input and the edits that made it.
 *
 * <p><b>Budget.</b> {@code -Drafestore.fuzz.tries} tries per property (default 2,000, set in
 * rafestore-core's pom, which hands it to jqwik as {@code jqwik.tries.default}) from the fixed
 * {@link #SEED}, so the normal build is reproducible; a longer run by hand passes for example
 * {@code -Drafestore.fuzz.tries=1000000} (see docs/design.md, section 12).
 */
class ParserFuzzTest {

  /**
   * The generation seed. jqwik takes a fixed seed only from the annotation (a lifecycle hook's
   * {@code setSeed} and {@code setTries} are not honoured in 1.9), so it is a constant: the normal
   * build is reproducible, and a longer run by hand explores further along the same sequence.
   */
  static final String SEED = "20261121";

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
    assertThat(o.allocated)
        .as("%s allocated %d bytes for a %d-byte input", name, o.allocated, input.length)
        .isLessThan(64L * input.length + (4 << 20));
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

  static Arbitrary<Edit> edits() {
    Arbitrary<Integer> pos = Arbitraries.integers().between(0, 1 << 16);
    Arbitrary<byte[]> some = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(64);
    Arbitrary<Long> huge =
        Arbitraries.of(
            0x7FFFFFFFL, 0xFFFFFFFFL, 0x80000000L, 0xFFFFL, 2_000_000_000L, Long.MAX_VALUE, -1L);
    return Arbitraries.oneOf(
        Combinators.combine(pos, Arbitraries.integers().between(0, 7)).as(Flip::new),
        pos.map(Truncate::new),
        Combinators.combine(pos, some).as(Insert::new),
        Combinators.combine(pos, Arbitraries.of(1, 2, 4, 8), huge).as(Huge::new),
        Combinators.combine(pos, some).as(Splice::new),
        Combinators.combine(pos, Arbitraries.integers().between(0, 16), pos).as(Graft::new));
  }

  static Arbitrary<Mutant> mutants(List<byte[]> seeds) {
    return Combinators.combine(
            Arbitraries.of(seeds),
            edits().list().ofMinSize(1).ofMaxSize(4),
            Arbitraries.just(seeds))
        .as(Mutant::new);
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
    LOGS.add(
        CODEC.encode(new MetadataLog("k", "alice", 1, 0, List.of()), Harness.ALICE.getPrivate()));
    // Formats 3 and 4: logs of a writer incarnation, holding entries of two incarnations (a fork
    // merged by the later one) and a watermark through a version of a nonzero incarnation.
    LOGS.add(CODEC.encode(MetadataCodecTest.incarnationSample(false), Harness.ALICE.getPrivate()));
    LOGS.add(CODEC.encode(MetadataCodecTest.incarnationSample(true), Harness.ALICE.getPrivate()));
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

  /** Re-signs a log body with alice's key, as a trusted writer would sign it. */
  static byte[] signed(byte[] body) {
    try {
      Signature s = Signature.getInstance("Ed25519");
      s.initSign(Harness.ALICE.getPrivate());
      s.update(body);
      byte[] sig = s.sign();
      byte[] all = Arrays.copyOf(body, body.length + 2 + sig.length);
      all[body.length] = MetadataCodec.SIG_ED25519;
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

  static boolean isSeed(List<byte[]> seeds, byte[] input) {
    return seeds.stream().anyMatch(s -> Arrays.equals(s, input));
  }

  // ---------------------------------------------------------------- parsers under test

  static final Parser LOG = in -> CODEC.decode(in, "k", "alice", Harness.ALICE.getPublic(), MAX);
  static final Parser ENVELOPE =
      in -> CODEC.decodeEnvelope(in, "k", "alice", Harness.ALICE.getPublic(), MAX);
  static final Parser SHARE = Shamir.Share::parse;
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

  @Provide
  Arbitrary<Mutant> logs() {
    return mutants(LOGS);
  }

  @Provide
  Arbitrary<Mutant> logBodies() {
    return mutants(bodies());
  }

  @Provide
  Arbitrary<Mutant> envelopes() {
    return mutants(ENVELOPES);
  }

  @Provide
  Arbitrary<Mutant> shares() {
    return mutants(SHARES);
  }

  @Provide
  Arbitrary<Mutant> pieces() {
    return mutants(PIECES);
  }

  @Provide
  Arbitrary<Mutant> fragments() {
    return mutants(FRAGMENTS);
  }

  @Provide
  Arbitrary<Mutant> sealed() {
    return mutants(List.of(SEALED));
  }

  @Provide
  Arbitrary<Integer> positions() {
    return Arbitraries.integers().between(0, 3);
  }

  @Property(seed = SEED)
  void aMetadataLogIsRejectedUnlessUnchanged(@ForAll("logs") Mutant m) {
    byte[] in = m.bytes();
    Object log = check("MetadataCodec.decode", LOG, in, MalformedMetadataException.class);
    assertThat(log == null || isSeed(LOGS, in)).as("accepted a modified signed log").isTrue();
  }

  @Property(seed = SEED)
  void arbitraryBytesAreNotAMetadataLog(@ForAll @Size(max = 2048) byte[] in) {
    assertThat(check("MetadataCodec.decode", LOG, in, MalformedMetadataException.class)).isNull();
  }

  /**
   * Mutations signed anew by the trusted writer's key, so the parse runs to the end: what the
   * parser accepts is exactly what the encoder writes (the format is canonical: correct clouds
   * return byte-identical logs, which the verified-log cache relies on).
   */
  @Property(seed = SEED)
  void aSignedLogDecodesOnlyIfItIsTheCanonicalEncoding(@ForAll("logBodies") Mutant m) {
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
  @Property(seed = SEED)
  void anEnvelopeYieldsOnlyItsSignedLog(@ForAll("envelopes") Mutant m) throws Exception {
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

  @Property(seed = SEED)
  void arbitraryBytesAreNotAnEnvelope(@ForAll @Size(max = 2048) byte[] in) {
    byte[] withMagic = Arrays.copyOf(MetadataCodec.envelopeMagic(), 4 + in.length);
    System.arraycopy(in, 0, withMagic, 4, in.length);
    assertThat(
            check(
                "MetadataCodec.decodeEnvelope",
                ENVELOPE,
                withMagic,
                MalformedMetadataException.class))
        .isNull();
  }

  @Property(seed = SEED)
  void aKeyShareParsesOrIsRejected(@ForAll("shares") Mutant m) {
    Object share = check("Shamir.Share.parse", SHARE, m.bytes(), MalformedInputException.class);
    if (share != null) {
      Shamir.Share s = (Shamir.Share) share;
      assertThat(s.x()).isBetween(1, 255);
      assertThat(s.toBytes()).as("a share re-encodes to its bytes").isEqualTo(m.bytes());
    }
  }

  @Property(seed = SEED)
  void arbitraryBytesAsAKeyShare(@ForAll @Size(max = 1024) byte[] in) {
    check("Shamir.Share.parse", SHARE, in, MalformedInputException.class);
  }

  @Property(seed = SEED)
  void aDepSkyPieceSplitsOrIsRejected(@ForAll("pieces") Mutant m) {
    byte[] in = m.bytes();
    Object piece = check("CodedPieces.split", PIECE, in, MalformedInputException.class);
    if (piece != null) {
      CodedPieces.Piece p = (CodedPieces.Piece) piece;
      assertThat(CodedPieces.join(p.share(), p.fragment())).isEqualTo(in);
    }
  }

  @Property(seed = SEED)
  void arbitraryBytesAsADepSkyPiece(@ForAll @Size(max = 1024) byte[] in) {
    check("CodedPieces.split", PIECE, in, MalformedInputException.class);
  }

  /** A read decodes k fragments; a wrong-sized one is refused, any right-sized one decodes. */
  @Property(seed = SEED)
  void aHostileFragmentDecodesToTheSignedLengthOrIsRejected(
      @ForAll("fragments") Mutant m, @ForAll("positions") int at) {
    Object out =
        check("ReedSolomon.decode", fragmentAt(at), m.bytes(), MalformedInputException.class);
    if (out != null) {
      assertThat((byte[]) out).hasSize(CA_SEALED.length);
    }
  }

  /** Repair rebuilds a piece only if it matches the signed piece hash. */
  @Property(seed = SEED)
  void repairRebuildsOnlyTheSignedPiece(
      @ForAll("pieces") Mutant m, @ForAll("positions") int hostile, @ForAll("positions") int t) {
    int target = hostile == t ? (t + 1) % 4 : t;
    Object out =
        check(
            "CodedPieces.rebuild",
            rebuildFrom(hostile, target),
            m.bytes(),
            MalformedInputException.class);
    if (out != null) {
      assertThat((byte[]) out).isEqualTo(PIECES.get(target));
    }
  }

  @Property(seed = SEED)
  void arbitraryBytesAsAPieceToRebuildFrom(
      @ForAll @Size(max = 1024) byte[] in,
      @ForAll("positions") int hostile,
      @ForAll("positions") int t) {
    int target = hostile == t ? (t + 1) % 4 : t;
    Object out =
        check(
            "CodedPieces.rebuild", rebuildFrom(hostile, target), in, MalformedInputException.class);
    if (out != null) {
      assertThat((byte[]) out).isEqualTo(PIECES.get(target));
    }
  }

  @Property(seed = SEED)
  void aSealedValueDecryptsOnlyIfUnchanged(@ForAll("sealed") Mutant m) {
    byte[] in = m.bytes();
    Object plain = check("Aead.decrypt", DECRYPT, in, MalformedInputException.class);
    assertThat(plain == null || Arrays.equals(in, SEALED))
        .as("decrypted a modified sealed value")
        .isTrue();
  }

  @Property(seed = SEED)
  void arbitraryBytesDoNotDecrypt(@ForAll @Size(max = 1024) byte[] in) {
    assertThat(check("Aead.decrypt", DECRYPT, in, MalformedInputException.class)).isNull();
  }

  /**
   * Keys come back from listings as object names a cloud chose: decoding one gives a valid key that
   * encodes back to the same name, or null; never an exception.
   */
  @Property(seed = SEED)
  void aListedNameDecodesToAKeyThatEncodesBackOrToNothing(@ForAll("listedNames") String name) {
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

  @Provide
  Arbitrary<String> listedNames() {
    Arbitrary<String> valid =
        Arbitraries.strings().ofMinLength(1).ofMaxLength(300).map(Names::encodeKey);
    Arbitrary<String> hostile =
        Arbitraries.strings().withChars("Aa09-_.~%/").withCharRange('0', 'F').ofMaxLength(420);
    return Arbitraries.oneOf(valid, hostile);
  }

  /** Every 4-byte field of a log set to 0x7FFFFFFF is refused without a large allocation. */
  @Example
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
}
