package io.rafestore.internal.protocol.layout;

import io.rafestore.CloudFault;
import io.rafestore.IntegrityException;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MalformedMetadataException;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The confidentiality option of the RafeStore modes: values sealed with AES-256-GCM before writeDo,
 * their keys kept only as Shamir shares (threshold f+1) in the clouds' metadata objects.
 *
 * <p>Where each share lives: cloud {@code shareHolders.get(i)} of a sealed entry keeps the share at
 * x = i + 1 in the envelope around the writer's signed log ({@link MetadataCodec#envelope}); the
 * signed entry holds the SHA-256 of every share, so a share is accepted only from the cloud it was
 * made for and only if its hash matches. Any f clouds hold f shares, which determine nothing of the
 * key; the data clouds hold only ciphertext.
 *
 * <p>Why a read finds f+1 shares: the write completed after n - f clouds stored the envelope, at
 * least f+1 of them correct; they keep the share as long as the entry is in the writer's log.
 * readM's n - f replies usually bring f+1 valid shares already; otherwise {@link #recoverKey} asks
 * the other clouds for the writer's metadata object until f+1 valid shares are in.
 *
 * <p>Rewriting a log (the next write, a tombstone) must not lose older entries' shares: each
 * cloud's new envelope carries, for every sealed entry of the log, the share of that cloud, taken
 * from this client's memory of the shares it made, from that cloud's own previous envelope, or
 * recomputed from any f+1 valid shares ({@link Shamir#shareAt}: f+1 points fix the polynomial, so
 * the lost share is restored exactly and matches its signed hash).
 */
public final class KeyShares {
  private KeyShares() {}

  /** A sealed value: what writeDo uploads, and one share per metadata cloud. */
  public record Sealed(
      String dataObject,
      byte[] bytes,
      List<String> holders,
      Map<String, byte[]> shares,
      List<byte[]> hashes) {
    /** The entry for these sealed bytes, with the share hashes in holder order. */
    public LogEntry mark(LogEntry plain) {
      return plain.sealed(holders, hashes);
    }
  }

  /**
   * Seals {@code value} for {@code dataObject}: a fresh key, AES-GCM with the key, writer and
   * object name as associated data (so sealed bytes cannot be replayed under another name), and n
   * shares of the key, threshold f+1.
   */
  public static Sealed seal(Context ctx, String key, ObjectKey dataObject, byte[] value) {
    byte[] aesKey = Aead.newKey();
    try {
      byte[] sealed =
          Aead.withKey(aesKey)
              .encrypt(value, associatedData(key, ctx.settings.writerId(), dataObject.value()));
      return split(ctx, dataObject, aesKey, sealed);
    } finally {
      java.util.Arrays.fill(aesKey, (byte) 0);
    }
  }

  /** The n shares (threshold f+1) of {@code aesKey}, one per cloud in configuration order. */
  private static Sealed split(Context ctx, ObjectKey dataObject, byte[] aesKey, byte[] sealed) {
    List<Shamir.Share> split = Shamir.split(aesKey, ctx.clouds.size(), ctx.f() + 1);
    List<String> holders = new ArrayList<>();
    Map<String, byte[]> shares = new LinkedHashMap<>();
    List<byte[]> hashes = new ArrayList<>();
    for (int i = 0; i < ctx.clouds.size(); i++) {
      String id = ctx.clouds.get(i).id();
      byte[] enc = split.get(i).toBytes();
      holders.add(id);
      shares.put(id, enc);
      hashes.add(Sha256.hash(enc));
    }
    return new Sealed(dataObject.value(), sealed, holders, shares, hashes);
  }

  /**
   * A value sealed part by part (a large or streamed value under the confidentiality option): one
   * fresh key for the whole value, shared as for a whole value; each part sealed on its own with
   * its index and the part count in the associated data, so a part cannot be moved to another
   * index, another value or a value cut short. A part's stored form is {@link Aead#OVERHEAD} bytes
   * longer than the part ({@link LogEntry#storedPartSize}). Thread-safe (Aead is).
   */
  static final class PartSealer {
    private final Sealed shares;
    private final Aead aead;
    private final String key;
    private final String writer;
    private final int count;

    private PartSealer(Sealed shares, Aead aead, String key, String writer, int count) {
      this.shares = shares;
      this.aead = aead;
      this.key = key;
      this.writer = writer;
      this.count = count;
    }

    /** The key's shares, for writeM (the sealed bytes are the parts, not held here). */
    Sealed shares() {
      return shares;
    }

    /** The stored form of part {@code i}. */
    public byte[] seal(int i, byte[] part) {
      return aead.encrypt(part, partAssociatedData(key, writer, shares.dataObject(), i, count));
    }
  }

  /** A fresh key for a value of {@code count} parts stored under {@code dataObject}. */
  static PartSealer sealParts(Context ctx, String key, ObjectKey dataObject, int count) {
    byte[] aesKey = Aead.newKey();
    try {
      return new PartSealer(
          split(ctx, dataObject, aesKey, null),
          Aead.withKey(aesKey),
          key,
          ctx.settings.writerId(),
          count);
    } finally {
      java.util.Arrays.fill(aesKey, (byte) 0);
    }
  }

  /**
   * Opens stored part {@code i} of sealed entry {@code e} of {@code writer}, checking its plain
   * length too.
   *
   * @throws IntegrityException if the part does not authenticate under the recovered key (the part
   *     hash matched, so the writer sealed it under another key or the shares were forged)
   */
  public static byte[] openPart(
      Aead aead, String key, String writer, LogEntry e, int i, byte[] stored)
      throws IntegrityException {
    try {
      byte[] plain =
          aead.decrypt(stored, partAssociatedData(key, writer, e.dataObject(), i, e.partCount()));
      if (plain.length != e.partSize(i)) {
        throw new MalformedInputException(
            "part " + i + " decrypted to " + plain.length + " bytes, signed " + e.partSize(i));
      }
      return plain;
    } catch (MalformedInputException ex) {
      throw new IntegrityException(
          "cannot decrypt part "
              + i
              + " of '"
              + key
              + "' version "
              + e.version(writer)
              + ": "
              + ex.getMessage(),
          List.of());
    }
  }

  /** {@link #associatedData} followed by the part's index and the value's part count. */
  public static byte[] partAssociatedData(
      String key, String writer, String dataObject, int part, int count) {
    byte[] base = associatedData(key, writer, dataObject);
    return ByteBuffer.allocate(base.length + 8).put(base).putInt(part).putInt(count).array();
  }

  /** Binds a sealed value to its key, writer and data object name. */
  public static byte[] associatedData(String key, String writer, String dataObject) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] w = writer.getBytes(StandardCharsets.US_ASCII);
    byte[] o = dataObject.getBytes(StandardCharsets.US_ASCII);
    return ByteBuffer.allocate(4 + k.length + 4 + w.length + o.length)
        .putInt(k.length)
        .put(k)
        .putInt(w.length)
        .put(w)
        .put(o)
        .array();
  }

  /** Remembers the shares of a committed entry, so the next log rewrite can carry them. */
  public static void remember(Context ctx, LogEntry entry, Map<String, byte[]> shares) {
    ctx.shareMemory.remember(entry.dataObject(), shares);
  }

  /**
   * What each cloud stores for the signed log {@code signed} of {@code next}: the plain signed log
   * if no entry is sealed, else an envelope with that cloud's share of every sealed entry that can
   * be found or restored ({@code fresh}: the entry being added and its shares, or null).
   */
  public static Function<Cloud, byte[]> payloads(
      Context ctx, View view, MetadataLog next, byte[] signed, KeyShares.Sealed fresh) {
    List<LogEntry> sealed = new ArrayList<>();
    for (LogEntry e : next.entries()) {
      if (e.isSealed()) {
        sealed.add(e);
      }
    }
    if (sealed.isEmpty()) {
      return c -> signed;
    }
    Map<String, SortedMap<LogEntry.Id, byte[]>> byCloud = new HashMap<>();
    for (LogEntry e : sealed) {
      Map<String, byte[]> known =
          fresh != null && e.dataObject().equals(fresh.dataObject())
              ? fresh.shares()
              : ctx.shareMemory.sharesOf(e.dataObject());
      List<Shamir.Share> valid = null;
      for (int i = 0; i < e.shareHolders().size(); i++) {
        String cloud = e.shareHolders().get(i);
        byte[] share = known.get(cloud);
        if (share == null) {
          share = validShare(view, next.writer(), e, i);
        }
        if (share == null) {
          if (valid == null) {
            valid = validShares(view, next.writer(), e, known);
          }
          if (valid.size() >= ctx.f() + 1) {
            byte[] restored = Shamir.shareAt(valid, i + 1).toBytes();
            share = Sha256.matches(restored, e.shareHashUnsafe(i)) ? restored : null;
          }
        }
        if (share != null) {
          byCloud.computeIfAbsent(cloud, c -> new TreeMap<>()).put(e.id(), share);
        }
      }
    }
    Map<String, byte[]> envelopes = new HashMap<>();
    for (Cloud c : ctx.clouds) {
      envelopes.put(
          c.id(), MetadataCodec.envelope(signed, byCloud.getOrDefault(c.id(), new TreeMap<>())));
    }
    return c -> envelopes.get(c.id());
  }

  /** Cloud {@code shareHolders.get(i)}'s share of {@code e} as readM brought it, if valid. */
  private static byte[] validShare(View view, String writer, LogEntry e, int i) {
    byte[] share =
        view.shares
            .getOrDefault(e.shareHolders().get(i), Map.of())
            .getOrDefault(writer, Map.of())
            .get(e.id());
    return share != null && Sha256.matches(share, e.shareHashUnsafe(i)) ? share : null;
  }

  /** Every valid share of {@code e} known from {@code known} and the view. */
  private static List<Shamir.Share> validShares(
      View view, String writer, LogEntry e, Map<String, byte[]> known) {
    List<Shamir.Share> out = new ArrayList<>();
    for (int i = 0; i < e.shareHolders().size(); i++) {
      byte[] share = known.get(e.shareHolders().get(i));
      if (share == null || !Sha256.matches(share, e.shareHashUnsafe(i))) {
        share = validShare(view, writer, e, i);
      }
      Shamir.Share parsed = share == null ? null : parse(share, i);
      if (parsed != null) {
        out.add(parsed);
      }
    }
    return out;
  }

  /** A share's encoding parsed, if it is well formed and at the x its position demands. */
  private static Shamir.Share parse(byte[] encoding, int index) {
    try {
      Shamir.Share s = Shamir.Share.parse(encoding);
      return s.x() == index + 1 && s.y().length == Aead.KEY_BYTES ? s : null;
    } catch (MalformedInputException e) {
      return null;
    }
  }

  /**
   * The key of sealed entry {@code e} of {@code writer}: from the shares readM brought, and if
   * fewer than f+1 of them are valid, from the metadata objects of the clouds not yet heard from
   * (fetched at once, in parallel); fails with {@link IntegrityException} when every cloud answered
   * and fewer than f+1 valid shares exist.
   */
  public static CompletableFuture<byte[]> recoverKey(
      Context ctx, String key, View view, String writer, LogEntry e) {
    int k = ctx.f() + 1;
    List<Shamir.Share> valid = new ArrayList<>();
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < e.shareHolders().size(); i++) {
      byte[] share = validShare(view, writer, e, i);
      Shamir.Share parsed = share == null ? null : parse(share, i);
      if (parsed != null) {
        valid.add(parsed);
      } else {
        missing.add(i);
      }
    }
    if (valid.size() >= k) {
      return CompletableFuture.completedFuture(Shamir.combine(valid.subList(0, k)));
    }
    return new MoreShares(ctx, key, writer, e, valid, missing).start();
  }

  /** Whether {@code log} holds {@code e} (the same signed entry: same id). */
  private static boolean carries(MetadataLog log, LogEntry e) {
    for (LogEntry x : log.entries()) {
      if (x.id().equals(e.id())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Every cloud answered and fewer than f+1 valid shares of the entry exist. With at most f faulty
   * clouds a completed write cannot end so (its log is on n - f clouds, at least f+1 of them
   * correct, each with its share in its envelope, and a rewrite never drops a share), so the
   * entry's write has not completed (it is in flight, or its writer crashed during writeM), or the
   * version was collected meanwhile, or more than f clouds are faulty: in each case a read of the
   * latest value may return an older version instead ({@code ReadOp}).
   */
  public static final class TooFewShares extends IntegrityException {
    private static final long serialVersionUID = 1L;

    TooFewShares(String message, List<CloudFault> faults) {
      super(message, faults);
    }
  }

  /** Asks clouds whose share readM did not bring for the writer's metadata object. */
  private static final class MoreShares {
    private final Context ctx;
    private final String key;
    private final String writer;
    private final LogEntry entry;
    private final List<Shamir.Share> valid;
    private final List<Integer> asked;
    private final List<CloudFault> faults = new ArrayList<>();
    private final List<CompletableFuture<byte[]>> inflight = new ArrayList<>();
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private int answered;

    MoreShares(
        Context ctx,
        String key,
        String writer,
        LogEntry entry,
        List<Shamir.Share> valid,
        List<Integer> asked) {
      this.ctx = ctx;
      this.key = key;
      this.writer = writer;
      this.entry = entry;
      this.valid = new ArrayList<>(valid);
      this.asked = asked;
    }

    CompletableFuture<byte[]> start() {
      Futures.onEnd(result, (r, e) -> cancelAll());
      ObjectKey object = Names.metadataObject(key, writer);
      Optional<ByteRange> bound =
          Optional.of(ByteRange.of(0, ctx.settings.maxMetadataBytes() + 1L));
      if (asked.isEmpty()) {
        fail();
        return result;
      }
      for (int i : asked) {
        String id = entry.shareHolders().get(i);
        Cloud c = ctx.byId.get(id);
        if (c == null) {
          onAnswer(i, id, null, new IllegalStateException("cloud not configured here"));
          continue;
        }
        CompletableFuture<byte[]> get = c.driver().get(object, bound);
        synchronized (this) {
          inflight.add(get);
        }
        get.handleAsync(
            (bytes, error) -> {
              onAnswer(i, id, bytes, error);
              return null;
            },
            ctx.settings.executor());
      }
      return result;
    }

    private void onAnswer(int index, String cloud, byte[] bytes, Throwable error) {
      Shamir.Share share = null;
      String problem = null;
      boolean stale = false;
      if (error != null) {
        if (Futures.isCancellation(Futures.unwrap(error))) {
          return;
        }
        problem = "key share: " + Futures.unwrap(error).getMessage();
      } else {
        try {
          MetadataCodec.Envelope env =
              ctx.codec.decodeEnvelope(
                  bytes, key, writer, ctx.trust.keyOf(writer), ctx.settings.maxMetadataBytes());
          if (!carries(env.log(), entry)) {
            // A log without the entry: the write has not reached this cloud yet (it is in flight,
            // or its writer crashed before), or the version was collected since readM. No fault
            // of the cloud's, and no share to be had from it.
            stale = true;
            problem = "its log does not carry version " + entry.version(writer);
          } else {
            byte[] enc = env.shares().get(entry.id());
            if (enc != null && Sha256.matches(enc, entry.shareHashUnsafe(index))) {
              share = parse(enc, index);
            }
            if (share == null) {
              problem = "no valid key share for version " + entry.version(writer);
            }
          }
        } catch (MalformedMetadataException e) {
          problem = "key share: " + e.getMessage();
        }
      }
      CloudFault fault =
          problem == null
              ? null
              : new CloudFault(
                  cloud,
                  stale ? CloudFault.Kind.STALE_METADATA : CloudFault.Kind.CORRUPT_DATA,
                  problem);
      if (fault != null && !stale) {
        ctx.report(key, fault);
      }
      byte[] secret = null;
      boolean exhausted;
      synchronized (this) {
        if (result.isDone()) {
          return;
        }
        answered++;
        if (share != null) {
          valid.add(share);
        } else {
          faults.add(fault);
        }
        if (valid.size() == ctx.f() + 1) {
          secret = Shamir.combine(valid);
        }
        exhausted = secret == null && answered == asked.size();
      }
      if (secret != null) {
        result.complete(secret);
      } else if (exhausted) {
        fail();
      }
    }

    private void fail() {
      List<CloudFault> copy;
      int have;
      synchronized (this) {
        copy = List.copyOf(faults);
        have = valid.size();
      }
      result.completeExceptionally(
          new TooFewShares(
              "only "
                  + have
                  + " of the "
                  + (ctx.f() + 1)
                  + " key shares needed to decrypt '"
                  + key
                  + "' version "
                  + entry.version(writer)
                  + " are valid",
              copy));
    }

    private void cancelAll() {
      List<CompletableFuture<byte[]>> copy;
      synchronized (this) {
        copy = new ArrayList<>(inflight);
        inflight.clear();
      }
      for (CompletableFuture<byte[]> f : copy) {
        f.cancel(true);
      }
    }
  }
}
