package io.rafestore.spi;

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

  /** Deletes an object. Deleting a missing object succeeds (deletes are idempotent). */
  CompletableFuture<Void> delete(ObjectKey key);

  /**
   * Lists the objects whose name starts with {@code prefix} (the empty string lists all), in
   * ascending name order. The driver follows its SDK's paging and returns the full listing.
   */
  CompletableFuture<List<ObjectInfo>> list(String prefix);

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
    page.whenComplete(
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
