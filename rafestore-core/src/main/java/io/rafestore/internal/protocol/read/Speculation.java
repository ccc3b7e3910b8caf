package io.rafestore.internal.protocol.read;

import io.rafestore.Version;
import io.rafestore.internal.cloud.AccountingCloud;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.Anticipation;
import io.rafestore.internal.protocol.layout.ValueRead;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.spi.support.Futures;
import java.util.Optional;

/**
 * One read's anticipated data fetch: started on the first validly signed reply readM receives
 * ({@link MetadataRead.EarlyReply}) that names a version the read can use (the newest visible one,
 * or the version the read asked for), from the offset the read starts at; then, when readM decides,
 * kept if it is for exactly the decided (version, entry) and cancelled otherwise ({@link #readOf}),
 * or cancelled if readM fails or decides no version ({@link #abandon}).
 *
 * <p>At most one fetch per read is started, on one cloud's log, so a faulty cloud that answers
 * readM first with a stale or replayed log wastes at most one fetch; one that withholds its log
 * (answers "not found") starts nothing, and the next cloud's log starts the fetch; a forged,
 * foreign or unsigned log is not valid and starts nothing. Each started fetch is counted on the
 * cloud whose log started it, as kept or wasted ({@link AccountingCloud#speculationStarted}).
 *
 * <p>Thread-safe: replies arrive on readM's threads, the decision on another.
 */
final class Speculation {
  private final Context ctx;
  private final String key;
  private final Version asked;
  private final long offset;
  private Anticipation started;
  private String source;
  private boolean claimed;
  private boolean settled;
  private boolean ended;
  // Fetches the read started itself, after readM (not anticipated): cancelled by end().
  private final java.util.List<java.util.concurrent.CompletableFuture<?>> owned =
      new java.util.ArrayList<>();

  private Speculation(Context ctx, String key, Version asked, long offset) {
    this.ctx = ctx;
    this.key = key;
    this.asked = asked;
    this.offset = offset;
  }

  /**
   * The speculation of a read of {@code key} ({@code asked}: a version, or null for the latest)
   * from byte {@code offset}.
   */
  static Speculation of(Context ctx, String key, Version asked, long offset) {
    return new Speculation(ctx, key, asked, offset);
  }

  /** readM for the read, anticipating the data fetch if the settings allow it. */
  java.util.concurrent.CompletableFuture<View> readM() {
    if (!ctx.settings.mayAnticipate(0)) {
      return MetadataRead.run(ctx, key);
    }
    return MetadataRead.run(ctx, key, this::arrived);
  }

  /**
   * A valid reply before the quorum: starts the fetch of the version it names, unless one was
   * started already (or readM decided).
   */
  private void arrived(String cloudId, View reply) {
    View.Item item = asked == null ? newest(reply) : reply.find(asked);
    if (item == null) {
      // Nothing usable (a withheld or empty log): a later reply may name the version.
      return;
    }
    synchronized (this) {
      // Claimed before starting, so that two replies checked at once start one fetch.
      if (settled || claimed) {
        return;
      }
      claimed = true;
    }
    Optional<Anticipation> a;
    try {
      a = Anticipation.start(ctx, key, reply, item, offset);
    } catch (RuntimeException e) {
      // A speculation is an optimisation: an entry it cannot fetch is left to the read proper.
      a = Optional.empty();
    }
    boolean late;
    synchronized (this) {
      if (a.isEmpty()) {
        // Not anticipated (over the size limit, say): a later reply's version may be.
        claimed = false;
        return;
      }
      late = settled;
      if (!late) {
        started = a.get();
        source = cloudId;
      }
    }
    if (!late && asked != null) {
      // A read of a named version: its parts' read-ahead may start on this validly signed entry.
      ctx.readTier.anticipated(ctx.tenant, key, asked, item.entry(), offset);
    }
    AccountingCloud counts = accounting(cloudId);
    if (counts != null) {
      counts.speculationStarted(a.get().bytes());
    }
    if (late) {
      a.get().cancel();
      if (counts != null) {
        counts.speculationSettled(false);
      }
    }
  }

  private static View.Item newest(View v) {
    return v.visible.isEmpty() ? null : v.visible.get(0);
  }

  /**
   * The read of {@code item}, which readM decided in {@code view}: with the anticipated fetch if
   * that is for exactly {@code item}'s version and signed entry (kept), else without it (the fetch,
   * if any, is cancelled and counted wasted).
   */
  ValueRead readOf(View view, View.Item item) {
    ValueRead r = ValueRead.of(ctx, key, view, item);
    Started s = settle();
    if (s == null) {
      return r;
    }
    Anticipation a = s.fetch();
    boolean kept = a.isFor(item);
    AccountingCloud counts = accounting(s.source());
    if (counts != null) {
      counts.speculationSettled(kept);
    }
    if (kept) {
      return r.anticipated(a);
    }
    a.cancel();
    return r;
  }

  /** The read tier remembers the signed entry readM decided for {@code item}'s version. */
  void remember(View.Item item) {
    ctx.readTier.remember(key, item);
  }

  /** readM failed, or decided no version the read can use: the fetch, if any, is wasted. */
  void abandon() {
    Started s = settle();
    if (s == null) {
      return;
    }
    s.fetch().cancel();
    AccountingCloud counts = accounting(s.source());
    if (counts != null) {
      counts.speculationSettled(false);
    }
  }

  /**
   * The read has ended, whichever way (its value handed out, a failure, the operation's timeout):
   * an undecided speculation is wasted ({@link #abandon}), and a fetch that is still running is no
   * longer needed, whether it was kept or not (a kept fetch the read never took, such as a range of
   * no bytes, or one a timed-out read was waiting for), so it is cancelled. A fetch that completed
   * is not affected.
   */
  void end() {
    abandon();
    Anticipation a;
    java.util.List<java.util.concurrent.CompletableFuture<?>> fetches;
    synchronized (this) {
      ended = true;
      a = started;
      fetches = new java.util.ArrayList<>(owned);
      owned.clear();
    }
    if (a != null) {
      a.cancel();
    }
    for (java.util.concurrent.CompletableFuture<?> f : fetches) {
      f.cancel(true);
    }
  }

  /**
   * {@code fetch}, a data fetch the read started itself once readM decided (not anticipated), is
   * the read's too: {@link #end} cancels it if it still runs then (a read the operation timeout
   * ended, or the caller cancelled), so its holders stop sending bytes nobody waits for. A fetch
   * owned after the end is cancelled at once.
   */
  <T> java.util.concurrent.CompletableFuture<T> own(
      java.util.concurrent.CompletableFuture<T> fetch) {
    boolean late;
    synchronized (this) {
      late = ended;
      if (!late) {
        owned.add(fetch);
      }
    }
    if (late) {
      fetch.cancel(true);
    } else {
      Futures.onEnd(fetch, (v, e) -> disown(fetch));
    }
    return fetch;
  }

  /**
   * {@code fetch}, owned ({@link #own}); if it fails, the future {@code instead} gives (the read
   * tier's read by a known entry falling back to readM), unless the read has ended by then: then
   * the failure stands, since nothing of a read starts after its end.
   */
  <T> java.util.concurrent.CompletableFuture<T> ownOrElse(
      java.util.concurrent.CompletableFuture<T> fetch,
      java.util.function.Supplier<java.util.concurrent.CompletableFuture<T>> instead) {
    return own(fetch)
        .exceptionallyCompose(
            e ->
                hasEnded()
                    ? java.util.concurrent.CompletableFuture.failedFuture(e)
                    : instead.get());
  }

  private synchronized boolean hasEnded() {
    return ended;
  }

  private synchronized void disown(java.util.concurrent.CompletableFuture<?> fetch) {
    owned.remove(fetch);
  }

  /** A started fetch and the cloud whose log started it. */
  private record Started(Anticipation fetch, String source) {}

  /** Ends the speculation: no fetch starts after this. The fetch started, if any (once). */
  private synchronized Started settle() {
    if (settled) {
      return null;
    }
    settled = true;
    return started == null ? null : new Started(started, source);
  }

  private AccountingCloud accounting(String cloudId) {
    Cloud c = cloudId == null ? null : ctx.byId.get(cloudId);
    return c == null ? null : c.accounting();
  }
}
