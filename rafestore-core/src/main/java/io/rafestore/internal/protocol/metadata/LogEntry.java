package io.rafestore.internal.protocol.metadata;

import io.rafestore.Version;
import io.rafestore.VersionInfo;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One entry of a writer's metadata log: a version of the key with its data's location, size and
 * hash, or a tombstone that hides every version up to and including its own.
 *
 * @param kind value or tombstone
 * @param timestamp the version's logical timestamp (the writer is the log's writer)
 * @param createdAtMillis the writer's wall clock, informational
 * @param dataObject the name of the data object on each holder ("" for a tombstone)
 * @param size the value's size
 * @param sha256 the value's SHA-256 (32 zero bytes for a tombstone)
 * @param holders the data clouds that acknowledged the value before writeM
 * @param coding how the value is stored on the holders: {@link Coding#REPLICA} (each holds the
 *     whole value) or a coded form whose per-holder piece hashes are in {@code pieceHashes}
 * @param k for coded forms, how many pieces rebuild the value (0 for replicas and parts)
 * @param pieceHashes for coded forms, the SHA-256 of the object stored on {@code holders.get(i)},
 *     one per holder (empty for replicas); for {@link Coding#PARTS}, the SHA-256 of each part, in
 *     order
 * @param shareHolders for a value encrypted by the client (the confidentiality option of the
 *     RafeStore modes): the clouds whose metadata object carries a Shamir share of the value's key,
 *     cloud {@code shareHolders.get(i)} holding the share at x = i + 1; empty otherwise. Then the
 *     data object is the AES-GCM sealed value and {@code sha256} is the hash of those sealed bytes,
 *     never of the plaintext (a plaintext hash would let clouds confirm guesses of the value)
 * @param shareHashes the SHA-256 of each share's encoding, one per share holder
 * @param joinedHolders for {@link Coding#PARTS}: the holders that store the value as one joined
 *     object named {@code dataObject} (a native multipart upload, the stored parts concatenated),
 *     in holder order; every other holder stores part objects ({@link #partObject}). Empty for
 *     every other coding
 * @param incarnation the incarnation of the client that created the entry ({@link
 *     Version#incarnation()}; 0 in logs written before incarnations existed). An entry keeps it
 *     when a later incarnation of the same writer carries it over into its own log
 * @param inline for {@link Coding#INLINE}: the stored bytes of the value (the value, or under the
 *     confidentiality option the value sealed), {@link #storedSize()} long, whose SHA-256 is {@code
 *     sha256}; empty for every other coding
 * @param pack for {@link Coding#PACKED}: the pack object holding the stored bytes, and where in it;
 *     null for every other coding
 *     <p>One way to construct: the canonical constructor, called by the named factories ({@link
 *     #replica}, {@link #coded}, {@link #parts}, {@link #tombstone}, {@link #collected}), which
 *     make an entry with no key shares, no joined holders and incarnation 0, and by the withers
 *     ({@link #sealed}, {@link #withJoined}, {@link #withIncarnation}), which change one concern
 *     each; the codec alone passes every component, as read from the wire. {@link Logs#append}
 *     stamps the writer's incarnation on an entry it appends.
 */
public record LogEntry(
    Kind kind,
    long timestamp,
    long createdAtMillis,
    String dataObject,
    long size,
    byte[] sha256,
    List<String> holders,
    Coding coding,
    int k,
    List<byte[]> pieceHashes,
    List<String> shareHolders,
    List<byte[]> shareHashes,
    List<String> joinedHolders,
    long incarnation,
    byte[] inline,
    Pack pack) {

  /** How a value is laid out on its holders; the wire code is {@link #code}. */
  public enum Coding {
    /** Every holder stores the whole value (RafeStore, DepSky-A). */
    REPLICA(0),
    /**
     * DepSky-CA: the value encrypted with AES-256-GCM under a random key, the ciphertext
     * Reed-Solomon coded into n fragments any k = f+1 of which decode, the key Shamir-split with
     * threshold f+1; holder i stores share i and fragment i.
     */
    DEPSKY_CA(1),
    /**
     * The RafeStore modes' erasure-coded form: the stored value (sealed or not) Reed-Solomon coded
     * into k data and f parity fragments, holder i storing fragment i; any k hash-valid fragments
     * decode, and the result is checked against the entry's value hash.
     */
    REED_SOLOMON(2),
    /**
     * A large value split into {@code pieceHashes.size()} >= 2 parts, every holder storing every
     * part as its own object ({@link #partObject}), or, for the {@link #joinedHolders}, all parts
     * as one joined object under {@code dataObject}. Parts are {@link #partLength()} bytes each but
     * the last, which is shorter or equal and never empty. Each part's SHA-256 is signed, so a part
     * (and any range of the value) can be verified on its own.
     */
    PARTS(8),
    /**
     * A large value split into parts as {@link #PARTS}, each stored part Reed-Solomon coded on its
     * own into k data and {@code holders.size() - k} parity fragments: holder i stores fragment i
     * of part j as the object {@link #partObject}{@code (dataObject, j)}. {@code pieceHashes} holds
     * the SHA-256 of each stored part ({@link #partHash}), then of each fragment, part by part
     * ({@link #fragmentHash}); any k hash-valid fragments of a part decode it, and the decoded part
     * is checked against its own hash before any byte of it is used.
     */
    CODED_PARTS(10),
    /**
     * A small value carried inside the signed log itself ({@link LogEntry#inline()}): no holders
     * and no data object stored under {@code dataObject}, which still names the value (sealing's
     * associated data binds it). The log reaches n - f clouds, so f+1 correct clouds hold the value
     * and its signature.
     */
    INLINE(16),
    /**
     * An inline value after background packing: its stored bytes lie at {@link Pack#offset()} in
     * the pack object {@link Pack#object()} (several values concatenated), which every holder
     * stores whole; {@code dataObject} keeps the value's own name (its identity, sealing's
     * associated data). The same version as the inline entry it replaced: same timestamp,
     * incarnation, size, hash and key shares.
     */
    PACKED(17);

    final int code;

    Coding(int code) {
      this.code = code;
    }

    static Coding of(int code) {
      for (Coding c : values()) {
        if (c.code == code) {
          return c;
        }
      }
      return null;
    }
  }

  /** A replicated value entry. */
  public static LogEntry replica(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      List<String> holders) {
    return coded(
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        holders,
        Coding.REPLICA,
        0,
        List.of());
  }

  /** A value entry stored in {@code coding} (see {@link Coding}), not sealed. */
  public static LogEntry coded(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      List<String> holders,
      Coding coding,
      int k,
      List<byte[]> pieceHashes) {
    return plain(
        Kind.VALUE,
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        holders,
        coding,
        k,
        pieceHashes);
  }

  /**
   * An entry of {@code kind} that is not sealed, has no joined holder and is of incarnation 0 (the
   * entry as a factory makes it; {@link #sealed}, {@link #withJoined} and {@link #withIncarnation}
   * add the rest): the one place the factories call the canonical constructor.
   */
  private static LogEntry plain(
      Kind kind,
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      List<String> holders,
      Coding coding,
      int k,
      List<byte[]> pieceHashes) {
    return new LogEntry(
        kind,
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        holders,
        coding,
        k,
        pieceHashes,
        List.of(),
        List.of(),
        List.of(),
        0,
        NO_BYTES,
        null);
  }

  private static final byte[] NO_BYTES = new byte[0];

  /** The same entry as a value sealed by the client, its key shared among {@code holders}. */
  public LogEntry sealed(List<String> keyHolders, List<byte[]> keyShareHashes) {
    return new LogEntry(
        kind,
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        holders,
        coding,
        k,
        pieceHashes,
        keyHolders,
        keyShareHashes,
        joinedHolders,
        incarnation,
        inline,
        pack);
  }

  /**
   * The same entry as signed by the client incarnation {@code writerIncarnation} (see {@link
   * Version#incarnation()}).
   */
  public LogEntry withIncarnation(long writerIncarnation) {
    return new LogEntry(
        kind,
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        holders,
        coding,
        k,
        pieceHashes,
        shareHolders,
        shareHashes,
        joinedHolders,
        writerIncarnation,
        inline,
        pack);
  }

  /**
   * The same entry with {@code joined} (a subset of the holders) recorded as storing one joined
   * object.
   */
  public LogEntry withJoined(List<String> joined) {
    List<String> ordered = new java.util.ArrayList<>();
    for (String h : holders) {
      if (joined.contains(h)) {
        ordered.add(h);
      }
    }
    if (ordered.size() != new java.util.HashSet<>(joined).size()) {
      throw new IllegalArgumentException(
          "joined holders " + joined + " are not all among the holders " + holders);
    }
    return new LogEntry(
        kind,
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        holders,
        coding,
        k,
        pieceHashes,
        shareHolders,
        shareHashes,
        ordered,
        incarnation,
        inline,
        pack);
  }

  /** Whether {@code holder} stores this parted value as one joined object. */
  public boolean joinedOn(String holder) {
    return joinedHolders.contains(holder);
  }

  /** Whether the value is encrypted by the client with its key shared in the metadata. */
  public boolean isSealed() {
    return !shareHolders.isEmpty();
  }

  /** The SHA-256 of the key share that {@code shareHolders.get(i)} holds, without a copy. */
  public byte[] shareHashUnsafe(int i) {
    return shareHashes.get(i);
  }

  /** Entry kinds; the wire code is {@link #code}. */
  public enum Kind {
    VALUE(1),
    TOMBSTONE(2),
    /**
     * A signed garbage-collection watermark: every version up to and including the one it names
     * (its {@link LogEntry#collectedThrough()}) is collected. The entry's own timestamp only places
     * it in the log; see {@link LogEntry#collected}.
     */
    COLLECTED(3);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    static Kind of(int code) {
      for (Kind k : values()) {
        if (k.code == code) {
          return k;
        }
      }
      return null;
    }
  }

  public LogEntry {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(dataObject, "dataObject");
    if (timestamp < 1) {
      throw new IllegalArgumentException("timestamp must be >= 1");
    }
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0");
    }
    if (sha256 == null || sha256.length != 32) {
      throw new IllegalArgumentException("sha256 must be 32 bytes");
    }
    sha256 = sha256.clone();
    holders = List.copyOf(holders);
    Objects.requireNonNull(coding, "coding");
    pieceHashes = copyHashes(pieceHashes, "piece hashes");
    shareHolders = List.copyOf(shareHolders);
    shareHashes = copyHashes(shareHashes, "share hashes");
    if (shareHashes.size() != shareHolders.size()
        || new java.util.HashSet<>(shareHolders).size() != shareHolders.size()) {
      throw new IllegalArgumentException("one share hash per distinct share holder");
    }
    if (coding == Coding.CODED_PARTS) {
      int h = holders.size();
      if (k < 1
          || k > h
          || pieceHashes.size() % (h + 1) != 0
          || !partsFit(size, pieceHashes.size() / (h + 1))) {
        throw new IllegalArgumentException(
            "coding CODED_PARTS needs 1 <= k <= holders and, for 2 to size parts with no empty"
                + " part, one part hash and one fragment hash per holder per part; got k="
                + k
                + ", "
                + h
                + " holders, "
                + pieceHashes.size()
                + " hashes for "
                + size
                + " bytes");
      }
    } else if (coding == Coding.PARTS) {
      if (k != 0 || !partsFit(size, pieceHashes.size())) {
        throw new IllegalArgumentException(
            "coding PARTS needs k=0 and 2 to size part hashes with no empty part, got "
                + pieceHashes.size()
                + " for "
                + size
                + " bytes");
      }
    } else if (coding == Coding.INLINE || coding == Coding.PACKED) {
      if (kind != Kind.VALUE || k != 0 || !pieceHashes.isEmpty() || !joinedHolders.isEmpty()) {
        throw new IllegalArgumentException(
            "coding " + coding + " is a value's, with no k, piece hashes or joined holders");
      }
    } else if (coding == Coding.REPLICA
        ? (k != 0 || !pieceHashes.isEmpty())
        : (k < 1 || pieceHashes.size() != holders.size())) {
      throw new IllegalArgumentException(
          "coding " + coding + " needs k and one piece hash per holder");
    }
    joinedHolders = List.copyOf(joinedHolders);
    if (!joinedHolders.isEmpty()) {
      if (coding != Coding.PARTS) {
        throw new IllegalArgumentException("only parted values have joined holders");
      }
      int last = -1;
      for (String h : joinedHolders) {
        int at = holders.indexOf(h);
        if (at <= last) {
          throw new IllegalArgumentException(
              "joined holders " + joinedHolders + " must be distinct holders in holder order");
        }
        last = at;
      }
    }
    inline = Objects.requireNonNull(inline, "inline").clone();
    if (coding == Coding.INLINE) {
      long stored = size + (shareHolders.isEmpty() ? 0 : SEALED_PART_OVERHEAD);
      if (!holders.isEmpty() || inline.length != stored || pack != null) {
        throw new IllegalArgumentException(
            "an inline value has no holders and its "
                + stored
                + " stored bytes in the entry, got "
                + inline.length
                + " bytes and "
                + holders.size()
                + " holders");
      }
    } else if (inline.length != 0) {
      throw new IllegalArgumentException("only inline values carry their bytes");
    }
    if (coding == Coding.PACKED) {
      long stored = size + (shareHolders.isEmpty() ? 0 : SEALED_PART_OVERHEAD);
      if (pack == null || holders.isEmpty() || pack.offset() > pack.size() - stored) {
        throw new IllegalArgumentException(
            "a packed value needs holders and a pack that holds its "
                + stored
                + " stored bytes, got "
                + pack);
      }
      if (pack.object().equals(dataObject)) {
        throw new IllegalArgumentException("a pack is not stored under the value's own name");
      }
    } else if (pack != null) {
      throw new IllegalArgumentException("only packed values name a pack");
    }
    if (kind == Kind.COLLECTED) {
      // The watermark names a version: its writer tag (writer id, and its incarnation unless 0)
      // in dataObject, its timestamp in size.
      if (size < 1 || !holders.isEmpty() || coding != Coding.REPLICA || !shareHolders.isEmpty()) {
        throw new IllegalArgumentException(
            "a collected watermark needs a timestamp >= 1 and no holders or coding");
      }
      Version.parse(size + "@" + dataObject);
    }
  }

  /**
   * A garbage-collection watermark placed at {@code timestamp} in the signing writer's log: every
   * version of every writer up to and including {@code through} is collected. The version is
   * carried in the existing entry fields (writer in {@code dataObject}, timestamp in {@code size})
   * so the wire format only gains an entry kind.
   */
  public static LogEntry collected(long timestamp, long createdAtMillis, Version through) {
    return plain(
        Kind.COLLECTED,
        timestamp,
        createdAtMillis,
        through.writerTag(),
        through.timestamp(),
        new byte[32],
        List.of(),
        Coding.REPLICA,
        0,
        List.of());
  }

  /** For a {@link Kind#COLLECTED} entry, the newest collected version; otherwise null. */
  public Version collectedThrough() {
    return kind == Kind.COLLECTED ? Version.parse(size + "@" + dataObject) : null;
  }

  /** Whether {@code count} parts of {@code ceil(size / count)} bytes leave the last non-empty. */
  public static boolean partsFit(long size, long count) {
    if (count < 2 || count > size) {
      return false;
    }
    long length = ceilDiv(size, count);
    return (count - 1) * length < size;
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /** A parted value entry. */
  public static LogEntry parts(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      List<String> holders,
      List<byte[]> partHashes) {
    return coded(
        timestamp, createdAtMillis, dataObject, size, sha256, holders, Coding.PARTS, 0, partHashes);
  }

  /**
   * A value in coded parts: each stored part (sealed or not) coded into k data and {@code
   * holders.size() - k} parity fragments, holder i storing fragment i of every part. {@code
   * partHashes} are the stored parts' hashes, {@code fragmentHashes[j][i]} the hash of fragment i
   * of part j.
   */
  public static LogEntry codedParts(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      List<String> holders,
      int k,
      List<byte[]> partHashes,
      List<List<byte[]>> fragmentHashes) {
    List<byte[]> all = new java.util.ArrayList<>(partHashes);
    for (List<byte[]> part : fragmentHashes) {
      if (part.size() != holders.size()) {
        throw new IllegalArgumentException("one fragment hash per holder per part");
      }
      all.addAll(part);
    }
    if (fragmentHashes.size() != partHashes.size()) {
      throw new IllegalArgumentException("fragment hashes for every part");
    }
    return coded(
        timestamp, createdAtMillis, dataObject, size, sha256, holders, Coding.CODED_PARTS, k, all);
  }

  /** Whether the value is stored in parts ({@link Coding#PARTS} or {@link Coding#CODED_PARTS}). */
  public boolean isParted() {
    return coding == Coding.PARTS || coding == Coding.CODED_PARTS;
  }

  /**
   * Where a packed value's stored bytes lie: in the pack object {@code object} of {@code size}
   * bytes (the stored bytes of several values concatenated) whose SHA-256 is {@code sha256}, from
   * byte {@code offset} for the value's {@link LogEntry#storedSize()} bytes. The pack's own size
   * and hash let verify and repair check and copy a whole pack like a replica.
   */
  public record Pack(String object, long size, byte[] sha256, long offset) {
    public Pack {
      Objects.requireNonNull(object, "object");
      if (object.isEmpty() || size < 1 || offset < 0 || offset >= size) {
        throw new IllegalArgumentException(
            "a pack needs a name, size >= 1 and an offset inside it, got "
                + object
                + " of "
                + size
                + " bytes at "
                + offset);
      }
      if (sha256 == null || sha256.length != 32) {
        throw new IllegalArgumentException("pack sha256 must be 32 bytes");
      }
      sha256 = sha256.clone();
    }

    @Override
    public byte[] sha256() {
      return sha256.clone();
    }

    /** The hash without a copy, for internal checks only. */
    public byte[] sha256Unsafe() {
      return sha256;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Pack p
          && object.equals(p.object)
          && size == p.size
          && Arrays.equals(sha256, p.sha256)
          && offset == p.offset;
    }

    @Override
    public int hashCode() {
      return Objects.hash(object, size, offset, Arrays.hashCode(sha256));
    }

    @Override
    public String toString() {
      return "Pack[" + object + ", " + size + " bytes, at " + offset + "]";
    }
  }

  /**
   * An inline value entry: {@code stored} are the bytes the log carries (for a value sealed by the
   * client, the sealed bytes, its key shared among {@code keyHolders} whose share hashes are {@code
   * keyShareHashes}, both empty otherwise; {@code size} is the plain size), {@code sha256} their
   * hash, {@code dataObject} the value's fresh name, under which nothing is stored. Sealed here
   * rather than by {@link #sealed}, because the stored length depends on it.
   */
  public static LogEntry inline(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      byte[] stored,
      List<String> keyHolders,
      List<byte[]> keyShareHashes) {
    return new LogEntry(
        Kind.VALUE,
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        List.of(),
        Coding.INLINE,
        0,
        List.of(),
        keyHolders,
        keyShareHashes,
        List.of(),
        0,
        stored,
        null);
  }

  /**
   * This inline entry as packed: its stored bytes at {@code pack}, which {@code packHolders} (f+1
   * or more clouds that acknowledged the pack) store whole. Every other component (timestamp,
   * incarnation, creation time, name, size, hash, key shares) is kept: the same version, naming
   * byte-identical stored bytes.
   */
  public LogEntry packed(Pack pack, List<String> packHolders) {
    if (coding != Coding.INLINE) {
      throw new IllegalArgumentException("only an inline value is packed, not " + coding);
    }
    return new LogEntry(
        kind,
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        packHolders,
        Coding.PACKED,
        0,
        List.of(),
        shareHolders,
        shareHashes,
        List.of(),
        incarnation,
        NO_BYTES,
        pack);
  }

  /** Whether this is the packed form of {@code inlineEntry} (the same version, same bytes). */
  public boolean packs(LogEntry inlineEntry) {
    return coding == Coding.PACKED
        && inlineEntry.coding == Coding.INLINE
        && inlineEntry.packed(pack, holders).equals(this);
  }

  /** The inline stored bytes, without a copy, for internal use only. */
  public byte[] inlineUnsafe() {
    return inline;
  }

  @Override
  public byte[] inline() {
    return inline.clone();
  }

  /** Number of parts: 1 for an unsplit value. */
  public int partCount() {
    return switch (coding) {
      case PARTS -> pieceHashes.size();
      case CODED_PARTS -> pieceHashes.size() / (holders.size() + 1);
      default -> 1;
    };
  }

  /** The signed SHA-256 of stored part {@code j} of a parted value, without a copy. */
  public byte[] partHashUnsafe(int j) {
    if (!isParted()) {
      throw new IllegalStateException("not a parted value");
    }
    return pieceHashes.get(j);
  }

  /**
   * The signed SHA-256 of fragment {@code i} (the one {@code holders.get(i)} stores) of part {@code
   * j} of a value in coded parts, without a copy.
   */
  public byte[] fragmentHashUnsafe(int j, int i) {
    if (coding != Coding.CODED_PARTS) {
      throw new IllegalStateException("not a value in coded parts");
    }
    return pieceHashes.get(partCount() + j * holders.size() + i);
  }

  /** Length of every part but the last (the whole size for an unsplit value). */
  public long partLength() {
    return isParted() ? ceilDiv(size, partCount()) : size;
  }

  /** Offset of part {@code i} in the value. */
  public long partOffset(int i) {
    return i * partLength();
  }

  /** Length of part {@code i}. */
  public long partSize(int i) {
    return Math.min(partLength(), size - partOffset(i));
  }

  /**
   * Bytes of the stored form of an unsplit value: the value itself, or for a sealed value (the
   * confidentiality option) the sealed value, {@link io.rafestore.internal.codec.Aead#OVERHEAD}
   * bytes longer. Its SHA-256 is {@link #sha256()}. (A DepSky-CA value's pieces carry their own
   * sealing, which its layout accounts for.)
   */
  public long storedSize() {
    return size + (isSealed() ? SEALED_PART_OVERHEAD : 0);
  }

  /**
   * Bytes a holder stores for part {@code i}: the part itself, or for a sealed value (the
   * confidentiality option) the part sealed on its own, {@link
   * io.rafestore.internal.codec.Aead#OVERHEAD} bytes longer. For an unsplit value, the whole stored
   * object's size is not recorded and this is the plain size.
   */
  public long storedPartSize(int i) {
    return storedPartSize(partSize(i), isParted() && isSealed());
  }

  /**
   * The stored size of a part of {@code plainSize} bytes: the layout rule, shared with the writer
   * of a parted value (the layout package), which has no entry yet when it uploads.
   */
  public static long storedPartSize(long plainSize, boolean sealed) {
    return plainSize + (sealed ? SEALED_PART_OVERHEAD : 0);
  }

  /** Offset of part {@code i} in a joined object of parts of {@code partLength} plain bytes. */
  public static long storedPartOffset(long partLength, int i, boolean sealed) {
    return i * storedPartSize(partLength, sealed);
  }

  /** Offset of part {@code i} in the concatenation of the stored parts (a joined object). */
  public long storedPartOffset(int i) {
    return storedPartOffset(partLength(), i, isParted() && isSealed());
  }

  /** What sealing adds to each part: a nonce and a tag. */
  public static final long SEALED_PART_OVERHEAD = io.rafestore.internal.codec.Aead.OVERHEAD;

  /** The object name of part {@code i} of a value stored under {@code dataObject}. */
  public static String partObject(String dataObject, int i) {
    // Writer ids and nonces never contain '.', so ".p<i>" cannot collide with another value's
    // name, and parts are siblings of nothing stored under the base name (no directory prefix).
    return dataObject + ".p" + i;
  }

  /**
   * Every object this entry's value may occupy on any cloud: for a parted value the part objects
   * and the joined object's name, since a native upload that completed on a cloud the write then
   * dropped (a cancelled slow upload) leaves a joined object whichever layout the holders have.
   * What garbage collection deletes and orphan collection keeps.
   */
  public List<String> allDataObjects() {
    if (coding == Coding.CODED_PARTS || coding == Coding.INLINE || coding == Coding.PACKED) {
      // Coded parts: no native multipart upload for fragments, part objects only. Inline: none;
      // packed: the pack.
      return dataObjects();
    }
    if (coding != Coding.PARTS) {
      return List.of(dataObject);
    }
    List<String> out = new java.util.ArrayList<>(dataObjects());
    out.add(dataObject);
    return out;
  }

  /** The objects holder {@code holder} stores this value in: the joined object, or the parts. */
  public List<String> dataObjectsOn(String holder) {
    return joinedOn(holder) ? List.of(dataObject) : dataObjects();
  }

  /** Every part object of this entry's value (the data object itself for an unsplit value). */
  public List<String> dataObjects() {
    if (coding == Coding.INLINE) {
      return List.of();
    }
    if (coding == Coding.PACKED) {
      return List.of(pack.object());
    }
    if (!isParted()) {
      return List.of(dataObject);
    }
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < partCount(); i++) {
      out.add(partObject(dataObject, i));
    }
    return out;
  }

  /** A deep, immutable copy of a list of SHA-256 hashes, each checked to be 32 bytes. */
  private static List<byte[]> copyHashes(List<byte[]> hashes, String what) {
    List<byte[]> out = new java.util.ArrayList<>();
    for (byte[] h : hashes) {
      if (h == null || h.length != 32) {
        throw new IllegalArgumentException(what + " must be 32 bytes");
      }
      out.add(h.clone());
    }
    return List.copyOf(out);
  }

  @Override
  public List<byte[]> shareHashes() {
    return copyHashes(shareHashes, "share hashes");
  }

  @Override
  public List<byte[]> pieceHashes() {
    return copyHashes(pieceHashes, "piece hashes");
  }

  /** The hash of the piece on {@code holders.get(i)}, without a copy, for internal checks. */
  public byte[] pieceHashUnsafe(int i) {
    return pieceHashes.get(i);
  }

  /** A tombstone at {@code timestamp}. */
  public static LogEntry tombstone(long timestamp, long createdAtMillis) {
    return plain(
        Kind.TOMBSTONE,
        timestamp,
        createdAtMillis,
        "",
        0,
        new byte[32],
        List.of(),
        Coding.REPLICA,
        0,
        List.of());
  }

  @Override
  public byte[] sha256() {
    return sha256.clone();
  }

  /** The hash without a copy, for internal comparisons only. */
  public byte[] sha256Unsafe() {
    return sha256;
  }

  /** The version this entry names, given its log's writer. */
  public Version version(String writer) {
    return new Version(timestamp, writer, incarnation);
  }

  /**
   * What names an entry within its writer's logs: its timestamp and incarnation (the {@link
   * Version} without the writer). Key shares in envelopes are named by it.
   */
  public record Id(long timestamp, long incarnation) implements Comparable<Id> {
    @Override
    public int compareTo(Id o) {
      int c = Long.compare(timestamp, o.timestamp);
      return c != 0 ? c : Long.compare(incarnation, o.incarnation);
    }

    @Override
    public String toString() {
      return incarnation == 0 ? Long.toString(timestamp) : timestamp + "." + incarnation;
    }
  }

  /** This entry's {@link Id}. */
  public Id id() {
    return new Id(timestamp, incarnation);
  }

  /** Orders a log's entries: by timestamp, then incarnation (as {@link Version} does). */
  static int order(LogEntry a, LogEntry b) {
    int c = Long.compare(a.timestamp, b.timestamp);
    return c != 0 ? c : Long.compare(a.incarnation, b.incarnation);
  }

  public VersionInfo info(String key, String writer) {
    return new VersionInfo(
        key, version(writer), size, sha256, holders, Instant.ofEpochMilli(createdAtMillis));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LogEntry e
        && kind == e.kind
        && timestamp == e.timestamp
        && createdAtMillis == e.createdAtMillis
        && dataObject.equals(e.dataObject)
        && size == e.size
        && Arrays.equals(sha256, e.sha256)
        && holders.equals(e.holders)
        && coding == e.coding
        && k == e.k
        && sameHashes(pieceHashes, e.pieceHashes)
        && shareHolders.equals(e.shareHolders)
        && sameHashes(shareHashes, e.shareHashes)
        && joinedHolders.equals(e.joinedHolders)
        && incarnation == e.incarnation
        && Arrays.equals(inline, e.inline)
        && Objects.equals(pack, e.pack);
  }

  private static boolean sameHashes(List<byte[]> a, List<byte[]> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!Arrays.equals(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        kind, timestamp, incarnation, dataObject, size, Arrays.hashCode(sha256), holders);
  }
}
