package io.rafestore.cli;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A driver under another id: lets the benchmark put a configured cloud (say {@code minio}) in the
 * place of its profile's {@code p1}, so statistics and prices are keyed by the profile's ids. Every
 * request, native multipart uploads, conditional gets and conditional puts included, goes to the
 * inner driver unchanged.
 */
final class RenamedCloud extends ForwardingCloud {
  private final String id;

  RenamedCloud(String id, CloudDriver inner) {
    super(Objects.requireNonNull(inner, "inner"));
    this.id = Objects.requireNonNull(id, "id");
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public boolean conditionalGets() {
    return delegate().conditionalGets();
  }

  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    return delegate().getTagged(key, range, ifNoneMatch);
  }

  @Override
  public boolean conditionalPuts() {
    return delegate().conditionalPuts();
  }

  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    return delegate().putIfMatch(key, data, ifMatch);
  }

  @Override
  public String toString() {
    return id + " (" + delegate().id() + ")";
  }
}
