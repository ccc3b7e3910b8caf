package io.rafestore.internal.protocol.layout;

import io.rafestore.CloudFault;
import io.rafestore.IntegrityException;
import io.rafestore.Scheduler;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Fetches a version's value from its holders and verifies it against the signed size and SHA-256;
 * never returns bytes that do not match.
 *
 * <p>Holders are tried fastest first (by predicted time for the value's size). A holder that fails,
 * lacks the object or returns wrong bytes is reported and the next is asked at once; a holder that
 * is merely late (past twice its predicted time) gets a hedge: the next holder is asked too and the
 * first verified answer wins, the other request being cancelled.
 */
final class DataFetch {
  private final Context ctx;
  private final String key;
  private final VersionInfo info;
  private final ObjectKey object;

  /** Where each holder keeps the bytes: null when every holder stores {@link #object} whole. */
  private final java.util.function.Function<String, Where> where;

  private final long expectedSize;
  private final byte[] expectedHash;
  private final List<String> order;
  private final CompletableFuture<Fetched> result = new CompletableFuture<>();
  private final Map<String, CompletableFuture<byte[]>> inflight = new HashMap<>();
  private final List<CloudFault> faults = new ArrayList<>();
  private int next;
  private Scheduler.Cancellable hedge;

  /** Verified bytes and the holder that served them. */
  record Fetched(byte[] bytes, String cloud) {}

  /** The object a holder keeps the wanted bytes in, and the range of it (empty for all of it). */
  record Where(ObjectKey object, Optional<ByteRange> range) {}

  private DataFetch(
      Context ctx,
      String key,
      VersionInfo info,
      String dataObject,
      java.util.function.Function<String, Where> where,
      long expectedSize,
      byte[] expectedHash,
      String first) {
    this.ctx = ctx;
    this.key = key;
    this.info = info;
    this.object = ObjectKey.of(dataObject);
    this.where = where;
    this.expectedSize = expectedSize;
    this.expectedHash = expectedHash;
    List<String> known = new ArrayList<>();
    for (String h : info.dataClouds()) {
      if (ctx.byId.containsKey(h)) {
        known.add(h);
      }
    }
    List<String> ordered = new ArrayList<>(ctx.model.fastestFirst(known, expectedSize));
    if (first != null && ordered.remove(first)) {
      ordered.add(0, first);
    }
    this.order = ordered;
  }

  /**
   * The whole object {@code dataObject} of an unsplit value, checked against {@code info}'s size
   * and hash (of the stored bytes: {@code info} is the stored value's).
   */
  static CompletableFuture<StoredValue> run(
      Context ctx, String key, VersionInfo info, String dataObject) {
    // relay, not thenApply: cancelling the value (a wasted anticipated fetch, say) must cancel the
    // fetch itself, its requests and its hedge timer.
    return Futures.relay(
        fetch(ctx, key, info, dataObject, null, info.size(), info.sha256(), null),
        f -> new StoredValue(info, f.bytes(), f.cloud()));
  }

  /**
   * The stored value of a packed entry: {@code info}'s size (the stored size) from byte {@code
   * offset} of the pack object {@code pack}, which every holder stores whole; a ranged GET, checked
   * against {@code info}'s hash (the value's own, signed) like a whole value.
   */
  static CompletableFuture<StoredValue> packed(
      Context ctx, String key, VersionInfo info, String pack, long offset) {
    Where at = new Where(ObjectKey.of(pack), Optional.of(ByteRange.of(offset, info.size())));
    return fetch(ctx, key, info, pack, holder -> at, info.size(), info.sha256(), null)
        .thenApply(f -> new StoredValue(info, f.bytes(), f.cloud()));
  }

  /**
   * Fetches part {@code i} of a parted value from its holders, hedged like a whole value, verified
   * against the part's signed hash. The bytes are the stored part: sealed, for a sealed entry. A
   * joined holder ({@link LogEntry#joinedHolders()}) is asked for the part's stored range of its
   * one object, every other holder for the part object.
   */
  static CompletableFuture<Fetched> part(
      Context ctx, String key, VersionInfo info, LogEntry entry, int i) {
    return part(ctx, key, info, entry, i, null);
  }

  /**
   * As {@link #part(Context, String, VersionInfo, LogEntry, int)}, asking holder {@code first}
   * before the others (null: the fastest predicted), the others then fastest first.
   */
  static CompletableFuture<Fetched> part(
      Context ctx, String key, VersionInfo info, LogEntry entry, int i, String first) {
    String partObject = LogEntry.partObject(entry.dataObject(), i);
    java.util.function.Function<String, Where> where = null;
    if (!entry.joinedHolders().isEmpty()) {
      Where joined =
          new Where(
              ObjectKey.of(entry.dataObject()),
              Optional.of(ByteRange.of(entry.storedPartOffset(i), entry.storedPartSize(i))));
      Where separate = new Where(ObjectKey.of(partObject), Optional.empty());
      where = holder -> entry.joinedOn(holder) ? joined : separate;
    }
    return fetch(
        ctx,
        key,
        info,
        partObject,
        where,
        entry.storedPartSize(i),
        entry.pieceHashUnsafe(i),
        first);
  }

  private static CompletableFuture<Fetched> fetch(
      Context ctx,
      String key,
      VersionInfo info,
      String dataObject,
      java.util.function.Function<String, Where> where,
      long expectedSize,
      byte[] expectedHash,
      String first) {
    DataFetch d =
        new DataFetch(ctx, key, info, dataObject, where, expectedSize, expectedHash, first);
    d.result.whenComplete((r, e) -> d.cancelAll());
    synchronized (d) {
      if (ctx.settings.mode() == io.rafestore.ProtocolMode.DEPSKY_A) {
        // DepSky-A asks every holder at once and takes the first value whose hash matches.
        while (d.next < d.order.size() - 1) {
          d.launchNext();
        }
      }
      if (!d.launchNext()) {
        d.result.completeExceptionally(
            new IntegrityException(
                "version "
                    + info.version()
                    + " of '"
                    + key
                    + "' names no configured data cloud"
                    + " among its holders "
                    + info.dataClouds(),
                List.of()));
      }
    }
    return d.result;
  }

  /** Asks the next holder. Caller holds the lock. Returns false if none is left. */
  private boolean launchNext() {
    if (next >= order.size()) {
      return false;
    }
    String id = order.get(next++);
    Where at = where == null ? new Where(object, Optional.empty()) : where.apply(id);
    CompletableFuture<byte[]> get = ctx.byId.get(id).driver().get(at.object(), at.range());
    inflight.put(id, get);
    get.handleAsync(
        (bytes, error) -> {
          onReply(id, bytes, error);
          return null;
        },
        ctx.settings.executor());
    if (next < order.size()) {
      Duration expected = ctx.model.predict(id, expectedSize);
      Duration wait = expected.multipliedBy(2).plusMillis(5);
      if (hedge != null) {
        hedge.cancel();
      }
      hedge =
          ctx.settings
              .scheduler()
              .schedule(
                  wait,
                  () -> {
                    synchronized (DataFetch.this) {
                      if (!result.isDone()) {
                        launchNext();
                      }
                    }
                  });
    }
    return true;
  }

  private void onReply(String id, byte[] bytes, Throwable error) {
    CloudFault fault = null;
    ObjectKey object = where == null ? this.object : where.apply(id).object();
    boolean ok = false;
    if (error != null) {
      Throwable cause = Futures.unwrap(error);
      if (Futures.isCancellation(cause)) {
        return;
      }
      fault = DataFetch.failedGet(id, object, cause);
    } else if (bytes.length != expectedSize || !Sha256.matches(bytes, expectedHash)) {
      fault =
          new CloudFault(
              id,
              CloudFault.Kind.CORRUPT_DATA,
              object
                  + ": "
                  + bytes.length
                  + " bytes not matching the signed size "
                  + expectedSize
                  + " and SHA-256");
    } else {
      ok = true;
    }
    if (ok) {
      result.complete(new Fetched(bytes, id));
      return;
    }
    ctx.report(key, fault);
    IntegrityException failure = null;
    synchronized (this) {
      inflight.remove(id);
      faults.add(fault);
      if (result.isDone()) {
        return;
      }
      if (!launchNext() && inflight.isEmpty()) {
        failure =
            new IntegrityException(
                "no holder of '"
                    + key
                    + "' version "
                    + info.version()
                    + " returned bytes matching its signed hash (more than f clouds faulty?)",
                faults);
      }
    }
    if (failure != null) {
      result.completeExceptionally(failure);
    }
  }

  /** The fault a failed data get shows: the object is missing, or the cloud failed. */
  public static CloudFault failedGet(String cloud, ObjectKey object, Throwable cause) {
    boolean missing =
        cause instanceof CloudException ce && ce.kind() == CloudException.Kind.NOT_FOUND;
    return new CloudFault(
        cloud,
        missing ? CloudFault.Kind.MISSING_DATA : CloudFault.Kind.ERROR,
        object + ": " + cause.getMessage());
  }

  private void cancelAll() {
    List<CompletableFuture<byte[]>> copy;
    synchronized (this) {
      copy = new ArrayList<>(inflight.values());
      inflight.clear();
      if (hedge != null) {
        hedge.cancel();
      }
    }
    for (CompletableFuture<byte[]> f : copy) {
      f.cancel(true);
    }
  }
}
