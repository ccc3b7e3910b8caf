package io.rafestore.internal.protocol;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/** A cloud whose puts of matching objects fail (an upload failing part-way through a value). */
final class FailingPuts extends ForwardingCloud {
  private final Predicate<ObjectKey> fails;

  FailingPuts(CloudDriver delegate, Predicate<ObjectKey> fails) {
    super(delegate);
    this.fails = fails;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    if (fails.test(key)) {
      return CompletableFuture.failedFuture(
          new CloudException(id(), CloudException.Kind.UNAVAILABLE, "injected failure " + key));
    }
    return super.put(key, data);
  }
}
