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
    Speculation spec = Speculation.of(ctx, key, null, 0);
    CompletableFuture<StoredValue> op;
    if (fresh != null && !fresh.visible.isEmpty()) {
      View.Item item = fresh.visible.get(0);
      boolean cloudFree = servableWithoutCloud(ctx, key, item.version(), item.entry());
      ctx.readTier.staleView();
      if (cloudFree) {
        ctx.readTier.cloudFree(false);
      }
      accessed(ctx, key, item);
      if (cloudFree) {
        return observed(
            ctx, trace, Layouts.of(item.entry()).read(ValueRead.of(ctx, key, fresh, item)));
      }
      // No readM, so nothing to anticipate: the speculation only owns the fetch (ended below).
      op =
          fetchOrCollected(
              ctx, trace, spec, key, fresh, item, ValueRead.of(ctx, key, fresh, item), null);
    } else {
      op =
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
                            ctx, trace, spec, key, view, item, spec.readOf(view, item), null);
                      }));
    }
    return ended(spec, observed(ctx, trace, op));
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
      Speculation spec = Speculation.of(ctx, key, version, 0);
      return ended(
          spec,
          observed(
              ctx,
              trace,
              spec.ownOrElse(
                  Layouts.of(known).read(ValueRead.ofEntry(ctx, key, version, known)),
                  () -> version(ctx, trace, spec, key, version))));
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
                      ctx, trace, spec, key, view, item, spec.readOf(view, item), version);
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
      Speculation spec = Speculation.of(ctx, key, version, offset);
      return ended(
          spec,
          trace.observe(
              spec.ownOrElse(
                  Layouts.of(known)
                      .range(ValueRead.ofEntry(ctx, key, version, known), offset, length),
                  () -> rangeByReadM(ctx, trace, spec, key, version, offset, length))));
    }
    Speculation spec = Speculation.of(ctx, key, version, offset);
    return ended(spec, trace.observe(rangeByReadM(ctx, trace, spec, key, version, offset, length)));
  }

  /**
   * A ranged read that finds the version by readM (not observed: the caller observes it; nor ended:
   * the caller ends {@code spec}).
   */
  private static CompletableFuture<byte[]> rangeByReadM(
      Context ctx,
      OpTrace trace,
      Speculation spec,
      String key,
      Version version,
      long offset,
      int length) {
    return resolve(ctx, trace, spec, key, Optional.of(version))
        .thenCompose(
            found -> {
              ctx.readTier.accessed(
                  ctx.tenant, key, version, found.read().entry(), offset, length, false);
              return orCollected(
                  ctx,
                  trace,
                  spec,
                  key,
                  version,
                  length,
                  found.layout().range(found.read(), offset, length));
            });
  }

  /**
   * {@code fetch}, of version {@code version}, timed and watched ({@link #guarded}); if it fails
   * (other than by cancellation or as collected already), metadata is read again and a signed
   * watermark now covering the version makes the failure {@link VersionCollectedException}, a
   * tombstone now hiding it {@link VersionNotFoundException} ("deleted at"), as in {@link
   * #fetchOrCollected}; otherwise the fetch's own failure stands.
   */
  private static <T> CompletableFuture<T> orCollected(
      Context ctx,
      OpTrace trace,
      Speculation spec,
      String key,
      Version version,
      long bytes,
      CompletableFuture<T> fetch) {
    return guarded(ctx, trace, spec, key, version, bytes, fetch)
        .thenCompose(
            a -> {
              CompletableFuture<T> f = a.fetch();
              Throwable cause;
              CompletableFuture<View> fresh;
              if (a.gone() != null) {
                cause = new java.util.concurrent.CancellationException("version gone meanwhile");
                fresh = CompletableFuture.completedFuture(a.gone());
              } else {
                if (!f.isCompletedExceptionally() || f.isCancelled()) {
                  return f;
                }
                cause = Futures.unwrap(f.handle((v, e) -> e).join());
                if (cause instanceof VersionCollectedException || Futures.isCancellation(cause)) {
                  return f;
                }
                fresh = trace.timed(Phase.READ_M, MetadataRead.run(ctx, key));
              }
              return fresh
                  .handle((view, e) -> view)
                  .thenCompose(
                      view ->
                          view != null && (view.isCollected(version) || deleted(view, version))
                              ? CompletableFuture.<T>failedFuture(
                                  goneFailure(key, version, view, false, cause))
                              : f);
            });
  }

  /**
   * How long a data fetch runs before the read checks whether its version was collected or deleted
   * meanwhile, and then again every so long while it runs. A holder that lost the data to a
   * collection or a delete answers "missing", but a hung holder never answers, and without the
   * check the fetch would wait for it until the operation timeout; with at most f faulty clouds a
   * fetch of a version still there ends sooner than this as a rule, so the check costs a readM only
   * for fetches that wait on a silent cloud.
   */
  static final java.time.Duration GONE_CHECK = java.time.Duration.ofSeconds(2);

  /**
   * When a fetch of {@code bytes} is late enough to check whether its version is gone: twice the
   * (f+1)-th shortest time the latency model predicts for those bytes from any cloud (at most f
   * clouds are faulty, so a correct one is that fast or faster; a hung cloud's estimate only
   * grows), and at least {@link #GONE_CHECK}, so a large value that simply takes long to move is
   * not checked over and over.
   */
  static java.time.Duration goneCheckAfter(Context ctx, long bytes) {
    java.util.List<java.time.Duration> predicted = new java.util.ArrayList<>();
    for (io.rafestore.internal.protocol.context.Cloud c : ctx.clouds) {
      predicted.add(ctx.model.predict(c.id(), bytes));
    }
    predicted.sort(null);
    java.time.Duration late =
        predicted.isEmpty()
            ? GONE_CHECK
            : predicted.get(Math.min(ctx.f(), predicted.size() - 1)).multipliedBy(2);
    return late.compareTo(GONE_CHECK) > 0 ? late : GONE_CHECK;
  }

  /**
   * A fetch's outcome: {@code fetch} (done) with {@code gone} null, or, if its version was seen
   * collected or deleted first, the fresh metadata that says so in {@code gone} (the fetch
   * cancelled, maybe not yet done).
   */
  record Attempt<T>(CompletableFuture<T> fetch, View gone) {}

  /**
   * Runs {@code fetch} (of {@code bytes} of version {@code version}, timed as the data fetch) and,
   * every {@link #goneCheckAfter} while it runs, reads metadata again; completes with the fetch
   * once it ends, or, as soon as a readM shows the version collected or deleted, with that view
   * (and cancels the fetch).
   */
  private static <T> CompletableFuture<Attempt<T>> guarded(
      Context ctx,
      OpTrace trace,
      Speculation spec,
      String key,
      Version version,
      long bytes,
      CompletableFuture<T> fetch) {
    spec.own(fetch);
    CompletableFuture<T> timed = trace.timed(Phase.DATA_FETCH, fetch);
    CompletableFuture<Attempt<T>> out = new CompletableFuture<>();
    Futures.onEnd(timed, (v, e) -> out.complete(new Attempt<>(timed, null)));
    watchGone(
        ctx,
        key,
        version,
        goneCheckAfter(ctx, bytes),
        fetch,
        view -> {
          if (out.complete(new Attempt<>(timed, view))) {
            fetch.cancel(true);
          }
        });
    return out;
  }

  /**
   * While {@code running} is not done, every {@code every} reads metadata of {@code key}; the first
   * view that shows {@code version} collected or deleted goes to {@code gone} (once), and the watch
   * ends. It ends too after the operation timeout: a fetch that hangs past it belongs to an
   * operation that has ended (timed out), and nobody waits for it any more.
   */
  private static void watchGone(
      Context ctx,
      String key,
      Version version,
      java.time.Duration every,
      CompletableFuture<?> running,
      java.util.function.Consumer<View> gone) {
    io.rafestore.Scheduler clock = ctx.settings.scheduler();
    // The watch's pending check: one slot, cancelled once when the fetch ends.
    java.util.concurrent.atomic.AtomicReference<io.rafestore.Scheduler.Cancellable> timer =
        new java.util.concurrent.atomic.AtomicReference<>();
    Futures.onEnd(
        running,
        (v, e) -> {
          io.rafestore.Scheduler.Cancellable t = timer.get();
          if (t != null) {
            t.cancel();
          }
        });
    watchGone(
        ctx,
        key,
        version,
        every,
        clock.nanoTime() + ctx.settings.operationTimeout().toNanos(),
        running,
        timer,
        gone);
  }

  private static void watchGone(
      Context ctx,
      String key,
      Version version,
      java.time.Duration every,
      long until,
      CompletableFuture<?> running,
      java.util.concurrent.atomic.AtomicReference<io.rafestore.Scheduler.Cancellable> timer,
      java.util.function.Consumer<View> gone) {
    io.rafestore.Scheduler clock = ctx.settings.scheduler();
    timer.set(
        clock.schedule(
            every,
            () -> {
              if (running.isDone() || clock.nanoTime() - until >= 0) {
                return;
              }
              Futures.onEnd(
                  MetadataRead.run(ctx, key),
                  (view, e) -> {
                    if (running.isDone()) {
                      return;
                    }
                    if (view != null && (view.isCollected(version) || deleted(view, version))) {
                      gone.accept(view);
                    } else {
                      watchGone(ctx, key, version, every, until, running, timer, gone);
                    }
                  });
            }));
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
          new CollectedCheck(
              in,
              ctx,
              read.info().key(),
              read.info().version(),
              latest,
              read.entry().isParted() ? read.entry().partLength() : read.info().size()));
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
    private final java.time.Duration checkAfter;

    /** What the watch of a blocked read saw: the view that shows the version gone, or null. */
    private volatile View goneView;

    /** A blocked read's state, so its thread is interrupted only while it is in the read. */
    private final java.util.concurrent.atomic.AtomicInteger state =
        new java.util.concurrent.atomic.AtomicInteger(IDLE);

    private static final int IDLE = 0;
    private static final int READING = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;

    CollectedCheck(
        InputStream in, Context ctx, String key, Version version, boolean latest, long bytes) {
      super(in);
      this.ctx = ctx;
      this.key = key;
      this.version = version;
      this.latest = latest;
      this.checkAfter = goneCheckAfter(ctx, bytes);
    }

    /** One call of the stream underneath. */
    private interface Call<T> {
      T run() throws java.io.IOException;
    }

    @Override
    public int read() throws java.io.IOException {
      return watched(() -> in.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws java.io.IOException {
      return watched(() -> in.read(b, off, len));
    }

    @Override
    public long skip(long n) throws java.io.IOException {
      return watched(() -> in.skip(n));
    }

    /**
     * Runs {@code call}; one that may block (nothing buffered) is watched as a fetch is ({@link
     * #watchGone}): if readM shows the version collected or deleted while it waits (on a holder
     * that never answers), the reading thread is interrupted and the call fails with what readM
     * says. A failure with an integrity error is checked the same way ({@link #told}).
     */
    private <T> T watched(Call<T> call) throws java.io.IOException {
      if (in.available() > 0) {
        try {
          return call.run();
        } catch (io.rafestore.RafeStoreException e) {
          throw told(e);
        }
      }
      Thread reader = Thread.currentThread();
      CompletableFuture<Void> running = new CompletableFuture<>();
      state.set(READING);
      watchGone(
          ctx,
          key,
          version,
          checkAfter,
          running,
          view -> {
            goneView = view;
            if (state.compareAndSet(READING, INTERRUPTING)) {
              reader.interrupt();
              state.set(INTERRUPTED);
            }
          });
      try {
        return call.run();
      } catch (java.io.IOException e) {
        View gone = goneView;
        if (gone != null) {
          throw goneFailure(key, version, gone, latest, e);
        }
        if (e instanceof io.rafestore.RafeStoreException r) {
          throw told(r);
        }
        throw e;
      } finally {
        running.complete(null);
        if (!state.compareAndSet(READING, IDLE)) {
          // The watch interrupted this thread (or is about to): wait for it, then clear the
          // interrupt, which was ours, not the caller's.
          while (state.get() != INTERRUPTED) {
            Thread.onSpinWait();
          }
          Thread.interrupted();
          state.set(IDLE);
        }
      }
    }

    private io.rafestore.RafeStoreException told(io.rafestore.RafeStoreException e) {
      if (!(e instanceof io.rafestore.IntegrityException)) {
        return e;
      }
      View fresh = freshView(ctx, key);
      if (fresh == null || !(fresh.isCollected(version) || deleted(fresh, version))) {
        return e;
      }
      return goneFailure(key, version, fresh, latest, e);
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

  /**
   * The failure of a read of {@code version}, which {@code view} shows collected or deleted: {@link
   * VersionCollectedException}, or for a deleted one {@link KeyNotFoundException} when the read is
   * of the latest version ({@code latest}) and {@link VersionNotFoundException} ("deleted at") when
   * it named the version; {@code cause} (the fetch's own failure), if any, suppressed in it.
   */
  private static io.rafestore.RafeStoreException goneFailure(
      String key, Version version, View view, boolean latest, Throwable cause) {
    io.rafestore.RafeStoreException told =
        view.isCollected(version)
            ? new VersionCollectedException(key, version, view.collected)
            : latest ? notFound(key, view) : versionNotFound(key, view, version);
    if (cause != null) {
      told.addSuppressed(cause);
    }
    return told;
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
      Speculation spec,
      String key,
      View view,
      View.Item item,
      ValueRead read,
      Version asked) {
    return guarded(
            ctx,
            trace,
            spec,
            key,
            item.version(),
            item.entry().size(),
            Layouts.of(item.entry()).read(read))
        .thenCompose(
            a -> {
              CompletableFuture<StoredValue> f = a.fetch();
              if (a.gone() == null && !f.isCompletedExceptionally()) {
                return f;
              }
              CompletableFuture<View> again =
                  a.gone() != null
                      ? CompletableFuture.completedFuture(a.gone())
                      : trace.timed(Phase.READ_M, MetadataRead.run(ctx, key));
              return again.thenCompose(
                  fresh -> {
                    if (deleted(fresh, item.version())) {
                      // Deleted meanwhile: the data went after the tombstone was written.
                      if (asked != null) {
                        return CompletableFuture.failedFuture(versionNotFound(key, fresh, asked));
                      }
                      return fresh.visible.isEmpty()
                          ? CompletableFuture.failedFuture(notFound(key, fresh))
                          : newestReadable(ctx, trace, spec, key, fresh, null, 0, 1);
                    }
                    if (!fresh.isCollected(item.version())) {
                      if (asked == null && tooFewShares(f)) {
                        return newestReadable(ctx, trace, spec, key, fresh, f, 0, 1);
                      }
                      return f;
                    }
                    if (asked == null && !fresh.visible.isEmpty()) {
                      // The newer latest (passing over sealed ones short of shares, as above).
                      return newestReadable(ctx, trace, spec, key, fresh, null, 0, 1);
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
      Speculation spec,
      String key,
      View view,
      CompletableFuture<StoredValue> failed,
      int from,
      int rereads) {
    if (from >= view.visible.size() || from >= MAX_SHARE_FALLBACKS) {
      return failed != null ? failed : CompletableFuture.failedFuture(notFound(key, view));
    }
    View.Item item = view.visible.get(from);
    return guarded(
            ctx, trace, spec, key, item.version(), item.entry().size(), fetch(ctx, key, view, item))
        .thenCompose(
            a -> {
              CompletableFuture<StoredValue> f = a.fetch();
              if (a.gone() != null) {
                return rereads < MAX_REREADS
                    ? newestReadable(ctx, trace, spec, key, a.gone(), null, 0, rereads + 1)
                    : CompletableFuture.failedFuture(
                        goneFailure(key, item.version(), a.gone(), true, null));
              }
              if (!f.isCompletedExceptionally()) {
                return f;
              }
              if (tooFewShares(f)) {
                return newestReadable(ctx, trace, spec, key, view, f, from + 1, rereads);
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
                        return newestReadable(ctx, trace, spec, key, fresh, null, 0, rereads + 1);
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
