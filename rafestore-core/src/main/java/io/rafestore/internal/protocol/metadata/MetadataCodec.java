package io.rafestore.internal.protocol.metadata;

import io.rafestore.CloudFault;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Signatures;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The metadata wire format, version 1. Explicit, big-endian, never Java serialisation:
 *
 * <pre>
 *   magic        4 bytes  "RFSM"
 *   format       u8       1
 *   key          u16 length + UTF-8
 *   writer       u8 length + ASCII
 *   sequence     i64
 *   entry count  u32
 *   entries      kind u8 (1 value, 2 tombstone), timestamp i64, createdAtMillis i64,
 *                dataObject u16 length + ASCII, size i64, sha256 32 bytes,
 *                holder count u8, holders (u8 length + ASCII)*,
 *                coding u8 (0 replica, 1 DepSky-CA, 2 Reed-Solomon, 8 parts, 9 parts with
 *                joined holders, 10 coded parts); for 10: k u8, part count u32 (>= 2), one
 *                SHA-256 per stored part, then per part one SHA-256 per holder (the fragment that
 *                holder stores of that part); for 1 and 2:
 *                k u8, then one SHA-256 (32 bytes) per holder: the hash of the piece that holder
 *                stores; for 8 and 9: part count u32 (>= 2), then one SHA-256 per part, in order;
 *                for 9 only: one layout u8 per holder, in holder order (0 part objects, 1 one
 *                joined object), at least one 1 (an entry without joined holders is always 8);
 *                format 2 only: key-share count u8, then per share holder (u8 length + ASCII)
 *                and the SHA-256 (32 bytes) of the share it holds (0 unless the value is sealed)
 *   sig algo     u8       2 = Ed25519 over "RFSM-SHA-256:" and the SHA-256 of every byte
 *                         before "sig algo" (written); 1 = Ed25519 over those bytes themselves
 *                         (older logs, still read)
 *   sig length   u8       64
 *   signature    64 bytes
 *   (algo 3 only) path length u8 (1 to 32), then per step: side u8 (0: the sibling is on the
 *                left, 1: on the right) and the sibling's 32 bytes
 * </pre>
 *
 * <p>Algorithm 3 ({@link #SIG_ED25519_BATCH}) signs several logs, of any keys, with one signature:
 * Ed25519 over {@code "RFSM-MERKLE:"} and the root of a hash tree whose leaves are the logs' body
 * digests ({@link #leaf}, {@link #node}); each log carries the path from its leaf to the root. A
 * client writes it when logs wait for its signer while it signs another (see {@link BatchSigner});
 * a log signed alone is algorithm 2, byte for byte as before.
 *
 * <p>Format 1 is written when no entry is sealed (so logs without the confidentiality option keep
 * their bytes), format 2 otherwise; both are read. Formats 3 and 4 add incarnations ({@link
 * #FORMAT_INCARNATIONS}); only they may hold the codings of inline values (16: {@code u32 length}
 * and the stored bytes, no holders) and packed ones (17: the pack's name, size, SHA-256 and the
 * value's offset in it), see {@link #INLINE_CODE} and {@link #PACKED_CODE}.
 *
 * <p>With the confidentiality option, what a cloud stores is an <em>envelope</em> around the signed
 * log, carrying that cloud's key shares, which differ per cloud and so cannot be in the signed
 * bytes (each is checked against the share hash in the signed entry instead):
 *
 * <pre>
 *   magic        4 bytes  "RFSE"
 *   format       u8       1
 *   log          u32 length + the signed log above
 *   share count  u16
 *   shares       timestamp i64 (the entry's), u16 length + the Shamir share encoding
 * </pre>
 *
 * <p>The parser treats its input as hostile: every length is checked against the bytes that remain
 * before anything is allocated, counts are bounded by what the remaining bytes could hold, trailing
 * bytes are rejected, and every failure is a {@link MalformedMetadataException}; no other exception
 * escapes. A log is accepted only if it names the expected key and writer and its signature
 * verifies under that writer's trusted key.
 *
 * <p>Thread-safe. Ed25519 signatures are deterministic, so all correct clouds return identical
 * bytes for a log; verified logs are cached by the SHA-256 of their bytes and the verifying key, so
 * a read verifies each distinct log once rather than once per cloud. (A verification costs about
 * 100 microseconds with the default signer, a millisecond with JDK 17's: caching is what keeps
 * reads of unchanged keys cheap. A log whose bytes changed is always verified.) The cache is this
 * codec's, that is one client's (each client has one codec, shared by its tenants and background
 * work): a client finds only what it verified or signed itself, never another client's work, so two
 * clients in one JVM behave, and cost, as they would in two processes (found 2026-11-27: with one
 * cache for the JVM, {@code ClientCpuBenchmark.readAfterChange}'s reader found the log its writer
 * had just signed and verified nothing). The bounds on what is cached are the JVM's, over all
 * codecs together.
 */
public final class MetadataCodec {
  private static final byte[] MAGIC = {'R', 'F', 'S', 'M'};
  public static final int FORMAT = 1;
  public static final int FORMAT_SEALED = 2;

  /**
   * Formats 3 and 4 are 1 and 2 with writer incarnations: an i64 incarnation of the signing client
   * after the sequence, and an i64 incarnation after each entry's timestamp. Written whenever the
   * log's incarnation is not 0, which is always for logs signed by this version.
   */
  public static final int FORMAT_INCARNATIONS = 3;

  public static final int FORMAT_SEALED_INCARNATIONS = 4;
  private static final byte[] ENVELOPE_MAGIC = {'R', 'F', 'S', 'E'};

  /** The magic bytes that open a signed log (a copy). */
  public static byte[] magic() {
    return MAGIC.clone();
  }

  /** The magic bytes that open an envelope (a copy). */
  public static byte[] envelopeMagic() {
    return ENVELOPE_MAGIC.clone();
  }

  /**
   * The signed log inside a stored metadata object: the object itself, or the log an envelope
   * carries. For bytes {@link #decodeEnvelope} already accepted (it checked every length).
   */
  public static byte[] signedLogOf(byte[] stored) {
    if (stored.length >= 9
        && Arrays.equals(Arrays.copyOf(stored, ENVELOPE_MAGIC.length), ENVELOPE_MAGIC)) {
      // Magic, format, u32 length, then the signed log.
      int length = ByteBuffer.wrap(stored, 5, 4).getInt();
      return Arrays.copyOfRange(stored, 9, 9 + length);
    }
    return stored;
  }

  static final int ENVELOPE_FORMAT = 1;

  /** Envelope format 2: each share is named by its entry's timestamp and incarnation. */
  public static final int ENVELOPE_FORMAT_INCARNATIONS = 2;

  /** Signature algorithm 1: Ed25519 over every byte of the body (read, no longer written). */
  public static final int SIG_ED25519 = 1;

  /**
   * Signature algorithm 2, written by this version: Ed25519 over {@link #DIGEST_DOMAIN} and the
   * SHA-256 of every byte of the body ({@link #digestMessage}). Same trailer length and layout as
   * algorithm 1; an older client rejects algorithm 2 as unsupported (malformed) rather than
   * misreading it.
   */
  public static final int SIG_ED25519_SHA256 = 2;

  /**
   * What precedes the body's digest in an algorithm 2 message: binds the signature to this use, so
   * a signature over one form can never be taken for the other (an algorithm 1 body always starts
   * with "RFSM" and a format byte, never with this).
   */
  private static final byte[] DIGEST_DOMAIN = "RFSM-SHA-256:".getBytes(StandardCharsets.US_ASCII);

  /**
   * Signature algorithm 3: one Ed25519 signature over {@link #MERKLE_DOMAIN} and the root of a hash
   * tree of several logs' body digests, the log's path to that root after the signature. A client
   * without it rejects algorithm 3 as unsupported (malformed) rather than misreading it.
   */
  public static final int SIG_ED25519_BATCH = 3;

  /**
   * What precedes the root in an algorithm 3 message: as long as {@link #DIGEST_DOMAIN} and
   * different from it, so a signature over a root is never one over a single log's digest (nor,
   * starting "RFSM-", over an algorithm 1 body).
   */
  private static final byte[] MERKLE_DOMAIN = "RFSM-MERKLE:".getBytes(StandardCharsets.US_ASCII);

  /** The longest path accepted: a tree of up to 2^32 logs, far above any batch a signer makes. */
  public static final int MAX_PATH = 32;

  /** The bytes a path of {@code steps} adds after the signature: its length and the steps. */
  public static int pathBytes(int steps) {
    return 1 + steps * (1 + Sha256.BYTES);
  }

  /** The bytes after an algorithm 3 body: algorithm, length, signature and a path of steps. */
  public static int batchTrailerBytes(int steps) {
    return 2 + SIG_LENGTH + pathBytes(steps);
  }

  private static final int SIG_LENGTH = 64;

  private static final int DIGEST_MESSAGE_BYTES = DIGEST_DOMAIN.length + 32;

  /**
   * Roots whose signature was verified, by (the root's message, the signature, the verifying key):
   * the other logs of a batch then cost their path's hashes, not a verification. Bounded: cleared
   * when full. Each codec's own, as {@link #VERIFIED} (the owner is part of the key).
   */
  private static final ConcurrentHashMap<RootKey, Boolean> VERIFIED_ROOTS =
      new ConcurrentHashMap<>();

  private static final int ROOT_CACHE_LIMIT = 4_096;

  private record RootKey(long owner, byte[] message, byte[] sig, PublicKey key) {
    @Override
    public boolean equals(Object o) {
      return o instanceof RootKey r
          && owner == r.owner
          && Arrays.equals(message, r.message)
          && Arrays.equals(sig, r.sig)
          && key.equals(r.key);
    }

    @Override
    public int hashCode() {
      return (Arrays.hashCode(message) * 31 + Arrays.hashCode(sig)) * 31 + Long.hashCode(owner);
    }
  }

  /**
   * Wire code of a parted entry ({@link LogEntry.Coding#PARTS}) some of whose holders store one
   * joined object: code 8 followed by a layout byte per holder. Entries without joined holders keep
   * code 8 and their bytes, and an older client rejects code 9 as an unknown coding rather than
   * looking for part objects a joined holder does not have.
   */
  public static final int PARTS_JOINED_CODE = 9;

  /**
   * Wire code of an inline value ({@link LogEntry.Coding#INLINE}), followed by {@code u32 length}
   * and the value's stored bytes. No new log format: an older client rejects an unknown coding as
   * malformed rather than misreading it. Only in formats 3 and 4.
   */
  public static final int INLINE_CODE = 16;

  /**
   * Wire code of a packed value ({@link LogEntry.Coding#PACKED}), followed by the pack's name (u16
   * + ASCII), its size (i64), its SHA-256 and the value's offset in it (i64). Only in formats 3 and
   * 4.
   */
  public static final int PACKED_CODE = 17;

  private static final byte[] NO_BYTES = new byte[0];

  /** The smallest possible encoded entry: kind, ts, created, empty name, size, hash, no holders. */
  private static final int MIN_ENTRY = 1 + 8 + 8 + 2 + 8 + 32 + 1 + 1;

  private static final int CACHE_LIMIT = 16_384;

  /**
   * Bound on the entries held by all cached logs together: a count of logs alone does not bound
   * memory, since one log can hold many thousands of entries (found by BoundedResourcesTest: 16,384
   * logs of a few hundred entries each retained over 100 MB).
   */
  private static final long CACHE_ENTRY_LIMIT = 200_000;

  private static final java.util.concurrent.atomic.AtomicLong CACHED_ENTRIES =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * Verified (or signed) logs by (owning codec, SHA-256 of the bytes, verifying key): one map for
   * the JVM, so that its bounds are the JVM's, but a codec finds only its own entries. An entry
   * holds its owner's number, not the codec, so a closed client's entries keep nothing else alive
   * and go at the next clearing.
   */
  private static final ConcurrentHashMap<CacheKey, MetadataLog> VERIFIED =
      new ConcurrentHashMap<>();

  /**
   * The logs each codec signed, the newest per (key, writer, verifying key), as bytes and log
   * ({@link #rememberSigned}). Bounded as {@link #VERIFIED} is, by logs and entries, and by bytes;
   * cleared when a bound would be passed. Changed only under {@link #SIGNED_LOCK}; read without it.
   */
  private static final ConcurrentHashMap<LogId, Signed> SIGNED = new ConcurrentHashMap<>();

  private static final Object SIGNED_LOCK = new Object();

  /** Bound on the bytes of all logs in {@link #SIGNED} together. */
  private static final long SIGNED_BYTES_LIMIT = 32L << 20;

  /** The bytes and entries of the logs in {@link #SIGNED}; changed only under its lock. */
  private static final java.util.concurrent.atomic.AtomicLong SIGNED_BYTES =
      new java.util.concurrent.atomic.AtomicLong();

  private static final java.util.concurrent.atomic.AtomicLong SIGNED_ENTRIES =
      new java.util.concurrent.atomic.AtomicLong();

  /** A log as its codec signed it. */
  private record Signed(byte[] bytes, MetadataLog log) {}

  /** A log's identity across its versions, in one codec's cache: its key, writer, verifying key. */
  private record LogId(long owner, String key, String writer, PublicKey verifier) {}

  /**
   * The cache key of the newest cached log of each (key, writer): when a newer log is verified, the
   * one it supersedes is dropped, so a key written many times costs one cached log, not one per
   * version (found by BoundedResourcesEmulatorsTest: 10,000 writes over 64 keys retained every
   * superseded log up to the entry bound, about 70 MB). Guarded by VERIFIED's insertions being
   * serialised on {@code NEWEST}.
   */
  private static final java.util.HashMap<LogId, CacheKey> NEWEST = new java.util.HashMap<>();

  private record CacheKey(long owner, byte[] digest, PublicKey key) {
    @Override
    public boolean equals(Object o) {
      return o instanceof CacheKey k
          && owner == k.owner
          && Arrays.equals(digest, k.digest)
          && key.equals(k.key);
    }

    @Override
    public int hashCode() {
      return (Arrays.hashCode(digest) * 31 + key.hashCode()) * 31 + Long.hashCode(owner);
    }
  }

  /** Numbers the codecs, each the owner of its entries in the caches. */
  private static final java.util.concurrent.atomic.AtomicLong OWNERS =
      new java.util.concurrent.atomic.AtomicLong();

  /** This codec's number: the part of a cache key that keeps its entries its own. */
  private final long owner = OWNERS.incrementAndGet();

  /**
   * Who signs and verifies: BouncyCastle's Ed25519 by default, or a JCA provider's. Keys given to
   * this codec must be usable by it (the settings check and, for a provider, translate them once).
   */
  private final Signatures signatures;

  /** A codec signing and verifying with the default Ed25519 ({@link Signatures#fast()}). */
  public MetadataCodec() {
    this((java.security.Provider) null);
  }

  /** A codec signing and verifying with {@code provider}'s Ed25519 (null: the default). */
  public MetadataCodec(java.security.Provider provider) {
    this(Signatures.of(provider));
  }

  /** A codec signing and verifying with {@code signatures}. */
  public MetadataCodec(Signatures signatures) {
    this.signatures = java.util.Objects.requireNonNull(signatures, "signatures");
  }

  /** Encodes and signs a log (algorithm 2: signed alone). */
  public byte[] encode(MetadataLog log, PrivateKey signingKey) {
    return signAlone(body(log), signingKey);
  }

  /**
   * A log encoded up to its signature: the body's bytes and its SHA-256 (what algorithm 2 signs
   * through {@link #DIGEST_DOMAIN}, and what a batch's leaf is made from). One thread's.
   */
  public static final class Unsigned {
    private final Out out;
    private final int length;
    private final byte[] digest;

    private Unsigned(Out out) {
      this.out = out;
      this.length = out.size();
      this.digest = Sha256.hash(out.buffer(), 0, length);
    }

    /** The body's length in bytes. */
    public int length() {
      return length;
    }

    /** The SHA-256 of the body (not a copy: do not modify). */
    public byte[] digest() {
      return digest;
    }
  }

  /** Signs {@code body} alone: the algorithm 2 log {@link #encode} returns. */
  public byte[] signAlone(Unsigned body, PrivateKey signingKey) {
    byte[] message = message(DIGEST_DOMAIN, body.digest);
    byte[] sig;
    try {
      sig = signatures.sign(message, message.length, signingKey);
    } catch (IllegalStateException ex) {
      throw new IllegalStateException("cannot sign metadata with the writer's key", ex);
    }
    Out out = body.out;
    out.write(SIG_ED25519_SHA256);
    out.write(sig.length);
    out.writeBytes(sig);
    return out.exact();
  }

  /**
   * Signs a root: Ed25519 over {@link #MERKLE_DOMAIN} and {@code root}, with this codec's signer.
   */
  public byte[] signRoot(byte[] root, PrivateKey signingKey) {
    byte[] message = merkleMessage(root);
    try {
      return signatures.sign(message, message.length, signingKey);
    } catch (IllegalStateException ex) {
      throw new IllegalStateException("cannot sign metadata with the writer's key", ex);
    }
  }

  /**
   * The algorithm 3 log of {@code body}: the body, the signature {@code sig} of the batch's root,
   * and the path from the body's leaf to that root ({@code sides[i]}: 0 when {@code siblings[i]} is
   * on the left, 1 on the right; leaf first).
   */
  public static byte[] signedInBatch(
      Unsigned body, byte[] sig, byte[][] siblings, byte[] sides, int steps) {
    if (steps < 1 || steps > MAX_PATH || sig.length != SIG_LENGTH) {
      throw new IllegalArgumentException(
          "a batch path of 1 to " + MAX_PATH + " steps, was " + steps);
    }
    // One array of the exact length (the body's buffer was sized for a trailer without a path).
    byte[] out = new byte[body.length + batchTrailerBytes(steps)];
    System.arraycopy(body.out.buffer(), 0, out, 0, body.length);
    int at = body.length;
    out[at++] = SIG_ED25519_BATCH;
    out[at++] = SIG_LENGTH;
    System.arraycopy(sig, 0, out, at, SIG_LENGTH);
    at += SIG_LENGTH;
    out[at++] = (byte) steps;
    for (int i = 0; i < steps; i++) {
      out[at++] = sides[i];
      System.arraycopy(siblings[i], 0, out, at, Sha256.BYTES);
      at += Sha256.BYTES;
    }
    return out;
  }

  /** A batch tree's leaf: SHA-256 of 0x00 and a body's digest. */
  public static byte[] leaf(byte[] bodyDigest) {
    byte[] in = new byte[1 + Sha256.BYTES];
    System.arraycopy(bodyDigest, 0, in, 1, Sha256.BYTES);
    return Sha256.hash(in);
  }

  /** A batch tree's inner node: SHA-256 of 0x01 and its two children, left first. */
  public static byte[] node(byte[] left, byte[] right) {
    byte[] in = new byte[1 + 2 * Sha256.BYTES];
    in[0] = 1;
    System.arraycopy(left, 0, in, 1, Sha256.BYTES);
    System.arraycopy(right, 0, in, 1 + Sha256.BYTES, Sha256.BYTES);
    return Sha256.hash(in);
  }

  /** What algorithm 3 signs: {@link #MERKLE_DOMAIN} followed by the root. */
  public static byte[] merkleMessage(byte[] root) {
    return message(MERKLE_DOMAIN, root);
  }

  /** Encodes {@code log} up to its signature. */
  public static Unsigned body(MetadataLog log) {
    boolean anySealed = false;
    boolean laterIncarnation = false;
    for (LogEntry e : log.entries()) {
      anySealed |= e.isSealed();
      laterIncarnation |= e.incarnation() != 0;
    }
    boolean incarnations = log.incarnation() != 0;
    byte[] key = log.key().getBytes(StandardCharsets.UTF_8);
    Out out = new Out(encodedLength(log, key.length, incarnations, anySealed));
    out.writeBytes(MAGIC);
    if (incarnations) {
      out.write(anySealed ? FORMAT_SEALED_INCARNATIONS : FORMAT_INCARNATIONS);
    } else if (laterIncarnation) {
      throw new IllegalArgumentException("a log of incarnation 0 cannot hold later incarnations");
    } else {
      out.write(anySealed ? FORMAT_SEALED : FORMAT);
    }
    u16(out, key.length);
    out.writeBytes(key);
    out.ascii8(log.writer());
    i64(out, log.sequence());
    if (incarnations) {
      i64(out, log.incarnation());
    }
    i32(out, log.entries().size());
    for (LogEntry e : log.entries()) {
      out.write(e.kind().code);
      i64(out, e.timestamp());
      if (incarnations) {
        i64(out, e.incarnation());
      }
      i64(out, e.createdAtMillis());
      out.ascii16(e.dataObject());
      i64(out, e.size());
      out.writeBytes(e.sha256Unsafe());
      if (e.holders().size() > 255) {
        throw new IllegalArgumentException("at most 255 holders");
      }
      out.write(e.holders().size());
      for (String h : e.holders()) {
        out.ascii8(h);
      }
      boolean joined = !e.joinedHolders().isEmpty();
      out.write(joined ? PARTS_JOINED_CODE : e.coding().code);
      if (e.coding() == LogEntry.Coding.PARTS) {
        i32(out, e.partCount());
        for (int i = 0; i < e.partCount(); i++) {
          out.writeBytes(e.pieceHashUnsafe(i));
        }
        if (joined) {
          for (String h : e.holders()) {
            out.write(e.joinedOn(h) ? 1 : 0);
          }
        }
      } else if (e.coding() == LogEntry.Coding.CODED_PARTS) {
        out.write(e.k());
        i32(out, e.partCount());
        for (int i = 0; i < e.partCount(); i++) {
          out.writeBytes(e.partHashUnsafe(i));
        }
        for (int j = 0; j < e.partCount(); j++) {
          for (int h = 0; h < e.holders().size(); h++) {
            out.writeBytes(e.fragmentHashUnsafe(j, h));
          }
        }
      } else if (e.coding() == LogEntry.Coding.INLINE) {
        if (!incarnations) {
          throw new IllegalArgumentException("inline values exist only in logs with incarnations");
        }
        i32(out, e.inlineUnsafe().length);
        out.writeBytes(e.inlineUnsafe());
      } else if (e.coding() == LogEntry.Coding.PACKED) {
        if (!incarnations) {
          throw new IllegalArgumentException("packed values exist only in logs with incarnations");
        }
        LogEntry.Pack pack = e.pack();
        out.ascii16(pack.object());
        i64(out, pack.size());
        out.writeBytes(pack.sha256Unsafe());
        i64(out, pack.offset());
      } else if (e.coding() != LogEntry.Coding.REPLICA) {
        out.write(e.k());
        for (int i = 0; i < e.holders().size(); i++) {
          out.writeBytes(e.pieceHashUnsafe(i));
        }
      }
      if (anySealed) {
        if (e.shareHolders().size() > 255) {
          throw new IllegalArgumentException("at most 255 share holders");
        }
        out.write(e.shareHolders().size());
        for (int i = 0; i < e.shareHolders().size(); i++) {
          out.ascii8(e.shareHolders().get(i));
          out.writeBytes(e.shareHashUnsafe(i));
        }
      }
    }
    // The body is signed where it lies (no copy), through its digest (SIG_ED25519_SHA256): Ed25519
    // would hash a long log twice with SHA-512, the digest hashes it once with SHA-256.
    return new Unsigned(out);
  }

  /**
   * The message Ed25519 signs for a log of {@link #SIG_ED25519_SHA256}: {@link #DIGEST_DOMAIN}
   * followed by the SHA-256 of the body ({@code body[0..length)}). 45 bytes, so each of the two
   * SHA-512 passes inside Ed25519 is one block, whatever the log's length. Both signers sign and
   * verify these same bytes, so their signatures stay byte-identical.
   */
  public static byte[] digestMessage(byte[] body, int length) {
    return message(DIGEST_DOMAIN, Sha256.hash(body, 0, length));
  }

  /** {@code domain} followed by a 32-byte hash: what algorithms 2 and 3 sign. */
  private static byte[] message(byte[] domain, byte[] hash) {
    byte[] message = Arrays.copyOf(domain, domain.length + Sha256.BYTES);
    System.arraycopy(hash, 0, message, domain.length, Sha256.BYTES);
    return message;
  }

  /**
   * The length {@link #encode} gives {@code log} (signature trailer included), computed the way it
   * writes, so its buffer is allocated once at the right size and handed out without a copy: a long
   * log of inline values was copied several times as it grew. Names are ASCII, one byte per char;
   * were a length ever off, the buffer would grow or be trimmed, never be wrong.
   */
  /** {@link #encode}'s length for {@code log}, as it computes it before encoding (for tests). */
  static int encodedLength(MetadataLog log) {
    boolean anySealed = log.entries().stream().anyMatch(LogEntry::isSealed);
    return encodedLength(
        log, log.key().getBytes(StandardCharsets.UTF_8).length, log.incarnation() != 0, anySealed);
  }

  private static int encodedLength(
      MetadataLog log, int keyBytes, boolean incarnations, boolean anySealed) {
    long n = MAGIC.length + 1 + 2 + keyBytes + 1 + log.writer().length() + 8 + 4;
    if (incarnations) {
      n += 8;
    }
    for (LogEntry e : log.entries()) {
      n += 1 + 8 + (incarnations ? 8 : 0) + 8 + 2 + e.dataObject().length() + 8 + 32 + 1;
      for (String h : e.holders()) {
        n += 1 + h.length();
      }
      n += 1;
      if (e.coding() == LogEntry.Coding.PARTS) {
        n += 4 + 32L * e.partCount();
        if (!e.joinedHolders().isEmpty()) {
          n += e.holders().size();
        }
      } else if (e.coding() == LogEntry.Coding.CODED_PARTS) {
        n += 1 + 4 + 32L * e.partCount() + 32L * e.partCount() * e.holders().size();
      } else if (e.coding() == LogEntry.Coding.INLINE) {
        n += 4 + e.inlineUnsafe().length;
      } else if (e.coding() == LogEntry.Coding.PACKED) {
        n += 2 + e.pack().object().length() + 8 + 32 + 8;
      } else if (e.coding() != LogEntry.Coding.REPLICA) {
        n += 1 + 32L * e.holders().size();
      }
      if (anySealed) {
        n += 1;
        for (String h : e.shareHolders()) {
          n += 1 + h.length() + 32;
        }
      }
    }
    n += 2 + SIG_LENGTH;
    return (int) Math.min(n, Integer.MAX_VALUE - 16);
  }

  /**
   * A byte stream whose buffer can be signed in place and handed out without a copy if full. Not
   * synchronized (the encoder's own, one thread): ByteArrayOutputStream takes its lock per byte.
   */
  private static final class Out extends ByteArrayOutputStream {
    Out(int capacity) {
      super(capacity);
    }

    private void room(int n) {
      if (n > buf.length - count) {
        buf = Arrays.copyOf(buf, Math.max(count + n, 2 * buf.length));
      }
    }

    void int16(int v) {
      room(2);
      buf[count] = (byte) (v >>> 8);
      buf[count + 1] = (byte) v;
      count += 2;
    }

    void int32(int v) {
      room(4);
      buf[count] = (byte) (v >>> 24);
      buf[count + 1] = (byte) (v >>> 16);
      buf[count + 2] = (byte) (v >>> 8);
      buf[count + 3] = (byte) v;
      count += 4;
    }

    @Override
    public void write(int b) {
      room(1);
      buf[count++] = (byte) b;
    }

    /** {@code s} as US-ASCII after its length in one byte (as a name's 8-bit length prefix). */
    void ascii8(String s) {
      ascii(s, false);
    }

    /** {@code s} as US-ASCII after its length in two bytes. */
    void ascii16(String s) {
      ascii(s, true);
    }

    /**
     * Writes the chars in place, without the array {@code getBytes} makes (a log is encoded on
     * every write, its names with it). A name is ASCII; were one not, it is written as {@code
     * getBytes(US_ASCII)} writes it (unmappable chars as '?'), so the bytes never depend on which
     * path ran.
     */
    private void ascii(String s, boolean twoBytes) {
      int n = s.length();
      for (int i = 0; i < n; i++) {
        if (s.charAt(i) >= 0x80) {
          byte[] b = s.getBytes(StandardCharsets.US_ASCII);
          if (twoBytes) {
            int16(b.length);
          } else {
            write(b.length);
          }
          writeBytes(b);
          return;
        }
      }
      if (twoBytes) {
        int16(n);
      } else {
        write(n);
      }
      room(n);
      for (int i = 0; i < n; i++) {
        buf[count + i] = (byte) s.charAt(i);
      }
      count += n;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      java.util.Objects.checkFromIndexSize(off, len, b.length);
      room(len);
      System.arraycopy(b, off, buf, count, len);
      count += len;
    }

    @Override
    public void writeBytes(byte[] b) {
      write(b, 0, b.length);
    }

    byte[] buffer() {
      return buf;
    }

    byte[] exact() {
      return count == buf.length ? buf : Arrays.copyOf(buf, count);
    }
  }

  /**
   * Wraps a signed log with one cloud's key shares (entry to share encoding), as stored on that
   * cloud under the confidentiality option. Format 1 (shares named by timestamp) unless a share
   * belongs to an entry of a nonzero incarnation.
   */
  public static byte[] envelope(byte[] signedLog, java.util.SortedMap<LogEntry.Id, byte[]> shares) {
    ByteArrayOutputStream out =
        new ByteArrayOutputStream(signedLog.length + 16 + 56 * shares.size());
    boolean incarnations = shares.keySet().stream().anyMatch(id -> id.incarnation() != 0);
    out.writeBytes(ENVELOPE_MAGIC);
    out.write(incarnations ? ENVELOPE_FORMAT_INCARNATIONS : ENVELOPE_FORMAT);
    i32(out, signedLog.length);
    out.writeBytes(signedLog);
    if (shares.size() > 0xFFFF) {
      throw new IllegalArgumentException("at most 65535 shares in one envelope");
    }
    u16(out, shares.size());
    for (java.util.Map.Entry<LogEntry.Id, byte[]> e : shares.entrySet()) {
      i64(out, e.getKey().timestamp());
      if (incarnations) {
        i64(out, e.getKey().incarnation());
      }
      u16(out, e.getValue().length);
      out.writeBytes(e.getValue());
    }
    return out.toByteArray();
  }

  /** A log and the key shares (by entry, still unchecked) its cloud sent with it. */
  public record Envelope(MetadataLog log, java.util.Map<LogEntry.Id, byte[]> shares) {}

  /**
   * Parses a metadata object that may be an envelope: verifies the log inside as {@link #decode}
   * does and splits off the shares, which the caller checks against the signed share hashes. A
   * plain signed log gives no shares.
   */
  public Envelope decodeEnvelope(
      byte[] bytes, String expectedKey, String expectedWriter, PublicKey writerKey, int maxBytes)
      throws MalformedMetadataException {
    if (bytes.length < 4
        || !Arrays.equals(Arrays.copyOf(bytes, ENVELOPE_MAGIC.length), ENVELOPE_MAGIC)) {
      return new Envelope(
          decode(bytes, expectedKey, expectedWriter, writerKey, maxBytes), java.util.Map.of());
    }
    if (bytes.length > maxBytes) {
      throw malformed("metadata object of " + bytes.length + " bytes exceeds " + maxBytes);
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    try {
      need(in, 5 + 4);
      in.position(4);
      int format = in.get() & 0xFF;
      if (format != ENVELOPE_FORMAT && format != ENVELOPE_FORMAT_INCARNATIONS) {
        throw malformed("unknown envelope format " + format);
      }
      boolean incarnations = format == ENVELOPE_FORMAT_INCARNATIONS;
      long logLength = in.getInt() & 0xFFFFFFFFL;
      if (logLength > in.remaining()) {
        throw malformed("envelope log length " + logLength + " exceeds " + in.remaining());
      }
      byte[] signed = new byte[(int) logLength];
      in.get(signed);
      MetadataLog log = decode(signed, expectedKey, expectedWriter, writerKey, maxBytes);
      int count = u16(in);
      if (count > in.remaining() / 10) {
        throw malformed("share count " + count + " exceeds what " + in.remaining() + " bytes hold");
      }
      java.util.Map<LogEntry.Id, byte[]> shares = new java.util.HashMap<>();
      for (int i = 0; i < count; i++) {
        need(in, incarnations ? 16 : 8);
        LogEntry.Id id = new LogEntry.Id(in.getLong(), incarnations ? in.getLong() : 0);
        int length = u16(in);
        need(in, length);
        byte[] share = new byte[length];
        in.get(share);
        if (shares.put(id, share) != null) {
          throw malformed("two shares for entry " + id);
        }
      }
      if (in.hasRemaining()) {
        throw malformed(in.remaining() + " trailing bytes after the shares");
      }
      return new Envelope(log, java.util.Map.copyOf(shares));
    } catch (MalformedMetadataException e) {
      throw e;
    } catch (RuntimeException e) {
      throw malformed("undecodable metadata envelope: " + e);
    }
  }

  /**
   * Parses and verifies a log fetched from a cloud.
   *
   * @param expectedKey the key that was asked for
   * @param expectedWriter the writer whose log was asked for
   * @param writerKey that writer's trusted public key
   * @param maxBytes the largest accepted object
   */
  public MetadataLog decode(
      byte[] bytes, String expectedKey, String expectedWriter, PublicKey writerKey, int maxBytes)
      throws MalformedMetadataException {
    if (bytes.length > maxBytes) {
      throw malformed("metadata object of " + bytes.length + " bytes exceeds " + maxBytes);
    }
    MetadataLog own = signedHere(bytes, expectedKey, expectedWriter, writerKey);
    if (own != null) {
      return own;
    }
    CacheKey ck = new CacheKey(owner, io.rafestore.internal.codec.Sha256.hash(bytes), writerKey);
    MetadataLog cached = VERIFIED.get(ck);
    if (cached != null) {
      checkNames(cached, expectedKey, expectedWriter);
      return cached;
    }
    MetadataLog log = parseAndVerify(bytes, writerKey);
    checkNames(log, expectedKey, expectedWriter);
    remember(ck, log, writerKey);
    return log;
  }

  /**
   * Records that {@code bytes} are {@code log} as this client just encoded and signed it with the
   * private key of {@code writerKey} ({@link #encode}), so that reading the same bytes back (readM
   * of a writer's own log, in PAPER mode and with several writers) needs no signature check: bytes
   * equal to these, byte for byte, carry a valid signature because this client made it. Nothing
   * that came from a cloud is trusted by this; a log whose bytes differ in any way is verified as
   * always. A misconfigured trusted key for this writer simply never matches. Only this codec (this
   * client) finds the entry: another client reading the log verifies it.
   *
   * <p>Kept as the bytes themselves, the newest per (key, writer, key), and matched by comparison
   * when a log of that name is decoded: recording costs no hashing (it runs on every write; the
   * SHA-256 of the log was about 3 % of a 1 KB write's CPU), and a match costs one comparison.
   */
  public void rememberSigned(byte[] bytes, MetadataLog log, PublicKey writerKey) {
    LogId id = new LogId(owner, log.key(), log.writer(), writerKey);
    Signed fresh = new Signed(bytes, log);
    synchronized (SIGNED_LOCK) {
      if (SIGNED.size() >= CACHE_LIMIT
          || SIGNED_BYTES.get() + bytes.length > SIGNED_BYTES_LIMIT
          || SIGNED_ENTRIES.get() + log.entries().size() > CACHE_ENTRY_LIMIT) {
        SIGNED.clear();
        SIGNED_BYTES.set(0);
        SIGNED_ENTRIES.set(0);
      }
      Signed old = SIGNED.put(id, fresh);
      SIGNED_BYTES.addAndGet(bytes.length - (old == null ? 0 : old.bytes().length));
      SIGNED_ENTRIES.addAndGet(
          log.entries().size() - (old == null ? 0 : old.log().entries().size()));
    }
  }

  /** The log this codec signed as {@code bytes} under this name, or null. */
  private MetadataLog signedHere(
      byte[] bytes, String expectedKey, String expectedWriter, PublicKey writerKey) {
    Signed own = SIGNED.get(new LogId(owner, expectedKey, expectedWriter, writerKey));
    return own != null && Arrays.equals(own.bytes(), bytes) ? own.log() : null;
  }

  private void remember(CacheKey ck, MetadataLog log, PublicKey writerKey) {
    long weight = 1L + log.entries().size();
    synchronized (NEWEST) {
      if (VERIFIED.size() >= CACHE_LIMIT || CACHED_ENTRIES.get() + weight > CACHE_ENTRY_LIMIT) {
        VERIFIED.clear();
        NEWEST.clear();
        CACHED_ENTRIES.set(0);
      }
      LogId id = new LogId(owner, log.key(), log.writer(), writerKey);
      CacheKey previous = NEWEST.get(id);
      MetadataLog older = previous == null ? null : VERIFIED.get(previous);
      if (older == null || older.sequence() <= log.sequence()) {
        // The newest of its (key, writer): the one it supersedes is no longer needed. An older
        // log (a lagging cloud's) is still cached, but not tracked, until the bounds clear it.
        if (older != null && !previous.equals(ck) && VERIFIED.remove(previous) != null) {
          CACHED_ENTRIES.addAndGet(-(1L + older.entries().size()));
        }
        NEWEST.put(id, ck);
      }
      if (VERIFIED.put(ck, log) == null) {
        CACHED_ENTRIES.addAndGet(weight);
      }
    }
  }

  private static void checkNames(MetadataLog log, String expectedKey, String expectedWriter)
      throws MalformedMetadataException {
    if (!log.key().equals(expectedKey)) {
      throw malformed("metadata is for key '" + log.key() + "', not '" + expectedKey + "'");
    }
    if (!log.writer().equals(expectedWriter)) {
      throw malformed("metadata is by writer '" + log.writer() + "', not '" + expectedWriter + "'");
    }
  }

  private MetadataLog parseAndVerify(byte[] bytes, PublicKey writerKey)
      throws MalformedMetadataException {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    try {
      byte[] magic = new byte[4];
      need(in, 5);
      in.get(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw malformed("bad magic");
      }
      int format = in.get() & 0xFF;
      if (format < FORMAT || format > FORMAT_SEALED_INCARNATIONS) {
        throw malformed("unknown metadata format " + format);
      }
      boolean sealedFormat = format == FORMAT_SEALED || format == FORMAT_SEALED_INCARNATIONS;
      boolean incarnations = format >= FORMAT_INCARNATIONS;
      String key = utf8(in, u16(in));
      String writer = ascii(in, u8(in));
      need(in, 12);
      long sequence = in.getLong();
      if (sequence < 1) {
        throw malformed("sequence " + sequence + " < 1");
      }
      long logIncarnation = 0;
      if (incarnations) {
        need(in, 8 + 4);
        logIncarnation = in.getLong();
        if (logIncarnation == 0) {
          // Canonical: a log of incarnation 0 is written in format 1 or 2.
          throw malformed("format " + format + " with incarnation 0");
        }
      }
      long count = in.getInt() & 0xFFFFFFFFL;
      if (count > in.remaining() / MIN_ENTRY) {
        throw malformed("entry count " + count + " exceeds what " + in.remaining() + " bytes hold");
      }
      List<LogEntry> entries = new ArrayList<>((int) count);
      long lastTs = 0;
      long lastIncarnation = 0;
      for (long i = 0; i < count; i++) {
        need(in, incarnations ? 25 : 17);
        LogEntry.Kind kind = LogEntry.Kind.of(in.get() & 0xFF);
        if (kind == null) {
          throw malformed("entry " + i + " has an unknown kind");
        }
        long ts = in.getLong();
        long entryIncarnation = incarnations ? in.getLong() : 0;
        long created = in.getLong();
        if (ts < 1 || ts < lastTs || (ts == lastTs && entryIncarnation <= lastIncarnation)) {
          throw malformed("entry " + i + " (timestamp " + ts + ", incarnation) is not increasing");
        }
        lastTs = ts;
        lastIncarnation = entryIncarnation;
        String name = ascii(in, u16(in));
        need(in, 8 + 32 + 1);
        long size = in.getLong();
        if (size < 0) {
          throw malformed("entry " + i + " has negative size");
        }
        byte[] sha = new byte[32];
        in.get(sha);
        int holderCount = u8(in);
        List<String> holders = new ArrayList<>(holderCount);
        for (int h = 0; h < holderCount; h++) {
          holders.add(ascii(in, u8(in)));
        }
        int codingCode = u8(in);
        // An inline value has no holders (its bytes are in the log); every other value has some.
        boolean inlineCode = codingCode == INLINE_CODE;
        if (kind == LogEntry.Kind.VALUE && (name.isEmpty() || holders.isEmpty() != inlineCode)) {
          throw malformed(
              "entry "
                  + i
                  + (inlineCode
                      ? " is an inline value without a name or with holders"
                      : " is a value without data object or holders"));
        }
        if (kind != LogEntry.Kind.VALUE && (inlineCode || codingCode == PACKED_CODE)) {
          throw malformed("entry " + i + " is a " + kind + " with a value's coding");
        }
        if ((inlineCode || codingCode == PACKED_CODE) && !incarnations) {
          // Canonical: the new codings were never written without incarnations.
          throw malformed("entry " + i + " has coding " + codingCode + " in format " + format);
        }
        boolean joinedLayout = codingCode == PARTS_JOINED_CODE;
        LogEntry.Coding coding =
            joinedLayout ? LogEntry.Coding.PARTS : LogEntry.Coding.of(codingCode);
        if (coding == null) {
          throw malformed("entry " + i + " has an unknown coding");
        }
        int k = 0;
        List<byte[]> pieces = new ArrayList<>();
        List<String> joined = new ArrayList<>();
        byte[] inline = NO_BYTES;
        LogEntry.Pack pack = null;
        if (coding == LogEntry.Coding.INLINE) {
          need(in, 4);
          long length = in.getInt() & 0xFFFFFFFFL;
          // Checked against the bytes left (the whole object is already bounded by
          // maxMetadataBytes) before anything is allocated; against the signed size below.
          if (length > in.remaining() || length > size + LogEntry.SEALED_PART_OVERHEAD) {
            throw malformed(
                "entry " + i + " inline length " + length + " exceeds what the bytes hold");
          }
          inline = new byte[(int) length];
          in.get(inline);
        } else if (coding == LogEntry.Coding.PACKED) {
          String packName = ascii(in, u16(in));
          need(in, 8 + 32 + 8);
          long packSize = in.getLong();
          byte[] packSha = new byte[32];
          in.get(packSha);
          long offset = in.getLong();
          if (packName.isEmpty() || packSize < 1 || offset < 0 || offset >= packSize) {
            throw malformed("entry " + i + " names no valid place in a pack");
          }
          pack = new LogEntry.Pack(packName, packSize, packSha, offset);
        } else if (coding == LogEntry.Coding.PARTS) {
          need(in, 4);
          long parts = in.getInt() & 0xFFFFFFFFL;
          if (parts > in.remaining() / 32) {
            throw malformed("entry " + i + " part count " + parts + " exceeds what the bytes hold");
          }
          if (!LogEntry.partsFit(size, parts)) {
            throw malformed(
                "entry " + i + " has " + parts + " parts for " + size + " bytes (empty part)");
          }
          for (long h = 0; h < parts; h++) {
            byte[] ph = new byte[32];
            in.get(ph);
            pieces.add(ph);
          }
          if (joinedLayout) {
            need(in, holderCount);
            for (int h = 0; h < holderCount; h++) {
              int layout = u8(in);
              if (layout > 1) {
                throw malformed("entry " + i + " holder " + h + " has unknown layout " + layout);
              }
              if (layout == 1) {
                joined.add(holders.get(h));
              }
            }
            if (joined.isEmpty()) {
              throw malformed("entry " + i + " has coding 9 but no joined holder");
            }
          }
        } else if (coding == LogEntry.Coding.CODED_PARTS) {
          k = u8(in);
          if (k < 1 || k > holderCount) {
            throw malformed("entry " + i + " has k=" + k + " for " + holderCount + " holders");
          }
          need(in, 4);
          long parts = in.getInt() & 0xFFFFFFFFL;
          // One part hash and one fragment hash per holder, per part: bounded by the bytes left
          // before anything is allocated.
          if (parts > in.remaining() / (32L * (holderCount + 1))) {
            throw malformed("entry " + i + " part count " + parts + " exceeds what the bytes hold");
          }
          if (!LogEntry.partsFit(size, parts)) {
            throw malformed(
                "entry " + i + " has " + parts + " parts for " + size + " bytes (empty part)");
          }
          for (long h = 0; h < parts * (holderCount + 1); h++) {
            byte[] ph = new byte[32];
            in.get(ph);
            pieces.add(ph);
          }
        } else if (coding != LogEntry.Coding.REPLICA) {
          k = u8(in);
          if (k < 1 || k > holderCount) {
            throw malformed("entry " + i + " has k=" + k + " for " + holderCount + " holders");
          }
          need(in, 32 * holderCount);
          for (int h = 0; h < holderCount; h++) {
            byte[] ph = new byte[32];
            in.get(ph);
            pieces.add(ph);
          }
        }
        List<String> shareHolders = new ArrayList<>();
        List<byte[]> shareHashes = new ArrayList<>();
        if (sealedFormat) {
          int shareCount = u8(in);
          for (int h = 0; h < shareCount; h++) {
            shareHolders.add(ascii(in, u8(in)));
            need(in, 32);
            byte[] hash = new byte[32];
            in.get(hash);
            shareHashes.add(hash);
          }
          if (shareCount > 0 && kind != LogEntry.Kind.VALUE) {
            throw malformed("entry " + i + " is a tombstone with key shares");
          }
        }
        entries.add(
            new LogEntry(
                kind,
                ts,
                created,
                name,
                size,
                sha,
                holders,
                coding,
                k,
                pieces,
                shareHolders,
                shareHashes,
                joined,
                entryIncarnation,
                inline,
                pack));
      }
      if (sealedFormat && entries.stream().noneMatch(LogEntry::isSealed)) {
        // Canonical: a log without a sealed entry is written in format 1 or 3.
        throw malformed("format " + format + " without a sealed entry");
      }
      int signedLength = in.position();
      need(in, 2);
      int algo = u8(in);
      int sigLength = u8(in);
      if ((algo != SIG_ED25519 && algo != SIG_ED25519_SHA256 && algo != SIG_ED25519_BATCH)
          || sigLength != SIG_LENGTH) {
        throw malformed("unsupported signature algorithm " + algo + "/" + sigLength);
      }
      need(in, sigLength);
      byte[] sig = new byte[sigLength];
      in.get(sig);
      byte[] root = null;
      if (algo == SIG_ED25519_BATCH) {
        int steps = u8(in);
        if (steps < 1 || steps > MAX_PATH) {
          throw malformed("a batch path of " + steps + " steps (1 to " + MAX_PATH + ")");
        }
        need(in, steps * (1 + Sha256.BYTES));
        root = leaf(Sha256.hash(bytes, 0, signedLength));
        byte[] sibling = new byte[Sha256.BYTES];
        for (int i = 0; i < steps; i++) {
          int side = in.get() & 0xFF;
          in.get(sibling);
          if (side == 0) {
            root = node(sibling, root);
          } else if (side == 1) {
            root = node(root, sibling);
          } else {
            throw malformed("batch path step " + i + " has side " + side + " (0 or 1)");
          }
        }
      }
      if (in.hasRemaining()) {
        throw malformed(in.remaining() + " trailing bytes after the signature");
      }
      boolean valid =
          switch (algo) {
            case SIG_ED25519 -> verify(bytes, signedLength, sig, writerKey);
            case SIG_ED25519_SHA256 ->
                verify(digestMessage(bytes, signedLength), DIGEST_MESSAGE_BYTES, sig, writerKey);
            default -> verifyRoot(merkleMessage(root), sig, writerKey);
          };
      if (!valid) {
        throw new MalformedMetadataException(
            CloudFault.Kind.BAD_SIGNATURE, "signature does not verify under writer's key");
      }
      return new MetadataLog(key, writer, sequence, logIncarnation, entries);
    } catch (MalformedMetadataException e) {
      throw e;
    } catch (RuntimeException e) {
      // Any decoding surprise on hostile bytes (bad UTF-8, a record check) is a malformed log.
      throw malformed("undecodable metadata: " + e);
    }
  }

  private boolean verify(byte[] bytes, int length, byte[] sig, PublicKey key) {
    return signatures.verify(bytes, length, sig, key);
  }

  /** Verifies a batch's root, once per (root, signature, key) while the cache keeps it. */
  private boolean verifyRoot(byte[] message, byte[] sig, PublicKey key) {
    RootKey rk = new RootKey(owner, message, sig, key);
    if (VERIFIED_ROOTS.containsKey(rk)) {
      return true;
    }
    if (!verify(message, message.length, sig, key)) {
      return false;
    }
    if (VERIFIED_ROOTS.size() >= ROOT_CACHE_LIMIT) {
      VERIFIED_ROOTS.clear();
    }
    VERIFIED_ROOTS.put(rk, Boolean.TRUE);
    return true;
  }

  private static MalformedMetadataException malformed(String message) {
    return new MalformedMetadataException(CloudFault.Kind.MALFORMED_METADATA, message);
  }

  private static void need(ByteBuffer in, int n) throws MalformedMetadataException {
    if (in.remaining() < n) {
      throw malformed("truncated: needs " + n + " more bytes at offset " + in.position());
    }
  }

  private static int u8(ByteBuffer in) throws MalformedMetadataException {
    need(in, 1);
    return in.get() & 0xFF;
  }

  private static int u16(ByteBuffer in) throws MalformedMetadataException {
    need(in, 2);
    return in.getShort() & 0xFFFF;
  }

  private static String utf8(ByteBuffer in, int length) throws MalformedMetadataException {
    need(in, length);
    String s = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
    in.position(in.position() + length);
    return s;
  }

  private static String ascii(ByteBuffer in, int length) throws MalformedMetadataException {
    need(in, length);
    for (int i = 0; i < length; i++) {
      byte b = in.get(in.position() + i);
      if (b < 0x21 || b > 0x7E) {
        throw malformed("non-printable byte in an ASCII field");
      }
    }
    String s = new String(in.array(), in.position(), length, StandardCharsets.US_ASCII);
    in.position(in.position() + length);
    return s;
  }

  // The encoder's own stream: one bounds check per number, not one per byte.
  private static void u16(Out out, int v) {
    out.int16(v);
  }

  private static void i32(Out out, int v) {
    out.int32(v);
  }

  private static void i64(Out out, long v) {
    out.int32((int) (v >>> 32));
    out.int32((int) v);
  }

  private static void u16(ByteArrayOutputStream out, int v) {
    out.write(v >>> 8);
    out.write(v);
  }

  private static void i32(ByteArrayOutputStream out, int v) {
    out.write(v >>> 24);
    out.write(v >>> 16);
    out.write(v >>> 8);
    out.write(v);
  }

  private static void i64(ByteArrayOutputStream out, long v) {
    i32(out, (int) (v >>> 32));
    i32(out, (int) v);
  }
}
