package io.rafestore.internal.protocol;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/** A cloud whose puts of matching objects fail (an upload failing part-way through a value). */
final class FailingPuts implements CloudDriver {
  private final CloudDriver delegate;
  private final Predicate<ObjectKey> fails;

  FailingPuts(CloudDriver delegate, Predicate<ObjectKey> fails) {
    this.delegate = delegate;
    this.fails = fails;
  }

  @Override
  public String id() {
    return delegate.id();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    if (fails.test(key)) {
      return CompletableFuture.failedFuture(
          new CloudException(id(), CloudException.Kind.UNAVAILABLE, "injected failure " + key));
    }
    return delegate.put(key, data);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    return delegate.get(key, range);
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
