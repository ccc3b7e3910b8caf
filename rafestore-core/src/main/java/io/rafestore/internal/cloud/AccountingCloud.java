package io.rafestore.internal.cloud;

import io.rafestore.CloudStats;
import io.rafestore.internal.util.Futures;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what is asked of a driver: requests by kind, payload bytes each way, cancelled requests
 * and errors. Cancelling a returned future cancels the driver's future. Thread-safe.
 */
public final class AccountingCloud implements CloudDriver {
  private final CloudDriver delegate;
  private final LongAdder puts = new LongAdder();
  private final LongAdder gets = new LongAdder();
  private final LongAdder deletes = new LongAdder();
  private final LongAdder lists = new LongAdder();
  private final LongAdder bytesUp = new LongAdder();
  private final LongAdder bytesDown = new LongAdder();
  private final LongAdder cancelled = new LongAdder();
  private final LongAdder errors = new LongAdder();

  public AccountingCloud(CloudDriver delegate) {
    this.delegate = delegate;
  }

  @Override
  public String id() {
    return delegate.id();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    puts.increment();
    bytesUp.add(data.length);
    return watch(delegate.put(key, data));
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    gets.increment();
    CompletableFuture<byte[]> f = watch(delegate.get(key, range));
    f.thenAccept(b -> bytesDown.add(b.length));
    return f;
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    deletes.increment();
    return watch(delegate.delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    lists.increment();
    return watch(delegate.list(prefix));
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
        delegate.id(),
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
  public void close() {
    delegate.close();
  }
}
