package io.rafestore.cli;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A driver under another id: lets the benchmark put a configured cloud (say {@code minio}) in the
 * place of its profile's {@code p1}, so statistics and prices are keyed by the profile's ids.
 */
final class RenamedCloud implements CloudDriver {
  private final String id;
  private final CloudDriver inner;

  RenamedCloud(String id, CloudDriver inner) {
    this.id = Objects.requireNonNull(id, "id");
    this.inner = Objects.requireNonNull(inner, "inner");
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return inner.put(key, data);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    return inner.get(key, range);
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return inner.delete(key);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return inner.list(prefix);
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    return inner.list(prefix, startAfter, limit);
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public String toString() {
    return id + " (" + inner.id() + ")";
  }
}
