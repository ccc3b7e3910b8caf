package io.rafestore.internal.protocol.layout;

import io.rafestore.Version;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.Loop;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Repair of a value in parts, part by part, in one pass ({@link PartsLayout#heal}).
 *
 * <p>Every holder stores every part, so a part is as good from one holder as from another: for each
 * part that some damaged holder needs, one copy is fetched from a holder that verify found to hold
 * it right (the fastest first; then holders verify knows nothing about; never one it found damaged
 * in that part), checked against the part's signed hash, and put to every holder that needs it. A
 * holder with part objects needs its damaged parts; a joined holder needs every part, since its one
 * object is rewritten whole (one native multipart upload fed part by part, or, where the cloud no
 * longer offers one that fits, one put of the concatenation). Parts go one at a time, so memory
 * holds one part (and a whole joined object only for that fallback).
 *
 * <p>Why one pass is enough: a holder that verify found right in part p is not written to for part
 * p (part objects), or is rewritten with bytes checked against p's hash (a joined object, replaced
 * whole and atomically), so it stays a valid source of p for the whole pass, whatever order the
 * holders are repaired in. So every part with at least one valid copy is put back everywhere; a
 * part with none is missing everywhere and named in the failure of every holder that needed it.
 */
final class PartHealing {
  private final Context ctx;
  private final ValueLayout.Bound bound;
  private final PartsLayout layout;
  private final LogEntry entry;
  private final Version version;
  private final ValueLayout.Health health;
  private final List<Target> targets = new ArrayList<>();
  private int next;

  PartHealing(
      Context ctx,
      ValueLayout.Bound bound,
      PartsLayout layout,
      LogEntry entry,
      Version version,
      ValueLayout.Health health) {
    this.ctx = ctx;
    this.bound = bound;
    this.layout = layout;
    this.entry = entry;
    this.version = version;
    this.health = health;
  }

  /** One holder to rebuild, and what of it is done. */
  private final class Target {
    final String holder;
    final boolean joined;
    final Set<Integer> damaged;

    /** Per damaged part object: done when it is put back (holders with part objects). */
    final Map<Integer, CompletableFuture<Void>> parts = new TreeMap<>();

    /** Done when the joined object is rewritten (joined holders). */
    final CompletableFuture<Void> whole = new CompletableFuture<>();

    MultipartUpload upload;
    ByteArrayOutputStream buffer;

    Target(String holder, Set<Integer> damaged) {
      this.holder = holder;
      this.joined = entry.joinedOn(holder);
      this.damaged = damaged;
      if (!joined) {
        for (int p : damaged) {
          parts.put(p, new CompletableFuture<>());
        }
      }
    }

    boolean needs(int p) {
      return joined ? !whole.isDone() : parts.containsKey(p) && !parts.get(p).isDone();
    }

    void fail(int p, Throwable e) {
      if (joined) {
        if (whole.completeExceptionally(e) && upload != null) {
          upload.abort();
        }
      } else {
        parts.get(p).completeExceptionally(e);
      }
    }
  }

  /** Starts the pass; one {@link ValueLayout.Restore} per object it puts back. */
  List<ValueLayout.Restore> start() {
    List<ValueLayout.Restore> out = new ArrayList<>();
    health
        .damaged()
        .forEach(
            (holder, parts) -> {
              if (!entry.holders().contains(holder) || parts.isEmpty()) {
                return;
              }
              Target t = new Target(holder, parts);
              targets.add(t);
              if (t.joined) {
                out.add(
                    new ValueLayout.Restore(
                        holder + ": joined data " + entry.dataObject() + " of version " + version,
                        t.whole));
              } else {
                t.parts.forEach(
                    (p, done) ->
                        out.add(
                            new ValueLayout.Restore(
                                holder
                                    + ": data "
                                    + LogEntry.partObject(entry.dataObject(), p)
                                    + " of version "
                                    + version,
                                done)));
              }
            });
    if (targets.isEmpty()) {
      return out;
    }
    CompletableFuture<Void> pass =
        begin().thenCompose(x -> Loop.repeat(ctx, this::turn)).thenCompose(x -> finish());
    Futures.onEnd(
        pass,
        (x, e) -> {
          // Whatever ended the pass (a cancelled repair, a closed client) ends every target.
          Throwable cause =
              e != null ? Futures.unwrap(e) : new IllegalStateException("repair pass ended early");
          for (Target t : targets) {
            if (t.joined) {
              t.fail(-1, cause);
            } else {
              t.parts.forEach((p, done) -> done.completeExceptionally(cause));
            }
          }
        });
    return out;
  }

  /** Begins a native upload on every joined holder that still offers one the parts fit. */
  private CompletableFuture<Void> begin() {
    List<CompletableFuture<Void>> begun = new ArrayList<>();
    for (Target t : targets) {
      if (!t.joined) {
        continue;
      }
      Cloud c = ctx.byId.get(t.holder);
      if (c == null) {
        t.fail(-1, new IllegalStateException("the cloud is not configured"));
        continue;
      }
      Optional<Multipart> mp =
          c.driver().multipart().filter(m -> m.fits(entry.storedPartSize(0), entry.partCount()));
      if (mp.isEmpty()) {
        t.buffer = new ByteArrayOutputStream();
        continue;
      }
      begun.add(
          bound
              .apply(mp.get().begin(ObjectKey.of(entry.dataObject())), t.holder + " begin")
              .handle(
                  (up, e) -> {
                    if (e != null) {
                      t.fail(-1, Futures.unwrap(e));
                    } else if (t.whole.isDone()) {
                      up.abort();
                    } else {
                      t.upload = up;
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(begun.toArray(new CompletableFuture<?>[0]));
  }

  /** One part: fetched once if any holder needs it, then put to each that does. */
  private CompletableFuture<Boolean> turn() {
    if (next >= entry.partCount()) {
      return CompletableFuture.completedFuture(false);
    }
    int p = next++;
    List<Target> needing = new ArrayList<>();
    for (Target t : targets) {
      if (t.needs(p)) {
        needing.add(t);
      }
    }
    if (needing.isEmpty()) {
      return CompletableFuture.completedFuture(true);
    }
    return copyOf(p)
        .handle(
            (bytes, e) -> {
              List<CompletableFuture<Void>> puts = new ArrayList<>();
              for (Target t : needing) {
                if (e != null) {
                  t.fail(p, Futures.unwrap(e));
                } else {
                  puts.add(put(t, p, bytes));
                }
              }
              return CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0]))
                  .thenApply(x -> true);
            })
        .thenCompose(f -> f);
  }

  /**
   * A copy of part {@code p} whose bytes match its signed hash: from the holders verify found right
   * in it (fastest first), then from those it knows nothing about; never from one it found damaged.
   */
  private CompletableFuture<byte[]> copyOf(int p) {
    List<String> sources = health.split(entry.holders(), p).sources(ctx, entry.storedPartSize(p));
    return Repairs.firstValid(
            ctx, bound, layout, sources, s -> layout.check(s, p), entry.storedPartSize(p))
        .exceptionally(
            e -> {
              throw new java.util.concurrent.CompletionException(
                  new IllegalStateException(
                      "part "
                          + p
                          + " is missing everywhere: no holder returned a copy matching its"
                          + " signed hash"));
            });
  }

  /** Puts part {@code p} to {@code t}: its part object, its upload, or its buffer. */
  private CompletableFuture<Void> put(Target t, int p, byte[] bytes) {
    if (!t.joined) {
      CompletableFuture<Void> done = t.parts.get(p);
      return Repairs.put(
              ctx,
              bound,
              t.holder,
              LogEntry.partObject(entry.dataObject(), p),
              CompletableFuture.completedFuture(bytes))
          .handle(
              (x, e) -> {
                if (e != null) {
                  done.completeExceptionally(Futures.unwrap(e));
                } else {
                  done.complete(null);
                }
                return null;
              });
    }
    if (t.buffer != null) {
      t.buffer.writeBytes(bytes);
      return CompletableFuture.completedFuture(null);
    }
    return bound
        .apply(t.upload.putPart(p, bytes), t.holder + " part " + p)
        .handle(
            (x, e) -> {
              if (e != null) {
                t.fail(p, Futures.unwrap(e));
              }
              return null;
            });
  }

  /** Completes every joined holder still going: its upload, or one put of its buffer. */
  private CompletableFuture<Void> finish() {
    List<CompletableFuture<Void>> ends = new ArrayList<>();
    for (Target t : targets) {
      if (!t.joined || t.whole.isDone()) {
        continue;
      }
      CompletableFuture<Void> end =
          t.buffer != null
              ? bound.apply(
                  ctx.byId
                      .get(t.holder)
                      .driver()
                      .put(ObjectKey.of(entry.dataObject()), t.buffer.toByteArray()),
                  t.holder + " put")
              : bound.apply(t.upload.complete(entry.partCount()), t.holder + " complete");
      t.buffer = null;
      ends.add(
          end.handle(
              (x, e) -> {
                if (e != null) {
                  t.fail(-1, Futures.unwrap(e));
                } else {
                  t.whole.complete(null);
                }
                return null;
              }));
    }
    return CompletableFuture.allOf(ends.toArray(new CompletableFuture<?>[0]));
  }
}
