package io.rafestore.internal.cloud;

import io.rafestore.CloudStats;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Counts what is asked of a driver: the numbers behind {@link CloudStats}. The client wraps every
 * driver in one of these.
 *
 * <p>A request is counted when it is started, whatever becomes of it; its payload bytes up (a put's
 * data) are counted then too, its bytes down (a get's answer) when the answer arrives. A request
 * that completes exceptionally counts as <em>cancelled</em> if the caller cancelled it (or the
 * driver reports a cancellation) and as an <em>error</em> otherwise. Cancelling a returned future
 * cancels the driver's future.
 *
 * <p>Native multipart uploads ({@link #multipart()}) are counted as the clouds bill them: starting
 * and completing an upload are puts, each part is a put with its bytes up, an abort is a delete.
 *
 * <p><b>Fault model.</b> Adds none: answers, errors and lies of the wrapped driver pass through
 * unchanged. <b>Thread-safety.</b> Safe for concurrent use; counters are {@link LongAdder}s, so a
 * {@link #snapshot()} taken while requests run may mix counts from just before and just after a
 * request, but never loses one.
 */
public final class AccountingCloud extends ForwardingCloud {
  private final LongAdder puts = new LongAdder();
  private final LongAdder gets = new LongAdder();
  private final LongAdder deletes = new LongAdder();
  private final LongAdder lists = new LongAdder();
  private final LongAdder bytesUp = new LongAdder();
  private final LongAdder bytesDown = new LongAdder();
  private final LongAdder cancelled = new LongAdder();
  private final LongAdder errors = new LongAdder();

  /** Counts the requests made to {@code delegate} through this wrapper. */
  public AccountingCloud(CloudDriver delegate) {
    super(delegate);
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    // Reject bad arguments before counting, so the counts only hold requests really made.
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    puts.increment();
    bytesUp.add(data.length);
    return watch(delegate().put(key, data));
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    gets.increment();
    // Count the bytes before the caller sees them, so a snapshot after a get includes them.
    return watch(
        Futures.relay(
            delegate().get(key, range),
            b -> {
              bytesDown.add(b.length);
              return b;
            }));
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    deletes.increment();
    return watch(delegate().delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    lists.increment();
    return watch(delegate().list(prefix));
  }

  @Override
  protected CompletableFuture<MultipartUpload> beginUpload(
      ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
    puts.increment();
    return watch(call.get());
  }

  @Override
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    puts.increment();
    bytesUp.add(data.length);
    return watch(call.apply(data));
  }

  @Override
  protected CompletableFuture<Void> completeUpload(
      ObjectKey key, int count, Supplier<CompletableFuture<Void>> call) {
    puts.increment();
    return watch(call.get());
  }

  /** An abort is billed as a delete. */
  @Override
  protected CompletableFuture<Void> abortUpload(
      ObjectKey key, Supplier<CompletableFuture<Void>> call) {
    deletes.increment();
    return watch(call.get());
  }

  /** One page is one list request. */
  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    lists.increment();
    return watch(delegate().list(prefix, startAfter, limit));
  }

  private <T> CompletableFuture<T> watch(CompletableFuture<T> inner) {
    CompletableFuture<T> outer = Futures.relay(inner);
    outer.whenComplete(
        (r, e) -> {
          if (e != null) {
            if (outer.isCancelled() || Futures.isCancellation(e)) {
              cancelled.increment();
            } else {
              errors.increment();
            }
          }
        });
    return outer;
  }

  /** The counts so far. */
  public CloudStats snapshot() {
    return new CloudStats(
        delegate().id(),
        puts.sum(),
        gets.sum(),
        deletes.sum(),
        lists.sum(),
        bytesUp.sum(),
        bytesDown.sum(),
        cancelled.sum(),
        errors.sum());
  }

  @Override
  public String toString() {
    return "AccountingCloud[" + snapshot() + "]";
  }
}
