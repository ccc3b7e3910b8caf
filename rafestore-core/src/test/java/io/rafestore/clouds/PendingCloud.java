package io.rafestore.clouds;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A cloud whose requests never finish on their own; tests complete or inspect the futures it handed
 * out, to watch cancellation reach a driver.
 */
final class PendingCloud implements CloudDriver {
  final List<CompletableFuture<?>> calls = new ArrayList<>();

  private <T> CompletableFuture<T> pending() {
    CompletableFuture<T> f = new CompletableFuture<>();
    calls.add(f);
    return f;
  }

  @Override
  public String id() {
    return "pending";
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return pending();
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    return pending();
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return pending();
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return pending();
  }

  @Override
  public void close() {}
}
