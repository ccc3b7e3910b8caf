package io.rafestore.internal.protocol.layout;

import io.rafestore.CloudFault;
import io.rafestore.IntegrityException;
import io.rafestore.Scheduler;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.selection.MeasuredCloud;
import io.rafestore.internal.protocol.selection.ReadRouting;
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
 * <p>Holders are asked in the order {@link ReadRouting} gives for the read's kind (a small read:
 * the holder predicted fastest with its queue; a large value or a part: preferably not the holder
 * small reads use), or the given holder first. A holder that fails, lacks the object or returns
 * wrong bytes is reported and the next is asked at once; a holder that is merely late (past twice
 * its predicted time) gets a hedge: the next holder is asked too and the first verified answer
 * wins, the other request being cancelled.
 *
 * <p><b>Steal.</b> While only the first holder has been asked, an idle holder (no request in
 * flight) predicted to answer much sooner ({@link ReadRouting#thief}) is asked too: checked when
 * the first request is sent and once more when the first holder was predicted to answer. At most
 * one steal per fetch, and it stands in for the hedge: once a thief is asked the hedge timer
 * restarts from the thief's prediction, and no steal follows a hedge. The thief's answer is checked
 * like any other; a wrong one is reported and discarded and the read goes on with the first holder.
 *
 * <p>State is guarded by this object's lock; drivers are called only outside it (requests are
 * planned under the lock, each with a placeholder future in {@link #inflight}, then sent).
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
  private final boolean routed;
  private final CompletableFuture<Fetched> result = Futures.newFuture();
  private final Map<String, CompletableFuture<byte[]>> inflight = new HashMap<>();
  private final List<CloudFault> faults = new ArrayList<>();
  private int next;
  private Scheduler.Cancellable hedge;
  private Scheduler.Cancellable stealCheck;
  private String thief;
  private boolean stealSettled;

  /** Verified bytes and the holder that served them. */
  record Fetched(byte[] bytes, String cloud) {}

  /** The object a holder keeps the wanted bytes in, and the range of it (empty for all of it). */
  record Where(ObjectKey object, Optional<ByteRange> range) {}

  /** A request planned under the lock, to be sent outside it. */
  private record Send(String cloud, Where at, CompletableFuture<byte[]> slot) {}

  private DataFetch(
      Context ctx,
      String key,
      VersionInfo info,
      String dataObject,
      java.util.function.Function<String, Where> where,
      long expectedSize,
      byte[] expectedHash,
      String first,
      ReadRouting.Kind kind) {
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
    this.routed = ctx.settings.mode() != io.rafestore.ProtocolMode.DEPSKY_A;
    List<String> ordered;
    if (!routed) {
      ordered = new ArrayList<>(ctx.model.fastestFirst(known, expectedSize));
    } else if (first != null && known.contains(first)) {
      ordered = ReadRouting.byPrediction(ctx.model, known, expectedSize, false);
      ordered.remove(first);
      ordered.add(0, first);
    } else {
      ordered = new ArrayList<>(ReadRouting.route(ctx.model, known, expectedSize, kind));
    }
    this.order = ordered;
    if (routed && !ordered.isEmpty()) {
      ctx.byId.get(ordered.get(0)).accounting().routed(kind == ReadRouting.Kind.SMALL);
    }
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
        fetch(
            ctx,
            key,
            info,
            dataObject,
            null,
            info.size(),
            info.sha256(),
            null,
            ReadRouting.kind(info.size(), false)),
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
    return fetch(
            ctx,
            key,
            info,
            pack,
            holder -> at,
            info.size(),
            info.sha256(),
            null,
            ReadRouting.kind(info.size(), false))
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
   * before the others (null: as {@link ReadRouting} routes a bulk read), the others then by
   * prediction. A part is a bulk read: the parts of a value are read one after another.
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
        first,
        ReadRouting.Kind.BULK);
  }

  private static CompletableFuture<Fetched> fetch(
      Context ctx,
      String key,
      VersionInfo info,
      String dataObject,
      java.util.function.Function<String, Where> where,
      long expectedSize,
      byte[] expectedHash,
      String first,
      ReadRouting.Kind kind) {
    DataFetch d =
        new DataFetch(ctx, key, info, dataObject, where, expectedSize, expectedHash, first, kind);
    Futures.onEnd(d.result, (r, e) -> d.finish(r));
    List<Send> sends = new ArrayList<>();
    boolean none;
    synchronized (d) {
      if (!d.routed) {
        // DepSky-A asks every holder at once and takes the first value whose hash matches.
        while (d.next < d.order.size() - 1) {
          sends.add(d.planNext());
        }
      }
      Send firstSend = d.planNext();
      none = firstSend == null;
      if (!none) {
        sends.add(firstSend);
        if (d.routed) {
          // Before the first request is sent its queue-aware prediction counts it as "mine".
          Duration asked = ctx.model.predictQueued(firstSend.cloud(), expectedSize);
          Send steal = d.planSteal(asked.toNanos());
          if (steal != null) {
            sends.add(steal);
          } else {
            d.scheduleStealCheck(firstSend.cloud(), asked);
          }
        }
      }
    }
    if (none) {
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
    d.sendAll(sends);
    return d.result;
  }

  /**
   * Plans a request to the next holder and (re)arms the hedge timer. Caller holds the lock. Returns
   * null if no holder is left.
   */
  private Send planNext() {
    if (next >= order.size()) {
      return null;
    }
    String id = order.get(next++);
    Send s = plan(id);
    armHedge(id);
    return s;
  }

  /** Registers a placeholder for a request to {@code id}. Caller holds the lock. */
  private Send plan(String id) {
    Where at = where == null ? new Where(object, Optional.empty()) : where.apply(id);
    CompletableFuture<byte[]> slot = Futures.newFuture();
    inflight.put(id, slot);
    return new Send(id, at, slot);
  }

  /** Hedges {@code id} at twice its predicted time (plus 5 ms), if a holder is left to ask. */
  private void armHedge(String id) {
    if (hedge != null) {
      hedge.cancel();
      hedge = null;
    }
    if (next < order.size()) {
      Duration expected = ctx.model.predict(id, expectedSize);
      Duration wait = expected.multipliedBy(2).plusMillis(5);
      hedge =
          ctx.settings
              .scheduler()
              .schedule(
                  wait,
                  () -> {
                    Send s = null;
                    synchronized (DataFetch.this) {
                      if (!result.isDone()) {
                        s = planNext();
                      }
                    }
                    send(s);
                  });
    }
  }

  /**
   * Plans a steal if only the first holder has been asked and an idle holder not asked yet is
   * predicted to answer well before {@code askedNanos} from now. Caller holds the lock.
   */
  private Send planSteal(long askedNanos) {
    if (!routed || thief != null || next != 1 || result.isDone()) {
      return null;
    }
    String t =
        ReadRouting.thief(
            ctx.model,
            askedNanos,
            new ArrayList<>(order.subList(next, order.size())),
            expectedSize);
    if (t == null) {
      return null;
    }
    thief = t;
    order.remove(t);
    order.add(next++, t);
    ctx.byId.get(t).accounting().stealStarted();
    // The steal stands in for the hedge: the next hedge waits for the thief's own prediction.
    armHedge(t);
    return plan(t);
  }

  /** Checks once more for a steal when {@code first} was predicted to answer. Caller holds lock. */
  private void scheduleStealCheck(String first, Duration at) {
    if (order.size() < 2) {
      return;
    }
    stealCheck =
        ctx.settings
            .scheduler()
            .schedule(
                at,
                () -> {
                  Send s = null;
                  synchronized (DataFetch.this) {
                    if (!result.isDone() && inflight.containsKey(first)) {
                      // Now the first request is among the bytes in flight: what is left of the
                      // queue it is in, as the model sees it.
                      s = planSteal(ctx.model.predictQueued(first, 0).toNanos());
                    }
                  }
                  send(s);
                });
  }

  private void sendAll(List<Send> sends) {
    for (Send s : sends) {
      send(s);
    }
  }

  /** Sends a planned request (outside the lock) and relays its answer to its placeholder. */
  private void send(Send s) {
    if (s == null || s.slot().isDone()) {
      return;
    }
    CompletableFuture<byte[]> get;
    try {
      get =
          MeasuredCloud.get(
              ctx.byId.get(s.cloud()).driver(), s.at().object(), s.at().range(), expectedSize);
    } catch (RuntimeException e) {
      get = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<byte[]> request = get;
    Futures.onEnd(
        s.slot(),
        (b, e) -> {
          if (s.slot().isCancelled()) {
            request.cancel(true);
          }
        });
    Futures.onEnd(request, Futures.completer(s.slot()));
    s.slot()
        .handleAsync(
            (bytes, error) -> {
              onReply(s.cloud(), bytes, error);
              return null;
            },
            ctx.settings.executor());
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
    Send s = null;
    synchronized (this) {
      inflight.remove(id);
      faults.add(fault);
      if (id.equals(thief)) {
        settleSteal(false);
      }
      if (result.isDone()) {
        return;
      }
      s = planNext();
      if (s == null && inflight.isEmpty()) {
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
    send(s);
    if (failure != null) {
      result.completeExceptionally(failure);
    }
  }

  /** Counts how the steal ended, once. Caller holds the lock. */
  private void settleSteal(boolean won) {
    if (thief != null && !stealSettled) {
      stealSettled = true;
      ctx.byId.get(thief).accounting().stealSettled(won);
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

  /** The result is in: settle the steal, cancel what is still in flight and the timers. */
  private void finish(Fetched fetched) {
    List<CompletableFuture<byte[]>> copy;
    synchronized (this) {
      settleSteal(fetched != null && fetched.cloud().equals(thief));
      copy = new ArrayList<>(inflight.values());
      inflight.clear();
      if (hedge != null) {
        hedge.cancel();
      }
      if (stealCheck != null) {
        stealCheck.cancel();
      }
    }
    for (CompletableFuture<byte[]> f : copy) {
      f.cancel(true);
    }
  }
}
