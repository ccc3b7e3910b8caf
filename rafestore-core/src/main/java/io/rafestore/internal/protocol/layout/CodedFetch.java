package io.rafestore.internal.protocol.layout;

import io.rafestore.CloudFault;
import io.rafestore.IntegrityException;
import io.rafestore.Scheduler;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.selection.MeasuredCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a coded value. Each piece is checked against its signed SHA-256 on arrival; as soon as k
 * valid pieces are in, the fragments are decoded and the result checked against the signed value
 * hash. Pieces that fail are reported; requests still out are cancelled.
 *
 * <ul>
 *   <li>DepSky-CA ({@link DepSkyLayout}): as DepSky, every holder is asked at once; a piece is a
 *       key share followed by a fragment of the ciphertext, and the key rebuilt from k shares
 *       decrypts the decoded ciphertext.
 *   <li>Reed-Solomon ({@link ReedSolomonLayout}, RafeStore's erasure-coded mode): only the k
 *       holders predicted to deliver a piece soonest are asked, counting the bytes already on their
 *       links ({@link Spread}: the read's own other parts, and other requests the model knows of);
 *       a failed or invalid piece brings in the next holder at once, and a late one (twice its
 *       predicted time) a hedge. The decoded bytes are the stored value (sealed, with the
 *       confidentiality option, and then opened by {@link SealedLayout}).
 * </ul>
 */
final class CodedFetch {
  private final Context ctx;
  private final String key;
  private final VersionInfo info;
  private final LogEntry entry;
  private final ObjectKey object;
  private final CompletableFuture<StoredValue> result = Futures.newFuture();
  private final List<CompletableFuture<byte[]>> inflight = new ArrayList<>();
  private final List<CloudFault> faults = new ArrayList<>();
  private final byte[][] fragments;
  private final List<Shamir.Share> shares = new ArrayList<>();
  private final List<String> servers = new ArrayList<>();
  private final boolean depSky;

  /** The signed hash of the piece holder i stores. */
  private final java.util.function.IntFunction<byte[]> pieceHash;

  /** Bytes the fragments decode to, and the signed hash those bytes must have. */
  private final long codedLength;

  private final byte[] decodedHash;

  /** About the bytes one holder serves (for its predicted time). */
  private final long pieceBytes;

  /** Holder indexes in the order they are asked. */
  private final List<Integer> order = new ArrayList<>();

  /** Where the read this fetch belongs to has placed its requests (its parts', for a part). */
  private final Spread spread;

  private int launched;
  private int answered;
  private Scheduler.Cancellable hedge;

  private CodedFetch(
      Context ctx,
      String key,
      VersionInfo info,
      LogEntry entry,
      boolean depSky,
      ObjectKey object,
      java.util.function.IntFunction<byte[]> pieceHash,
      long codedLength,
      byte[] decodedHash,
      Spread spread) {
    this.ctx = ctx;
    this.key = key;
    this.info = info;
    this.entry = entry;
    this.object = object;
    this.fragments = new byte[entry.holders().size()][];
    this.depSky = depSky;
    this.pieceHash = pieceHash;
    this.codedLength = codedLength;
    this.decodedHash = decodedHash;
    this.pieceBytes = codedLength / Math.max(1, entry.k()) + 1;
    this.spread = spread == null ? new Spread(ctx, entry) : spread;
    List<Integer> indexes = new ArrayList<>();
    for (int i = 0; i < entry.holders().size(); i++) {
      indexes.add(i);
    }
    if (!depSky) {
      // The k holders predicted to deliver their fragment soonest, counting the bytes the read
      // already has on each (Spread), are asked first; holders not configured last.
      List<String> planned = this.spread.plan(pieceBytes);
      indexes.sort(
          java.util.Comparator.comparingInt(
              i -> {
                int at = planned.indexOf(entry.holders().get(i));
                return at < 0 ? Integer.MAX_VALUE : at;
              }));
    }
    order.addAll(indexes);
  }

  /**
   * Reads {@code entry}'s coded value; {@code depSky} for DepSky-CA pieces (share and fragment, all
   * holders asked, the value opened with the key the shares rebuild), else Reed-Solomon fragments
   * of the stored value, whose size {@code info} gives.
   */
  static CompletableFuture<StoredValue> run(
      Context ctx, String key, VersionInfo info, LogEntry entry, boolean depSky) {
    CodedFetch f =
        new CodedFetch(
            ctx,
            key,
            info,
            entry,
            depSky,
            ObjectKey.of(entry.dataObject()),
            entry::pieceHashUnsafe,
            depSky ? info.size() + Aead.OVERHEAD : info.size(),
            info.sha256(),
            null);
    Futures.onEnd(f.result, (r, e) -> f.cancelAll());
    f.start();
    return f.result;
  }

  /**
   * Stored part {@code j} of a value in coded parts ({@link LogEntry.Coding#CODED_PARTS}): its
   * fragments fetched from the k holders predicted to deliver them soonest given what the read's
   * other parts already asked of them ({@code spread}, shared by the parts of one read; null for a
   * part read on its own), the next holder on a bad or late one, each fragment checked against its
   * signed hash, decoded, and the decoded part checked against the part's signed hash before it is
   * returned.
   */
  static CompletableFuture<DataFetch.Fetched> part(
      Context ctx, String key, VersionInfo info, LogEntry entry, int j, Spread spread) {
    CodedFetch f =
        new CodedFetch(
            ctx,
            key,
            info,
            entry,
            false,
            ObjectKey.of(LogEntry.partObject(entry.dataObject(), j)),
            i -> entry.fragmentHashUnsafe(j, i),
            entry.storedPartSize(j),
            entry.partHashUnsafe(j),
            spread);
    Futures.onEnd(f.result, (r, e) -> f.cancelAll());
    f.start();
    // Relayed, so that cancelling the part's fetch cancels the fragment requests.
    return io.rafestore.spi.support.Futures.relay(
        f.result, v -> new DataFetch.Fetched(v.value(), v.servedBy()));
  }

  private void start() {
    int first = depSky ? order.size() : entry.k();
    for (int i = 0; i < first; i++) {
      launchNext();
    }
  }

  /** Asks the next holder in order, if any is left and the read is not over. */
  private void launchNext() {
    int index;
    synchronized (this) {
      if (result.isDone() || launched >= order.size()) {
        return;
      }
      index = order.get(launched++);
    }
    String id = entry.holders().get(index);
    Cloud c = ctx.byId.get(id);
    if (c == null) {
      onPiece(index, id, null, new IllegalStateException("not configured"));
      return;
    }
    // Placed on the read's spread until it ends, and counted by the model as bytes in flight, so
    // that the read's next parts, and other reads, see this holder's link busy.
    Duration predicted = spread.place(id, pieceBytes);
    CompletableFuture<byte[]> get;
    try {
      get = MeasuredCloud.get(c.driver(), object, Optional.empty(), pieceBytes);
    } catch (RuntimeException e) {
      get = CompletableFuture.failedFuture(e);
    }
    Futures.onEnd(get, (b, e) -> spread.release(id, pieceBytes));
    synchronized (this) {
      inflight.add(get);
    }
    get.handleAsync(
        (bytes, error) -> {
          onPiece(index, c.id(), bytes, error);
          return null;
        },
        ctx.settings.executor());
    if (!depSky) {
      scheduleHedge(predicted);
    }
  }

  /**
   * Liveness, not correctness: if the piece just asked for is late (twice its predicted time, the
   * bytes already on its holder's link included), one more holder is asked. Any k valid pieces
   * decode, so the timer never decides the result.
   */
  private void scheduleHedge(Duration predicted) {
    Duration wait = predicted.multipliedBy(2).plusMillis(5);
    Scheduler.Cancellable timer = ctx.settings.scheduler().schedule(wait, this::launchNext);
    Scheduler.Cancellable previous;
    synchronized (this) {
      previous = hedge;
      hedge = timer;
    }
    if (previous != null) {
      previous.cancel();
    }
  }

  private void onPiece(int index, String cloud, byte[] bytes, Throwable error) {
    CloudFault fault = null;
    Shamir.Share share = null;
    byte[] fragment = null;
    if (error != null) {
      Throwable cause = Futures.unwrap(error);
      if (Futures.isCancellation(cause)) {
        return;
      }
      fault = DataFetch.failedGet(cloud, object, cause);
    } else if (!Sha256.matches(bytes, pieceHash.apply(index))) {
      fault =
          new CloudFault(
              cloud,
              CloudFault.Kind.CORRUPT_DATA,
              object + ": piece does not match its signed hash");
    } else if (!depSky) {
      fragment = bytes;
    } else {
      try {
        CodedPieces.Piece piece = CodedPieces.split(bytes);
        share = piece.share();
        fragment = piece.fragment();
      } catch (MalformedInputException e) {
        // The hash matched, so the writer itself stored this: treat like a corrupt piece.
        fault = new CloudFault(cloud, CloudFault.Kind.CORRUPT_DATA, object + ": " + e.getMessage());
      }
    }
    if (fault != null) {
      ctx.report(key, fault);
    }
    boolean decode = false;
    boolean exhausted = false;
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      answered++;
      if (fault != null) {
        faults.add(fault);
      } else {
        fragments[index] = fragment;
        if (share != null) {
          shares.add(share);
        }
        servers.add(cloud);
        decode = servers.size() == entry.k();
      }
      // Only when every holder answered and fewer than k pieces were valid: pieces that arrive
      // while a decode is running must not end the read.
      exhausted = servers.size() < entry.k() && answered == entry.holders().size();
    }
    if (fault != null && !depSky) {
      // A definite failure, not a guess from a timer: ask the next holder at once.
      launchNext();
    }
    if (decode) {
      decode();
    } else if (exhausted) {
      result.completeExceptionally(
          new IntegrityException(
              "fewer than "
                  + entry.k()
                  + " valid pieces of '"
                  + key
                  + "' version "
                  + info.version(),
              faults));
    }
  }

  private void decode() {
    byte[][] present;
    List<Shamir.Share> shareCopy;
    List<String> from;
    synchronized (this) {
      present = fragments.clone();
      shareCopy = List.copyOf(shares);
      from = List.copyOf(servers);
    }
    try {
      int n = present.length;
      int k = entry.k();
      byte[] sealed = ReedSolomon.of(k, n - k).decode(present, Math.toIntExact(codedLength));
      if (!Sha256.matches(sealed, decodedHash)) {
        throw new MalformedInputException("decoded value does not match its signed hash");
      }
      if (!depSky) {
        result.complete(new StoredValue(info, sealed, String.join("+", from)));
        return;
      }
      byte[] aesKey = Shamir.combine(shareCopy);
      byte[] plain =
          Aead.withKey(aesKey)
              .decrypt(
                  sealed,
                  CodedPieces.associatedData(
                      key, info.version().timestamp(), info.version().writer()));
      if (plain.length != info.size()) {
        throw new MalformedInputException(
            "decrypted " + plain.length + " bytes, signed size is " + info.size());
      }
      result.complete(new StoredValue(info, plain, String.join("+", from)));
    } catch (MalformedInputException | RuntimeException e) {
      List<CloudFault> all;
      synchronized (this) {
        all = new ArrayList<>(faults);
      }
      result.completeExceptionally(
          new IntegrityException(
              "cannot rebuild '" + key + "' version " + info.version() + ": " + e.getMessage(),
              all));
    }
  }

  private void cancelAll() {
    List<CompletableFuture<byte[]>> copy;
    Scheduler.Cancellable timer;
    synchronized (this) {
      copy = new ArrayList<>(inflight);
      inflight.clear();
      timer = hedge;
      hedge = null;
    }
    if (timer != null) {
      timer.cancel();
    }
    for (CompletableFuture<byte[]> f : copy) {
      f.cancel(true);
    }
  }
}
