package io.rafestore.internal.protocol;

import io.rafestore.CloudFault;
import io.rafestore.KeyPage;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
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
final class Listings {
  /** Objects per page: S3's largest page, so one request each on S3. */
  static final int PAGE = 1000;

  private Listings() {}

  /**
   * Walks the listing of {@code prefix} on {@code cloud} page by page, each page bounded by half
   * the operation timeout ({@link Verifier#timed}), calling {@code onPage} with its plausible
   * objects and going on when the future it returns completes. Cancelling the returned future
   * cancels the page request or page work in flight and stops the walk.
   */
  static CompletableFuture<Void> walk(
      Context ctx,
      Cloud cloud,
      String prefix,
      int pageSize,
      Function<List<ObjectInfo>, CompletableFuture<Void>> onPage) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    AtomicReference<CompletableFuture<?>> current = new AtomicReference<>();
    done.whenComplete(
        (r, e) -> {
          CompletableFuture<?> c = current.get();
          if (done.isCancelled() && c != null) {
            c.cancel(true);
          }
        });
    step(ctx, cloud, prefix, "", pageSize, onPage, done, current);
    return done;
  }

  private static void step(
      Context ctx,
      Cloud cloud,
      String prefix,
      String startAfter,
      int pageSize,
      Function<List<ObjectInfo>, CompletableFuture<Void>> onPage,
      CompletableFuture<Void> done,
      AtomicReference<CompletableFuture<?>> current) {
    if (done.isDone()) {
      return;
    }
    CompletableFuture<ListPage> request =
        Verifier.timed(
            ctx, cloud.driver().list(prefix, startAfter, pageSize), cloud.id() + " list " + prefix);
    current.set(request);
    if (done.isCancelled()) {
      request.cancel(true);
      return;
    }
    request.whenComplete(
        (page, e) -> {
          if (e != null) {
            done.completeExceptionally(e);
            return;
          }
          List<ObjectInfo> usable = plausible(page, prefix, startAfter, pageSize);
          CompletableFuture<Void> work = onPage.apply(usable);
          current.set(work);
          if (done.isCancelled()) {
            work.cancel(true);
            return;
          }
          work.whenComplete(
              (x, e2) -> {
                if (e2 != null) {
                  done.completeExceptionally(e2);
                } else if (!page.more() || usable.isEmpty()) {
                  done.complete(null);
                } else {
                  String last = usable.get(usable.size() - 1).key().value();
                  step(ctx, cloud, prefix, last, pageSize, onPage, done, current);
                }
              });
        });
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

  /**
   * Up to {@code limit} keys after {@code after} (null for the first page) that have a metadata
   * object on at least one cloud that answered, in the order of their encoded names (the listing
   * order; {@link Names#encodeKey}). Each cloud is asked for one page of {@code m/} at a time; the
   * page of keys is complete up to the smallest last name among the clouds that said more follow,
   * so no key a listing holds is skipped, and keys past that bound come on a later page. The
   * listings finish at a quorum ({@link QuorumGather}): a key whose metadata reached n - f clouds
   * is listed by at least one correct cloud among any n - f, so only keys that exist on fewer
   * clouds (lost, being repaired) can be missed when a cloud does not answer; it is then reported
   * as a {@link CloudFault}.
   */
  static CompletableFuture<KeyPage> keys(Context ctx, String after, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("key page limit must be >= 1, was " + limit);
    }
    if (after != null) {
      Names.checkKey(after);
    }
    // Writer ids use only A-Z a-z 0-9 - _, all below '~': this cursor is after every log of key
    // 'after' and before every name of the next key.
    String cursor = after == null ? "" : objectPrefix(Names.encodeKey(after)) + "~";
    // A key has at most one log per writer on a cloud; ask for enough objects to fill the page.
    long perKey = Math.max(1, ctx.settings.trustedWriters().size());
    int pageObjects = (int) Math.min(PAGE * 10L, Math.max(1, limit * perKey));
    return keyStep(ctx, after, cursor, limit, pageObjects);
  }

  private static String objectPrefix(String encodedKey) {
    return Names.METADATA_PREFIX + encodedKey + "/";
  }

  private static CompletableFuture<KeyPage> keyStep(
      Context ctx, String after, String cursor, int limit, int pageObjects) {
    int quorum = QuorumGather.quorumOf(ctx, ctx.clouds);
    return QuorumGather.run(
            ctx,
            ctx.clouds,
            quorum,
            c ->
                Verifier.timed(
                    ctx,
                    c.driver().list(Names.METADATA_PREFIX, cursor, pageObjects),
                    c.id() + " list " + Names.METADATA_PREFIX))
        .thenCompose(
            r -> {
              for (Map.Entry<Cloud, Throwable> e : r.errors().entrySet()) {
                ctx.report(
                    "",
                    Maintenance.fault(e.getKey(), "list " + Names.METADATA_PREFIX, e.getValue()));
              }
              for (Cloud c : r.late()) {
                ctx.report(
                    "",
                    new CloudFault(
                        c.id(),
                        CloudFault.Kind.ERROR,
                        "list " + Names.METADATA_PREFIX + ": " + r.lateReason(quorum)));
              }
              // The page is complete up to the smallest last name of a cloud with more to come.
              String bound = null;
              List<List<ObjectInfo>> pages = new ArrayList<>();
              for (ListPage page : r.values().values()) {
                List<ObjectInfo> usable =
                    plausible(page, Names.METADATA_PREFIX, cursor, pageObjects);
                pages.add(usable);
                if (page.more() && !usable.isEmpty()) {
                  String last = usable.get(usable.size() - 1).key().value();
                  if (bound == null || last.compareTo(bound) < 0) {
                    bound = last;
                  }
                }
              }
              // Sorted by the key's object-name prefix, which is the listing order.
              TreeMap<String, String> found = new TreeMap<>();
              for (List<ObjectInfo> page : pages) {
                for (ObjectInfo o : page) {
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
                    found.put(objectPrefix(encoded), k);
                  }
                }
              }
              List<String> keys = new ArrayList<>();
              boolean more = bound != null;
              for (String k : found.values()) {
                if (keys.size() == limit) {
                  more = true;
                  break;
                }
                keys.add(k);
              }
              if (keys.isEmpty() && bound != null) {
                // Only names that are not keys up to the bound: go on after them.
                return keyStep(ctx, after, bound, limit, pageObjects);
              }
              return CompletableFuture.completedFuture(new KeyPage(keys, more));
            });
  }

  /** Every key, walking the pages; holds the keys and one page per cloud, not every name. */
  static CompletableFuture<List<String>> allKeys(Context ctx) {
    List<String> out = new ArrayList<>();
    return allKeys(ctx, null, out);
  }

  private static CompletableFuture<List<String>> allKeys(
      Context ctx, String after, List<String> out) {
    return keys(ctx, after, PAGE)
        .thenCompose(
            page -> {
              out.addAll(page.keys());
              if (!page.more() || page.keys().isEmpty()) {
                // Listing order is that of encoded names; keys() promises String order.
                out.sort(null);
                return CompletableFuture.completedFuture(out);
              }
              return allKeys(ctx, page.keys().get(page.keys().size() - 1), out);
            });
  }
}
