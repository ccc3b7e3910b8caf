package io.rafestore.spi;

import io.rafestore.spi.support.Futures;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A passive object store: the only thing RafeStore asks of a cloud.
 *
 * <p><b>Contract.</b> Every method returns at once and reports its outcome through the returned
 * future; failures complete it exceptionally with a {@link CloudException} naming {@link #id()} (a
 * missing object is {@link CloudException.Kind#NOT_FOUND}). A driver never returns {@code null} for
 * failure. {@code put} replaces an existing object whole; readers never see a partial object.
 * Arrays: a driver never modifies the array given to {@code put} and may read it until the returned
 * future completes (so the caller must not change it before then); it keeps it longer only as a
 * copy. An array returned by {@code get} belongs to the caller, who may modify it.
 *
 * <p><b>Cancellation.</b> Cancelling a returned future tells the driver the result is no longer
 * wanted; the driver aborts the request where its SDK allows and otherwise lets it finish and drops
 * the result. A cancelled {@code put} may or may not have taken effect.
 *
 * <p><b>Fault model.</b> RafeStore assumes nothing about a driver's honesty: a driver (or the cloud
 * behind it) may lie, lose data or hang, and the protocol masks up to f such clouds. Retry,
 * timeouts, accounting, WAN emulation and fault injection are decorators around a driver, not part
 * of it.
 *
 * <p><b>Thread-safety.</b> Implementations must be safe for concurrent use by many threads.
 */
public interface CloudDriver extends AutoCloseable {

  /** A short stable id for this cloud, used in metadata, errors and statistics (e.g. "p0"). */
  String id();

  /** Stores {@code data} under {@code key}, replacing any existing object. */
  CompletableFuture<Void> put(ObjectKey key, byte[] data);

  /**
   * Reads an object, or the given range of it.
   *
   * @param range empty for the whole object
   */
  CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range);

  /** Reads a whole object. */
  default CompletableFuture<byte[]> get(ObjectKey key) {
    return get(key, Optional.empty());
  }

  /**
   * A conditional get: given the tag a previous {@link #getTagged} of this key on this driver
   * answered, the cloud answers {@link TaggedGet#unchanged} (a request, no bytes) if the object
   * still has it, and the object's bytes ({@code range} of them, as {@link #get(ObjectKey,
   * Optional)} clips it) with its current tag otherwise (If-None-Match on S3 and Azure,
   * ifGenerationNotMatch on GCS). The tag is always that of the whole object. RafeStore asks so for
   * metadata logs it already holds, with a range that bounds what a faulty cloud can make it
   * download.
   *
   * <p>The default makes a plain {@link #get(ObjectKey, Optional)} and gives no tag, so a caller
   * never sends one: correct for every driver, without the saving. A driver overrides it only if it
   * answers "unchanged" exactly when the object's content is the one the tag was given for. A
   * decorator that changes gets and does not override this method keeps the default, so its {@code
   * get} applies (the default never bypasses it).
   *
   * @param range empty for the whole object
   * @param ifNoneMatch empty for an unconditional get; otherwise a tag this driver gave for {@code
   *     key}
   */
  default CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    return io.rafestore.spi.support.Futures.relay(get(key, range), b -> TaggedGet.of(b, null));
  }

  /**
   * Whether {@link #getTagged} gives tags (and so can answer "unchanged"); false by default. A
   * caller asks conditional gets only of a driver that says so, and plain ranged gets otherwise. A
   * decorator that forwards {@code getTagged} with its behaviour applied forwards this too; one
   * that does not keeps false.
   */
  default boolean conditionalGets() {
    return false;
  }

  /**
   * A conditional put: stores {@code data} under {@code key} only if the object is still the one a
   * previous {@link #getTagged} of this key on this driver gave {@code ifMatch} for, or, with
   * {@code ifMatch} empty, only if no object is stored under {@code key} (If-Match and
   * If-None-Match "*" on S3 and Azure, ifGenerationMatch on GCS, a check-and-set script on Redis).
   * The check and the store are one atomic step at the cloud: no other put can land between them.
   * Completes with {@code true} if it stored, {@code false} if the condition did not hold (nothing
   * was stored).
   *
   * <p>RafeStore asks it when repair copies a writer's log onto a cloud it found behind: the
   * writer's own newer log may have landed there since repair read the cloud, and a plain put would
   * replace it with the older one.
   *
   * <p>The default fails with a {@link CloudException} ({@link CloudException.Kind#OTHER}): a
   * caller asks only a driver whose {@link #conditionalPuts()} is true. A decorator that changes
   * puts and does not override this method keeps the default (and false), so it is never bypassed.
   *
   * @param ifMatch empty to store only where no object exists; otherwise a tag this driver's {@link
   *     #getTagged} gave for {@code key}
   */
  default CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    return CompletableFuture.failedFuture(
        new CloudException(
            id(), CloudException.Kind.OTHER, "this driver does not offer conditional puts"));
  }

  /**
   * Whether {@link #putIfMatch} is offered; false by default. A driver says true only if its {@link
   * #getTagged} gives a tag for every object and {@link #putIfMatch} checks that same tag. A
   * decorator that forwards {@code putIfMatch} with its behaviour applied forwards this too.
   */
  default boolean conditionalPuts() {
    return false;
  }

  /** Deletes an object. Deleting a missing object succeeds (deletes are idempotent). */
  CompletableFuture<Void> delete(ObjectKey key);

  /**
   * Lists the objects whose name starts with {@code prefix} (the empty string lists all), in
   * ascending name order. The driver follows its SDK's paging and returns the full listing.
   */
  CompletableFuture<List<ObjectInfo>> list(String prefix);

  /**
   * The cloud's native multipart upload, if the driver offers one; empty by default, and then large
   * values are stored as separate part objects. A decorator forwards its delegate's capability with
   * its own behaviour applied to each call, or returns empty if it cannot (never a capability that
   * bypasses it).
   */
  default Optional<Multipart> multipart() {
    return Optional.empty();
  }

  /**
   * One page of the listing of {@code prefix}: at most {@code limit} objects whose names are
   * greater than {@code startAfter} (in {@link String#compareTo} order, which for the ASCII names
   * of {@link ObjectKey} is byte order, the order S3, GCS and Azure list in), ascending, and
   * whether more may follow. A caller walks a listing by passing the last name of one page as the
   * next page's {@code startAfter}, so it holds one page at a time whatever the size of the bucket.
   *
   * <p>The default filters the full {@link #list(String)}: correct for every driver, but it holds
   * the full listing while it pages; drivers whose SDK can start a listing after a name (S3's
   * {@code StartAfter}, GCS's {@code startOffset}, a sorted map) override it.
   *
   * @param startAfter the empty string to start at the beginning
   * @param limit at least 1
   * @throws IllegalArgumentException if {@code limit} is below 1 (thrown, not in the future)
   */
  default CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    CompletableFuture<List<ObjectInfo>> all = list(prefix);
    CompletableFuture<ListPage> page =
        all.thenApply(objects -> ListPage.of(objects, prefix, startAfter, limit));
    // Cancelling the page cancels the listing behind it.
    Futures.onEnd(
        page,
        (r, e) -> {
          if (page.isCancelled()) {
            all.cancel(true);
          }
        });
    return page;
  }

  /** Releases the driver's connections and threads. Idempotent. */
  @Override
  void close();
}
