package io.rafestore.internal.protocol.maintenance;

import io.rafestore.CloudFault;
import io.rafestore.KeyPage;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.Loop;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.quorum.QuorumGather;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Paged listings for maintenance: a cloud's listing is walked one page at a time ({@link
 * io.rafestore.spi.CloudDriver#list(String, String, int)}), so memory is one page per cloud
 * whatever the size of the bucket, and the store-wide key listing is merged page by page.
 *
 * <p>A listing comes from a cloud that may lie. A page is used only as far as it is plausible:
 * names outside the prefix, not after the page's start or not ascending are dropped, and a page
 * that claims more but brought no usable name ends that cloud's walk (it would otherwise never
 * advance). A lying cloud can still list names that do not exist or leave out ones that do; the
 * callers check everything they take from a listing (metadata is verified, data matched against
 * signed hashes), so a lie costs requests, never correctness.
 */
public final class Listings {
  /** Objects per page: S3's largest page, so one request each on S3. */
  public static final int PAGE = 1000;

  private Listings() {}

  /**
   * Walks the listing of {@code prefix} on {@code cloud} page by page, each page bounded by half
   * the operation timeout ({@link Verifier#timed}), calling {@code onPage} with its plausible
   * objects and going on when the future it returns completes. The walk is a {@link Loop}: no stack
   * growth with the number of pages, and it stops (cancelling the page request or page work in
   * flight) when its future completes by any other hand (cancel, timeout, client close).
   */
  public static CompletableFuture<Void> walk(
      Context ctx,
      Cloud cloud,
      String prefix,
      int pageSize,
      Function<List<ObjectInfo>, CompletableFuture<Void>> onPage) {
    return walk(ctx, null, cloud, prefix, pageSize, onPage);
  }

  /**
   * {@link #walk(Context, Cloud, String, int, Function)} as one of a pass's walks over several
   * clouds, paced by {@code pacing} (null: not paced): the walk waits rather than run far ahead of
   * the others, and fails with {@link NotFollowed} once it has gone far past where the clouds that
   * ended their listings ended.
   */
  public static CompletableFuture<Void> walk(
      Context ctx,
      Pacing pacing,
      Cloud cloud,
      String prefix,
      int pageSize,
      Function<List<ObjectInfo>, CompletableFuture<Void>> onPage) {
    Walk w = new Walk(ctx, pacing, cloud, prefix, pageSize, onPage);
    CompletableFuture<Void> loop = Loop.repeat(ctx, w::turn);
    if (pacing != null) {
      Futures.onEnd(loop, (r, e) -> pacing.finished(cloud, e == null));
    }
    return loop;
  }

  /** One cloud's walk: where it is, and one turn of its loop (a page, or a wait for the others). */
  private static final class Walk {
    private final Context ctx;
    private final Pacing pacing;
    private final Cloud cloud;
    private final String prefix;
    private final int pageSize;
    private final Function<List<ObjectInfo>, CompletableFuture<Void>> onPage;
    private volatile String startAfter = "";

    Walk(
        Context ctx,
        Pacing pacing,
        Cloud cloud,
        String prefix,
        int pageSize,
        Function<List<ObjectInfo>, CompletableFuture<Void>> onPage) {
      this.ctx = ctx;
      this.pacing = pacing;
      this.cloud = cloud;
      this.prefix = prefix;
      this.pageSize = pageSize;
      this.onPage = onPage;
    }

    /** Completes with whether another turn follows; cancelling it cancels what is in flight. */
    CompletableFuture<Boolean> turn() {
      if (pacing != null) {
        Pacing.Decision d = pacing.decide(cloud);
        if (d.stop() != null) {
          return CompletableFuture.failedFuture(d.stop());
        }
        if (d.later() != null) {
          return d.later().thenApply(x -> true);
        }
      }
      String from = startAfter;
      CompletableFuture<ListPage> request =
          Verifier.timed(
              ctx, cloud.driver().list(prefix, from, pageSize), cloud.id() + " list " + prefix);
      CompletableFuture<Boolean> out = new CompletableFuture<>();
      AtomicReference<CompletableFuture<Void>> work = new AtomicReference<>();
      Futures.onEnd(
          out,
          (r, e) -> {
            if (out.isCancelled()) {
              request.cancel(true);
              CompletableFuture<Void> w = work.get();
              if (w != null) {
                w.cancel(true);
              }
            }
          });
      Futures.onEnd(
          request,
          (page, e) -> {
            if (e != null) {
              out.completeExceptionally(e);
              return;
            }
            if (out.isDone()) {
              return;
            }
            List<ObjectInfo> usable = plausible(page, prefix, from, pageSize);
            boolean more = page.more() && !usable.isEmpty();
            if (more) {
              startAfter = usable.get(usable.size() - 1).key().value();
            }
            if (pacing != null) {
              pacing.paged(cloud);
            }
            CompletableFuture<Void> w;
            try {
              w = onPage.apply(usable);
            } catch (RuntimeException ex) {
              out.completeExceptionally(ex);
              return;
            }
            work.set(w);
            if (out.isCancelled()) {
              w.cancel(true);
              return;
            }
            Futures.onEnd(
                w,
                (x, e2) -> {
                  if (e2 != null) {
                    out.completeExceptionally(e2);
                  } else {
                    out.complete(more);
                  }
                });
          });
      return out;
    }
  }

  /**
   * A cloud's listing was not followed to its end: it went on far past where the listings of the
   * clouds that ended had ended (an endless or hostile listing, or one far longer than every other
   * cloud's). An answer, like an error: the pass names the cloud and does not take its silence
   * beyond that point as "nothing there".
   */
  static final class NotFollowed extends java.io.IOException {
    private static final long serialVersionUID = 1L;

    NotFollowed(String message) {
      super(message);
    }
  }

  /**
   * Paces the walks of one pass over several clouds (a collection's, orphan collection's, purge's
   * or verify's listing of one prefix), so that a cloud whose listing never ends, or runs far
   * ahead, costs bounded requests and memory and the pass still finishes once n - f clouds ended.
   *
   * <p>Two rules, per page:
   *
   * <ul>
   *   <li><b>No running ahead.</b> A walk may fetch its next page only while it is less than {@link
   *       #AHEAD} pages ahead of the walk that is {@code quorum}-th furthest (ended walks count as
   *       furthest); otherwise it waits until the others move. The {@code quorum}-th furthest walk
   *       itself may always go, so with at most f clouds hung the others never all wait: the pass
   *       is live.
   *   <li><b>A cap once enough listings ended.</b> When f + 1 walks have ended their listings (one
   *       of them a correct cloud's), or all but f have finished one way or another, a walk may
   *       fetch at most {@code 2 * longest + AHEAD} pages, {@code longest} being the most pages an
   *       ended walk took; past that it fails with {@link NotFollowed}. A correct cloud's listing
   *       of the same prefix is about as long as another correct cloud's, so only a listing that is
   *       endless or holds far more names than every ended one (names that, if real, are
   *       unreferenced: left for the next pass) is cut.
   * </ul>
   *
   * Thread-safe.
   */
  public static final class Pacing {
    /** How many pages a walk may be ahead of the quorum-th furthest walk. */
    public static final int AHEAD = 2;

    record Decision(CompletableFuture<Void> later, NotFollowed stop) {}

    private static final Decision GO = new Decision(null, null);

    private final String prefix;
    private final int quorum;
    private final int trusted;
    private final Map<String, Integer> pages = new java.util.HashMap<>();
    private final Map<String, Boolean> finished = new java.util.HashMap<>();
    private List<CompletableFuture<Void>> waiters = new ArrayList<>();

    Pacing(Context ctx, List<Cloud> clouds, String prefix) {
      this.prefix = prefix;
      this.quorum = QuorumGather.quorumOf(ctx, clouds);
      this.trusted = Math.min(quorum, ctx.f() + 1);
      for (Cloud c : clouds) {
        pages.put(c.id(), 0);
      }
    }

    synchronized Decision decide(Cloud c) {
      int mine = pages.getOrDefault(c.id(), 0);
      int ended = 0;
      int longest = 0;
      for (Map.Entry<String, Boolean> e : finished.entrySet()) {
        if (e.getValue()) {
          ended++;
          longest = Math.max(longest, pages.get(e.getKey()));
        }
      }
      if (ended >= trusted || finished.size() >= quorum) {
        int cap = 2 * longest + AHEAD;
        if (mine >= cap) {
          return new Decision(
              null,
              new NotFollowed(
                  "listing of "
                      + prefix
                      + " not followed past "
                      + mine
                      + " pages: it had not ended when "
                      + ended
                      + " clouds' listings had (the longest in "
                      + longest
                      + " pages)"));
        }
        return GO;
      }
      List<Integer> progress = new ArrayList<>();
      for (Map.Entry<String, Integer> e : pages.entrySet()) {
        progress.add(
            finished.containsKey(e.getKey()) ? Integer.valueOf(Integer.MAX_VALUE) : e.getValue());
      }
      progress.sort(java.util.Comparator.reverseOrder());
      int reference = progress.get(Math.min(quorum, progress.size()) - 1);
      if (mine - reference < AHEAD) {
        return GO;
      }
      CompletableFuture<Void> w = new CompletableFuture<>();
      waiters.add(w);
      return new Decision(w, null);
    }

    void paged(Cloud c) {
      List<CompletableFuture<Void>> wake;
      synchronized (this) {
        pages.merge(c.id(), 1, Integer::sum);
        wake = takeWaiters();
      }
      wake.forEach(w -> w.complete(null));
    }

    void finished(Cloud c, boolean ended) {
      List<CompletableFuture<Void>> wake;
      synchronized (this) {
        finished.put(c.id(), ended);
        wake = takeWaiters();
      }
      wake.forEach(w -> w.complete(null));
    }

    private List<CompletableFuture<Void>> takeWaiters() {
      List<CompletableFuture<Void>> out = waiters;
      waiters = new ArrayList<>();
      return out;
    }
  }

  /** The objects of {@code page} a correct cloud could have returned, in order. */
  static List<ObjectInfo> plausible(ListPage page, String prefix, String startAfter, int limit) {
    List<ObjectInfo> out = new ArrayList<>(Math.min(limit, page.objects().size()));
    String previous = startAfter;
    for (ObjectInfo o : page.objects()) {
      String name = o.key().value();
      if (out.size() == limit) {
        break;
      }
      if (name.startsWith(prefix) && name.compareTo(previous) > 0) {
        out.add(o);
        previous = name;
      }
    }
    return out;
  }

  /** How many keys listed by too few clouds are checked against their metadata at once. */
  static final int CHECK_BATCH = 32;

  /**
   * Up to {@code limit} keys after {@code after} (null for the first page), in the order of their
   * encoded names (the listing order; {@link Names#encodeKey}). Each cloud is asked for one page of
   * {@code m/} at a time, in rounds ({@link QuorumGather}: a round ends at n - f answers plus the
   * grace). A round's page of keys is complete up to its <em>bound</em>: the point that n - f
   * clouds' listings reached (the (f+1)-th smallest last name among the clouds that said more
   * follow, a cloud that ended counting as past everything). So one cloud whose listing runs
   * behind, never ends or brings only names of its own cannot hold the walk back, and the walk ends
   * once n - f clouds ended their listings; a cloud still saying "more" then is named in a {@link
   * CloudFault} and not followed.
   *
   * <p>A key is returned if at least f + 1 clouds listed it (one of them is correct, so it has a
   * metadata object there), or, listed by fewer, if readM of it finds a validly signed log of a
   * trusted writer (checked {@link #CHECK_BATCH} at a time, only as far as the page needs). So a
   * faulty cloud that lists invented names gets none of them returned. A key whose metadata reached
   * n - f clouds is never missed: up to any bound, n - f clouds listed, and they share at least n -
   * 2f >= f + 1 clouds with its holders, one of them correct, which lists it; then it has f + 1
   * listings or its check's readM (n - f valid replies, again sharing a correct holder) finds its
   * log.
   */
  public static CompletableFuture<KeyPage> keys(Context ctx, String after, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("key page limit must be >= 1, was " + limit);
    }
    if (after != null) {
      Names.checkKey(after);
    }
    KeyWalk w = new KeyWalk(ctx, after, limit);
    CompletableFuture<Void> loop = Loop.repeat(ctx, w::round);
    return Loop.tied(loop, loop.thenApply(x -> w.page));
  }

  private static String objectPrefix(String encodedKey) {
    return Names.METADATA_PREFIX + encodedKey + "/";
  }

  /** The key listing of one page: rounds of one listing page per cloud, then the checks. */
  private static final class KeyWalk {
    private final Context ctx;
    private final String after;
    private final int limit;
    private final int pageObjects;
    private final int quorum;
    private String cursor;
    private final List<String> keys = new ArrayList<>();
    private volatile KeyPage page;

    KeyWalk(Context ctx, String after, int limit) {
      this.ctx = ctx;
      this.after = after;
      this.limit = limit;
      // Writer ids use only A-Z a-z 0-9 - _, all below '~': this cursor is after every log of key
      // 'after' and before every name of the next key.
      this.cursor = after == null ? "" : objectPrefix(Names.encodeKey(after)) + "~";
      // A key has at most one log per writer on a cloud; ask for enough objects to fill the page.
      long perKey = Math.max(1, ctx.settings.trustedWriters().size());
      this.pageObjects = (int) Math.min(PAGE * 10L, Math.max(1, limit * perKey));
      this.quorum = QuorumGather.quorumOf(ctx, ctx.clouds);
    }

    /** One round; completes with whether another round is needed. */
    CompletableFuture<Boolean> round() {
      String from = cursor;
      CompletableFuture<QuorumGather.Result<ListPage>> gathered =
          QuorumGather.run(
              ctx,
              ctx.clouds,
              quorum,
              c ->
                  Verifier.timed(
                      ctx,
                      c.driver().list(Names.METADATA_PREFIX, from, pageObjects),
                      c.id() + " list " + Names.METADATA_PREFIX));
      return Loop.tied(gathered, gathered.thenCompose(r -> merge(r, from)));
    }

    private CompletableFuture<Boolean> merge(QuorumGather.Result<ListPage> r, String from) {
      for (Map.Entry<Cloud, Throwable> e : r.errors().entrySet()) {
        ctx.report(
            "", Maintenance.fault(e.getKey(), "list " + Names.METADATA_PREFIX, e.getValue()));
      }
      for (Cloud c : r.late()) {
        ctx.report(
            "",
            new CloudFault(
                c.id(),
                CloudFault.Kind.ERROR,
                "list " + Names.METADATA_PREFIX + ": " + r.lateReason(quorum)));
      }
      // How far each cloud's listing reached: null = it ended; a cloud that failed, was late or
      // said "more" with no usable name reached no further than the cursor.
      List<String> reach = new ArrayList<>();
      Map<Cloud, List<ObjectInfo>> usableBy = new java.util.LinkedHashMap<>();
      List<Cloud> goingOn = new ArrayList<>();
      for (Cloud c : ctx.clouds) {
        ListPage p = r.values().get(c);
        if (p == null) {
          reach.add(from);
          continue;
        }
        List<ObjectInfo> usable = plausible(p, Names.METADATA_PREFIX, from, pageObjects);
        usableBy.put(c, usable);
        if (!p.more()) {
          reach.add(null);
        } else if (usable.isEmpty()) {
          reach.add(from);
        } else {
          reach.add(usable.get(usable.size() - 1).key().value());
          goingOn.add(c);
        }
      }
      // The (f+1)-th smallest reach: n - f clouds listed at least that far (null: past the end).
      reach.sort(java.util.Comparator.nullsLast(java.util.Comparator.naturalOrder()));
      String bound = reach.get(Math.min(ctx.f(), reach.size() - 1));
      if (bound != null && bound.compareTo(from) <= 0) {
        // More than f clouds failed, were late or listed nothing usable: no point is known to
        // be listed by n - f clouds, so no key can be returned as complete.
        int got = 0;
        for (String x : reach) {
          got += x == null || x.compareTo(from) > 0 ? 1 : 0;
        }
        List<CloudFault> faults = new ArrayList<>();
        r.errors().forEach((c, e) -> faults.add(Maintenance.fault(c, "list m/", e)));
        return CompletableFuture.failedFuture(
            new io.rafestore.QuorumException(
                "key listing after '" + from + "'", quorum, got, faults));
      }
      if (bound == null) {
        for (Cloud c : goingOn) {
          ctx.report(
              "",
              new CloudFault(
                  c.id(),
                  CloudFault.Kind.ERROR,
                  "list "
                      + Names.METADATA_PREFIX
                      + ": still said more follow when "
                      + (ctx.clouds.size() - ctx.f())
                      + " clouds' listings had ended; not followed further"));
        }
      }
      // Per key (by its object-name prefix, which sorts in listing order): the clouds listing it.
      TreeMap<String, Listed> found = new TreeMap<>();
      usableBy.forEach(
          (c, usable) -> {
            for (ObjectInfo o : usable) {
              String name = o.key().value();
              if (bound != null && name.compareTo(bound) > 0) {
                break;
              }
              int slash = name.lastIndexOf('/');
              if (slash <= Names.METADATA_PREFIX.length()) {
                continue;
              }
              String encoded = name.substring(Names.METADATA_PREFIX.length(), slash);
              String k = Names.decodeKey(encoded);
              if (k != null && !k.equals(after)) {
                found.computeIfAbsent(objectPrefix(encoded), x -> new Listed(k)).by.add(c.id());
              }
            }
          });
      java.util.Iterator<Listed> it = found.values().iterator();
      CompletableFuture<Void> checked = Loop.repeat(ctx, () -> admitBatch(it));
      return Loop.tied(
          checked,
          checked.thenApply(
              x -> {
                boolean full = keys.size() == limit;
                if (full || bound == null) {
                  // More may follow past a full page, or past the bound.
                  page = new KeyPage(List.copyOf(keys), full && (it.hasNext() || bound != null));
                  return false;
                }
                if (keys.isEmpty()) {
                  // Only names that are not keys up to the bound: go on after it.
                  cursor = bound;
                  return true;
                }
                page = new KeyPage(List.copyOf(keys), true);
                return false;
              }));
    }

    /**
     * Takes keys in order from {@code it} until the page is full, checking those with too few
     * listings at most {@link #CHECK_BATCH} at a time; completes with whether to go on.
     */
    private CompletableFuture<Boolean> admitBatch(java.util.Iterator<Listed> it) {
      List<Listed> batch = new ArrayList<>();
      int unsure = 0;
      while (it.hasNext() && keys.size() + batch.size() < limit && unsure < CHECK_BATCH) {
        Listed l = it.next();
        batch.add(l);
        if (l.by.size() <= ctx.f()) {
          unsure++;
          l.signed = MetadataRead.run(ctx, l.key).thenApply(view -> !view.logs.isEmpty());
        }
      }
      if (batch.isEmpty()) {
        return CompletableFuture.completedFuture(false);
      }
      List<CompletableFuture<Boolean>> checks = new ArrayList<>();
      for (Listed l : batch) {
        if (l.signed != null) {
          checks.add(l.signed);
        }
      }
      CompletableFuture<Void> all =
          CompletableFuture.allOf(checks.toArray(new CompletableFuture<?>[0]));
      Futures.onEnd(
          all,
          (x, e) -> {
            if (all.isCancelled()) {
              checks.forEach(c -> c.cancel(true));
            }
          });
      return Loop.tied(
          all,
          all.thenApply(
              x -> {
                for (Listed l : batch) {
                  if (l.signed == null || l.signed.join()) {
                    keys.add(l.key);
                  }
                }
                return it.hasNext() && keys.size() < limit;
              }));
    }
  }

  /** A key found in a round's listings, and which clouds listed it. */
  private static final class Listed {
    final String key;
    final java.util.Set<String> by = new java.util.HashSet<>();
    CompletableFuture<Boolean> signed;

    Listed(String key) {
      this.key = key;
    }
  }

  /**
   * Every key, walking the pages in a {@link Loop}; holds the keys and one page per cloud, not
   * every name. Cancelling (or failing) the returned future stops the walk.
   */
  public static CompletableFuture<List<String>> allKeys(Context ctx) {
    List<String> out = new ArrayList<>();
    String[] after = {null};
    CompletableFuture<Void> loop =
        Loop.repeat(
            ctx,
            () -> {
              CompletableFuture<KeyPage> next = keys(ctx, after[0], PAGE);
              return Loop.tied(
                  next,
                  next.thenApply(
                      page -> {
                        out.addAll(page.keys());
                        if (!page.more() || page.keys().isEmpty()) {
                          return false;
                        }
                        after[0] = page.keys().get(page.keys().size() - 1);
                        return true;
                      }));
            });
    return Loop.tied(
        loop,
        loop.thenApply(
            x -> {
              // Listing order is that of encoded names; keys() promises String order.
              out.sort(null);
              return out;
            }));
  }
}
