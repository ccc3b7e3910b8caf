package io.rafestore.internal.protocol;

import io.rafestore.internal.util.Futures;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Feeds the duration of every successful put and get into the {@link LatencyModel}. */
final class MeasuredCloud implements CloudDriver {
  private final CloudDriver delegate;
  private final LatencyModel model;

  MeasuredCloud(CloudDriver delegate, LatencyModel model) {
    this.delegate = delegate;
    this.model = model;
  }

  @Override
  public String id() {
    return delegate.id();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    long start = model.scheduler().nanoTime();
    CompletableFuture<Void> f = Futures.relay(delegate.put(key, data));
    f.thenRun(() -> model.record(id(), data.length, model.scheduler().nanoTime() - start));
    return f;
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    long start = model.scheduler().nanoTime();
    CompletableFuture<byte[]> f = Futures.relay(delegate.get(key, range));
    f.thenAccept(b -> model.record(id(), b.length, model.scheduler().nanoTime() - start));
    return f;
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return delegate.delete(key);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return delegate.list(prefix);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
