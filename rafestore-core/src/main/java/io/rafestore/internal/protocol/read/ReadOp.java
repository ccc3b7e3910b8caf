package io.rafestore.internal.protocol.read;

import io.rafestore.KeyNotFoundException;
import io.rafestore.OperationReceipt;
import io.rafestore.Phase;
import io.rafestore.ReadReceipt;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionCollectedException;
import io.rafestore.VersionNotFoundException;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.ReadTier;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.layout.Layouts;
import io.rafestore.internal.protocol.layout.ValueRead;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.spi.support.Futures;
import java.io.InputStream;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A read: readM ({@link MetadataRead}), pick the version the caller asked for, then let the
 * version's {@link io.rafestore.internal.protocol.layout.ValueLayout} fetch and check its bytes
 * (whole, a range or a stream). Whether a value is replicated, coded, in parts or sealed is the
 * layout's business; nothing here tests it. The data fetch is anticipated: it starts on the first
 * valid reply of readM that names a version and is kept only if readM decides on the same signed
 * entry ({@link Speculation}). Stateless; thread-safe.
 */
public final class ReadOp {
  private ReadOp() {}

  /** The latest visible version of {@code key}: readM, then its data (regular). */
  public static CompletableFuture<StoredValue> latest(Context ctx, String key) {
    return latest(ctx, key, ctx.settings.maxStaleness());
  }

  /**
   * The latest visible version of {@code key}; with a positive {@code maxStaleness}, as this
   * client's read tier verified it within that bound if it did (no readM; the data from the cache
   * or the holders), else as {@link #latest(Context, String)}.
   */
  public static CompletableFuture<StoredValue> latest(
      Context ctx, String key, java.time.Duration maxStaleness) {
    OpTrace trace = ctx.observer.start(key, OperationReceipt.Kind.READ, ctx.tenant);
    View fresh = ctx.readTier.freshView(key, maxStaleness);
    if (fresh != null && !fresh.visible.isEmpty()) {
      View.Item item = fresh.visible.get(0);
      boolean cloudFree = servableWithoutCloud(ctx, key, item.version(), item.entry());
      ctx.readTier.staleView();
      if (cloudFree) {
        ctx.readTier.cloudFree(false);
      }
      accessed(ctx, key, item);
      CompletableFuture<StoredValue> op =
          cloudFree
              ? Layouts.of(item.entry()).read(ValueRead.of(ctx, key, fresh, item))
              : fetchOrCollected(
                  ctx, trace, key, fresh, item, ValueRead.of(ctx, key, fresh, item), null);
      return observed(ctx, trace, op);
    }
    Speculation spec = Speculation.of(ctx, key, null, 0);
    return ended(
        spec,
        observed(
            ctx,
            trace,
            settled(
                spec,
                readM(ctx, key, trace, spec)
                    .thenCompose(
                        view -> {
                          if (view.visible.isEmpty()) {
                            return CompletableFuture.failedFuture(notFound(key, view));
                          }
                          View.Item item = view.visible.get(0);
                          accessed(ctx, key, item);
                          return fetchOrCollected(
                              ctx, trace, key, view, item, spec.readOf(view, item), null);
                        }))));
  }

  /**
   * Whether version {@code version} of {@code key}, whose signed entry is {@code entry}, can be
   * read with no request to any cloud: its bytes are inline in the entry, or every unit is in the
   * read tier's cache; and it is not sealed (its key would need readM's shares).
   */
  private static boolean servableWithoutCloud(
      Context ctx, String key, Version version, LogEntry entry) {
    if (!ctx.readTier.enabled() || entry.isSealed()) {
      return false;
    }
    return entry.coding() == LogEntry.Coding.INLINE || ctx.readTier.holdsAll(key, version, entry);
  }

  /**
   * As {@link #servableWithoutCloud}, for {@code length} bytes from {@code offset}: the units that
   * cover them.
   */
  private static boolean rangeServableWithoutCloud(
      Context ctx, String key, Version version, LogEntry entry, long offset, int length) {
    if (!ctx.readTier.enabled() || entry.isSealed()) {
      return false;
    }
    if (entry.coding() == LogEntry.Coding.INLINE) {
      return true;
    }
    if (!entry.isParted() || !ReadTier.cacheable(entry)) {
      return ctx.readTier.holdsAll(key, version, entry);
    }
    long from = Math.min(offset, entry.size());
    long to = Math.min(entry.size(), from + length);
    if (to <= from) {
      return true;
    }
    int first = (int) (from / entry.partLength());
    int last = (int) ((to - 1) / entry.partLength());
    for (int i = first; i <= last; i++) {
      if (!ctx.readTier.holds(ReadTier.unit(key, version, entry, i))) {
        return false;
      }
    }
    return true;
  }

  /** Tells the read tier (its prefetcher) that a read used the whole of {@code item}. */
  private static void accessed(Context ctx, String key, View.Item item) {
    ctx.readTier.accessed(
        ctx.tenant, key, item.version(), item.entry(), 0, item.entry().size(), false);
  }

  /**
   * readM of the read, anticipating its data fetch on the first valid reply that names a version
   * ({@link Speculation}).
   */
  private static CompletableFuture<View> readM(
      Context ctx, String key, OpTrace trace, Speculation spec) {
    return trace
        .timed(Phase.READ_M, spec.readM())
        .thenApply(
            view -> {
              // What readM verified: the read tier remembers it (entries for reads of a known
              // version, the view for bounded-staleness reads).
              ctx.readTier.rememberView(key, view);
              return view;
            });
  }

  /**
   * {@code op} itself, once it ends (or the operation's timeout ends it) a speculation readM's
   * decision did not settle (readM failed, or found no version to read) is wasted and its fetch
   * cancelled.
   */
  private static <T> CompletableFuture<T> settled(Speculation spec, CompletableFuture<T> op) {
    Futures.onEnd(op, (v, e) -> spec.abandon());
    return op;
  }

  /**
   * {@code out}, the future the caller gets, once it completes (with the value, a failure, or the
   * operation's timeout, which reaches only this outermost future) the read no longer needs any
   * fetch its speculation started ({@link Speculation#end}).
   */
  private static <T> CompletableFuture<T> ended(Speculation spec, CompletableFuture<T> out) {
    Futures.onEnd(out, (v, e) -> spec.end());
    return out;
  }

  /** Version {@code version} of {@code key}. */
  public static CompletableFuture<StoredValue> version(Context ctx, String key, Version version) {
    OpTrace trace = ctx.observer.start(key, OperationReceipt.Kind.READ, ctx.tenant);
    LogEntry known = ctx.readTier.entry(key, version);
    if (known != null && servableWithoutCloud(ctx, key, version, known)) {
      // A version names exactly one signed entry and its bytes never change: this one, decided by
      // an earlier readM, with every byte in the cache (checked against the signed hash again as
      // it is read). No cloud is asked.
      ctx.readTier.cloudFree(false);
      ctx.readTier.accessed(ctx.tenant, key, version, known, 0, known.size(), false);
      return observed(
          ctx, trace, Layouts.of(known).read(ValueRead.ofEntry(ctx, key, version, known)));
    }
    if (known != null && ctx.readTier.enabled() && !known.isSealed()) {
      // The signed entry is known but some bytes are not cached: fetch them by that entry, with no
      // readM (the entry of a version never changes); only if the fetch fails (the version was
      // collected, or its holders do not answer) does the read run readM as below.
      ctx.readTier.accessed(ctx.tenant, key, version, known, 0, known.size(), false);
      return observed(
          ctx,
          trace,
          Layouts.of(known)
              .read(ValueRead.ofEntry(ctx, key, version, known))
              .exceptionallyCompose(
                  e -> {
                    Speculation spec = Speculation.of(ctx, key, version, 0);
                    return ended(spec, version(ctx, trace, spec, key, version));
                  }));
    }
    Speculation spec = Speculation.of(ctx, key, version, 0);
    return ended(spec, observed(ctx, trace, version(ctx, trace, spec, key, version)));
  }

  private static CompletableFuture<StoredValue> version(
      Context ctx, OpTrace trace, Speculation spec, String key, Version version) {
    return settled(
        spec,
        readM(ctx, key, trace, spec)
            .thenCompose(
                view -> {
                  View.Item item = view.find(version);
                  if (item != null) {
                    ctx.readTier.remember(key, item);
                    accessed(ctx, key, item);
                  }
                  if (item == null && view.isCollected(version)) {
                    return CompletableFuture.failedFuture(
                        new VersionCollectedException(key, version, view.collected));
                  }
                  if (item == null) {
                    return CompletableFuture.failedFuture(versionNotFound(key, view, version));
                  }
                  return fetchOrCollected(
                      ctx, trace, key, view, item, spec.readOf(view, item), version);
                }));
  }

  /**
   * Reports a read's outcome: the receipt to the listener (before the caller sees the value) and
   * the trace's end, whichever way the read ends (the operation timeout included).
   */
  private static CompletableFuture<StoredValue> observed(
      Context ctx, OpTrace trace, CompletableFuture<StoredValue> op) {
    CompletableFuture<StoredValue> out =
        op.whenComplete(
            (sv, e) -> {
              if (e == null) {
                ctx.observer.readCompleted(
                    trace,
                    new ReadReceipt(
                        sv.info(),
                        sv.servedBy(),
                        sv.info().size(),
                        trace.elapsed(),
                        trace.phases(),
                        sv.fromCache()));
              }
            });
    return trace.observe(out);
  }

  /** {@code length} bytes from {@code offset} of version {@code version} of {@code key}. */
  public static CompletableFuture<byte[]> range(
      Context ctx, String key, Version version, long offset, int length) {
    OpTrace trace = ctx.observer.start(key, OperationReceipt.Kind.RANGED_READ, ctx.tenant);
    LogEntry known = ctx.readTier.entry(key, version);
    if (known != null && rangeServableWithoutCloud(ctx, key, version, known, offset, length)) {
      // As a read of a known version (see version()): the covering units are all cached.
      ctx.readTier.cloudFree(false);
      ctx.readTier.accessed(ctx.tenant, key, version, known, offset, length, false);
      return trace.observe(
          Layouts.of(known).range(ValueRead.ofEntry(ctx, key, version, known), offset, length));
    }
    if (known != null && ctx.readTier.enabled() && !known.isSealed()) {
      // As a read of a known version (see version()): fetched by the known entry, readM only if
      // that fails.
      ctx.readTier.accessed(ctx.tenant, key, version, known, offset, length, false);
      return trace.observe(
          Layouts.of(known)
              .range(ValueRead.ofEntry(ctx, key, version, known), offset, length)
              .exceptionallyCompose(e -> rangeByReadM(ctx, trace, key, version, offset, length)));
    }
    return trace.observe(rangeByReadM(ctx, trace, key, version, offset, length));
  }

  /** A ranged read that finds the version by readM (not observed: the caller observes it). */
  private static CompletableFuture<byte[]> rangeByReadM(
      Context ctx, OpTrace trace, String key, Version version, long offset, int length) {
    Speculation spec = Speculation.of(ctx, key, version, offset);
    return ended(
        spec,
        resolve(ctx, trace, spec, key, Optional.of(version))
            .thenCompose(
                found -> {
                  ctx.readTier.accessed(
                      ctx.tenant, key, version, found.read().entry(), offset, length, false);
                  return orCollected(
                      ctx,
                      trace,
                      key,
                      version,
                      trace.timed(
                          Phase.DATA_FETCH, found.layout().range(found.read(), offset, length)));
                }));
  }

  /**
   * {@code op}, a fetch of version {@code version}; if it fails (other than by cancellation or as
   * collected already), metadata is read again and a signed watermark now covering the version
   * makes the failure {@link VersionCollectedException}, a tombstone now hiding it {@link
   * VersionNotFoundException} ("deleted at"), as in {@link #fetchOrCollected}; otherwise the
   * fetch's own failure stands.
   */
  private static <T> CompletableFuture<T> orCollected(
      Context ctx, OpTrace trace, String key, Version version, CompletableFuture<T> op) {
    return op.handle((v, e) -> op)
        .thenCompose(
            f -> {
              if (!f.isCompletedExceptionally() || f.isCancelled()) {
                return f;
              }
              Throwable cause = Futures.unwrap(f.handle((v, e) -> e).join());
              if (cause instanceof VersionCollectedException || Futures.isCancellation(cause)) {
                return f;
              }
              CompletableFuture<View> fresh = trace.timed(Phase.READ_M, MetadataRead.run(ctx, key));
              return fresh
                  .handle((view, e) -> view)
                  .thenCompose(
                      view -> {
                        if (view != null && view.isCollected(version)) {
                          return CompletableFuture.<T>failedFuture(
                              withCause(
                                  new VersionCollectedException(key, version, view.collected),
                                  cause));
                        }
                        if (view != null && deleted(view, version)) {
                          VersionNotFoundException gone = versionNotFound(key, view, version);
                          gone.addSuppressed(cause);
                          return CompletableFuture.<T>failedFuture(gone);
                        }
                        return f;
                      });
            });
  }

  private static VersionCollectedException withCause(VersionCollectedException c, Throwable e) {
    c.addSuppressed(e);
    return c;
  }

  /**
   * A version found by readM, ready to be read: the read, the version's layout, and the trace of
   * the stream read that found it.
   *
   * @param ctx the client's context
   * @param read the version's read (key, view, entry)
   * @param layout how the version is stored
   * @param trace the stream read's trace, which the stream ends
   * @param latest whether the stream is of the latest version (not of one the caller named)
   */
  public record Found(
      Context ctx,
      ValueRead read,
      io.rafestore.internal.protocol.layout.ValueLayout layout,
      OpTrace trace,
      boolean latest) {
    /**
     * A stream over the version's value (see {@link #stream}); its end, failure or close ends the
     * operation's trace. A fetch that fails because the version was collected meanwhile fails the
     * stream with {@link VersionCollectedException} ({@link CollectedCheck}).
     */
    public InputStream stream() {
      InputStream in;
      try {
        in = layout.stream(read);
      } catch (RuntimeException e) {
        trace.finish(e);
        throw e;
      }
      return trace.stream(
          new CollectedCheck(in, ctx, read.info().key(), read.info().version(), latest));
    }
  }

  /**
   * A stream read's failure, told apart as {@link #fetchOrCollected} tells a whole read's: when a
   * read of the stream fails with an integrity failure (the data missing, or not matching its
   * signed hash), metadata is read again; if a signed watermark now covers the version, the stream
   * fails with {@link VersionCollectedException}, and if a tombstone now hides it, with {@link
   * KeyNotFoundException} (a stream of the latest) or {@link VersionNotFoundException} (of a named
   * version), the original failure suppressed in either; otherwise the original failure stands
   * (missing data that no trusted writer collected or deleted is an integrity failure).
   */
  private static final class CollectedCheck extends java.io.FilterInputStream {
    private final Context ctx;
    private final String key;
    private final Version version;

    private final boolean latest;

    CollectedCheck(InputStream in, Context ctx, String key, Version version, boolean latest) {
      super(in);
      this.ctx = ctx;
      this.key = key;
      this.version = version;
      this.latest = latest;
    }

    @Override
    public int read() throws java.io.IOException {
      try {
        return super.read();
      } catch (io.rafestore.RafeStoreException e) {
        throw told(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws java.io.IOException {
      try {
        return super.read(b, off, len);
      } catch (io.rafestore.RafeStoreException e) {
        throw told(e);
      }
    }

    @Override
    public long skip(long n) throws java.io.IOException {
      try {
        return super.skip(n);
      } catch (io.rafestore.RafeStoreException e) {
        throw told(e);
      }
    }

    private io.rafestore.RafeStoreException told(io.rafestore.RafeStoreException e) {
      if (!(e instanceof io.rafestore.IntegrityException)) {
        return e;
      }
      View fresh = freshView(ctx, key);
      if (fresh == null) {
        return e;
      }
      io.rafestore.RafeStoreException told;
      if (fresh.isCollected(version)) {
        told = new VersionCollectedException(key, version, fresh.collected);
      } else if (deleted(fresh, version)) {
        // A stream of the latest version finds the key deleted; one of a version, that version.
        told = latest ? notFound(key, fresh) : versionNotFound(key, fresh, version);
      } else {
        return e;
      }
      told.addSuppressed(e);
      return told;
    }
  }

  /**
   * A fresh readM of {@code key}, waited for at most the operation timeout (on the client's
   * scheduler); null if it failed, timed out or the thread was interrupted (its flag kept).
   */
  private static View freshView(Context ctx, String key) {
    CompletableFuture<View> f = MetadataRead.run(ctx, key);
    io.rafestore.Scheduler.Cancellable timer =
        ctx.settings.scheduler().schedule(ctx.settings.operationTimeout(), () -> f.cancel(true));
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (java.util.concurrent.ExecutionException
        | java.util.concurrent.CancellationException e) {
      return null;
    } finally {
      timer.cancel();
    }
  }

  /**
   * Opens a stream read of the latest visible version of {@code key}, or the given one: readM now,
   * the data as the caller reads {@link Found#stream()}.
   */
  public static CompletableFuture<Found> stream(
      Context ctx, String key, Optional<Version> version) {
    OpTrace trace = ctx.observer.start(key, OperationReceipt.Kind.STREAM_READ, ctx.tenant);
    // The stream takes its anticipated first part after this future completed (when it starts
    // fetching), so here only an undecided speculation is abandoned (settled), not ended.
    return trace.observeFailure(
        resolve(ctx, trace, Speculation.of(ctx, key, version.orElse(null), 0), key, version));
  }

  /**
   * The latest visible version of {@code key}, or the given one, after readM; the data fetch from
   * byte {@code offset} anticipated during readM.
   */
  private static CompletableFuture<Found> resolve(
      Context ctx, OpTrace trace, Speculation spec, String key, Optional<Version> version) {
    return settled(
        spec,
        readM(ctx, key, trace, spec)
            .thenCompose(
                view -> {
                  if (version.isEmpty()) {
                    if (view.visible.isEmpty()) {
                      return CompletableFuture.failedFuture(notFound(key, view));
                    }
                    return keyedOrOlder(
                        ctx,
                        trace,
                        spec,
                        key,
                        found(ctx, trace, spec, view, view.visible.get(0), true));
                  }
                  View.Item item = view.find(version.get());
                  if (item == null && view.isCollected(version.get())) {
                    return CompletableFuture.failedFuture(
                        new VersionCollectedException(key, version.get(), view.collected));
                  }
                  if (item == null) {
                    return CompletableFuture.failedFuture(
                        versionNotFound(key, view, version.get()));
                  }
                  return CompletableFuture.completedFuture(
                      found(ctx, trace, spec, view, item, false));
                }));
  }

  /**
   * For a stream of the latest version, {@code first} (the newest visible one) with its key
   * recovered if it is sealed ({@link ValueRead#keyed}); if that fails for want of key shares
   * ({@link KeyShares.TooFewShares}), metadata is read again and the newest visible version of the
   * fresh view whose key can be recovered is taken instead, as a read of the latest does ({@link
   * #fetchOrCollected}, {@link #newestReadable}); the skipped version's anticipated fetch is
   * cancelled. Any other failure stands.
   */
  private static CompletableFuture<Found> keyedOrOlder(
      Context ctx, OpTrace trace, Speculation spec, String key, Found first) {
    if (!first.read().entry().isSealed()) {
      return CompletableFuture.completedFuture(first);
    }
    return keyedOr(
        sharesTimed(trace, first.read().keyed()),
        r -> new Found(ctx, r, first.layout(), first.trace(), true),
        shortOfShares -> {
          spec.end();
          return trace
              .timed(Phase.READ_M, MetadataRead.run(ctx, key))
              .thenCompose(fresh -> newestKeyed(ctx, trace, key, fresh, shortOfShares, 0));
        });
  }

  /**
   * {@code keyed}'s read made a {@link Found} by {@code found}; if the key could not be recovered
   * for want of shares, {@code shortOfShares} of that failed future; any other failure stands.
   */
  private static CompletableFuture<Found> keyedOr(
      CompletableFuture<ValueRead> keyed,
      java.util.function.Function<ValueRead, Found> found,
      java.util.function.Function<CompletableFuture<ValueRead>, CompletableFuture<Found>>
          shortOfShares) {
    return keyed
        .handle((r, e) -> keyed)
        .thenCompose(
            k -> {
              if (!k.isCompletedExceptionally()) {
                return CompletableFuture.completedFuture(found.apply(k.join()));
              }
              return tooFewShares(k) ? shortOfShares.apply(k) : k.thenApply(r -> (Found) null);
            });
  }

  /**
   * As {@link #newestReadable}, for a stream: the newest of {@code view}'s visible versions, from
   * index {@code from}, whose key can be recovered (any version that is not sealed), at most {@link
   * #MAX_SHARE_FALLBACKS} tried.
   */
  private static CompletableFuture<Found> newestKeyed(
      Context ctx,
      OpTrace trace,
      String key,
      View view,
      CompletableFuture<ValueRead> failed,
      int from) {
    if (from >= view.visible.size() || from >= MAX_SHARE_FALLBACKS) {
      return from == 0 && view.visible.isEmpty()
          ? CompletableFuture.failedFuture(notFound(key, view))
          : failed.thenApply(r -> null);
    }
    View.Item item = view.visible.get(from);
    ctx.readTier.remember(key, item);
    return keyedOr(
        sharesTimed(trace, ValueRead.of(ctx, key, view, item).keyed()),
        r -> new Found(ctx, r, Layouts.of(item.entry()), trace, true),
        shortOfShares -> newestKeyed(ctx, trace, key, view, shortOfShares, from + 1));
  }

  /**
   * A key recovery as part of the data fetch's phase when it asks the clouds for shares; one that
   * readM's shares completed at once is no phase of its own (the stream's fetch is timed later).
   */
  private static CompletableFuture<ValueRead> sharesTimed(
      OpTrace trace, CompletableFuture<ValueRead> keyed) {
    return keyed.isDone() ? keyed : trace.timed(Phase.DATA_FETCH, keyed);
  }

  private static Found found(
      Context ctx, OpTrace trace, Speculation spec, View view, View.Item item, boolean latest) {
    spec.remember(item);
    return new Found(ctx, spec.readOf(view, item), Layouts.of(item.entry()), trace, latest);
  }

  /** Whether a tombstone in {@code view} hides {@code version} (the key was deleted after it). */
  private static boolean deleted(View view, Version version) {
    return view.tombstone != null && version.compareTo(view.tombstone) <= 0;
  }

  private static KeyNotFoundException notFound(String key, View view) {
    return new KeyNotFoundException(
        key, view.tombstone == null ? "never written" : "deleted at " + view.tombstone);
  }

  private static VersionNotFoundException versionNotFound(String key, View view, Version version) {
    String why =
        view.tombstone != null && version.compareTo(view.tombstone) <= 0
            ? "deleted at " + view.tombstone
            : "not in the history";
    return new VersionNotFoundException(key, version, why);
  }

  /**
   * Fetches a version; if that fails (a reader that read metadata before a collection or a delete
   * finds the data deleted), reads metadata again: a signed watermark now covering the version
   * means it was collected ({@link VersionCollectedException}), or for a read of the latest
   * version, the newer latest is fetched once; a tombstone now hiding it means the key was deleted
   * ({@link VersionNotFoundException} for a read of that version; for a read of the latest, the
   * newer latest if one was written since, else {@link KeyNotFoundException}). Without a watermark
   * the fetch's own failure stands: missing data that no trusted writer collected is an integrity
   * failure. One exception, for a read of the latest version: a sealed entry whose key shares every
   * cloud was asked for and fewer than f+1 exist ({@link KeyShares.TooFewShares}: a write not
   * completed, or more than f faulty clouds) gives way to the newest visible version of the fresh
   * view whose key can be recovered ({@link #newestReadable}).
   *
   * @param read the read of {@code item} (with its anticipated fetch, if readM kept it)
   * @param asked the version asked for, null for "the latest"
   */
  private static CompletableFuture<StoredValue> fetchOrCollected(
      Context ctx,
      OpTrace trace,
      String key,
      View view,
      View.Item item,
      ValueRead read,
      Version asked) {
    CompletableFuture<StoredValue> first =
        trace.timed(Phase.DATA_FETCH, Layouts.of(item.entry()).read(read));
    return first
        .handle((v, e) -> first)
        .thenCompose(
            f -> {
              if (!f.isCompletedExceptionally()) {
                return f;
              }
              return trace
                  .timed(Phase.READ_M, MetadataRead.run(ctx, key))
                  .thenCompose(
                      fresh -> {
                        if (deleted(fresh, item.version())) {
                          // Deleted meanwhile: the data went after the tombstone was written.
                          if (asked != null) {
                            return CompletableFuture.failedFuture(
                                versionNotFound(key, fresh, asked));
                          }
                          return fresh.visible.isEmpty()
                              ? CompletableFuture.failedFuture(notFound(key, fresh))
                              : newestReadable(ctx, trace, key, fresh, null, 0, 1);
                        }
                        if (!fresh.isCollected(item.version())) {
                          if (asked == null && tooFewShares(f)) {
                            return newestReadable(ctx, trace, key, fresh, f, 0, 1);
                          }
                          return f;
                        }
                        if (asked == null && !fresh.visible.isEmpty()) {
                          // The newer latest (passing over sealed ones short of shares, as above).
                          return newestReadable(ctx, trace, key, fresh, null, 0, 1);
                        }
                        return CompletableFuture.failedFuture(
                            new VersionCollectedException(key, item.version(), fresh.collected));
                      });
            });
  }

  /** At most this many versions a read of the latest tries for want of key shares. */
  static final int MAX_SHARE_FALLBACKS = 8;

  /**
   * The newest of {@code view}'s visible versions, from index {@code from}, that can be read: each
   * is fetched in turn while the fetch fails for want of key shares ({@link
   * KeyShares.TooFewShares}), at most {@link #MAX_SHARE_FALLBACKS} of them. Regular: a write that
   * completed before the read began leaves f+1 valid shares with at most f faulty clouds, so no
   * version is passed over for one older than it (design.md, "Confidentiality option"). Another
   * failure stands, and so does the last one for want of shares when no version is left to try.
   *
   * @param failed the failure to give if no version is tried at all (null: the view has one)
   * @param rereads how many times this read has read metadata again so far; a fetch that fails
   *     because its version was collected or deleted since reads it again (at most {@link
   *     #MAX_REREADS} in all) and goes on from the newer latest
   */
  private static CompletableFuture<StoredValue> newestReadable(
      Context ctx,
      OpTrace trace,
      String key,
      View view,
      CompletableFuture<StoredValue> failed,
      int from,
      int rereads) {
    if (from >= view.visible.size() || from >= MAX_SHARE_FALLBACKS) {
      return failed != null ? failed : CompletableFuture.failedFuture(notFound(key, view));
    }
    View.Item item = view.visible.get(from);
    CompletableFuture<StoredValue> attempt =
        trace.timed(Phase.DATA_FETCH, fetch(ctx, key, view, item));
    return attempt
        .handle((v, e) -> attempt)
        .thenCompose(
            f -> {
              if (!f.isCompletedExceptionally()) {
                return f;
              }
              if (tooFewShares(f)) {
                return newestReadable(ctx, trace, key, view, f, from + 1, rereads);
              }
              if (f.isCancelled() || rereads >= MAX_REREADS) {
                return f;
              }
              // Collected or deleted in turn (a second collection or delete since the first
              // readM): the newer latest, from metadata read again.
              return trace
                  .timed(Phase.READ_M, MetadataRead.run(ctx, key))
                  .thenCompose(
                      fresh -> {
                        if (!deleted(fresh, item.version()) && !fresh.isCollected(item.version())) {
                          return f;
                        }
                        return newestReadable(ctx, trace, key, fresh, null, 0, rereads + 1);
                      });
            });
  }

  /**
   * At most this many times a read of the latest reads metadata again because the version it was
   * fetching was collected or deleted meanwhile (each time a newer one was written in between).
   */
  static final int MAX_REREADS = 4;

  /** Whether the failed {@code f} failed for want of key shares. */
  private static boolean tooFewShares(CompletableFuture<?> f) {
    try {
      f.join();
      return false;
    } catch (java.util.concurrent.CompletionException
        | java.util.concurrent.CancellationException e) {
      return Futures.unwrap(e) instanceof KeyShares.TooFewShares;
    }
  }

  private static CompletableFuture<StoredValue> fetch(
      Context ctx, String key, View view, View.Item item) {
    return Layouts.of(item.entry()).read(ValueRead.of(ctx, key, view, item));
  }
}
