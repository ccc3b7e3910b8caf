package io.rafestore.internal.cloud;

import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectKey;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A decorator's view of its delegate's {@link Multipart}: every call goes through the decorator's
 * {@link Hooks}, so accounting, WAN delays and injected faults apply to each part, to {@code
 * complete} and to {@code abort} exactly as they apply to a put. One place for the forwarding, so
 * no decorator can hand out its delegate's capability unwrapped (which would bypass it).
 */
public final class ForwardedMultipart {
  private ForwardedMultipart() {}

  /**
   * What a decorator does around each multipart call; each hook gets the call to the delegate
   * (which it may make, delay, or replace with a failure). The defaults just make the call.
   */
  public interface Hooks {
    default CompletableFuture<MultipartUpload> begin(
        ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
      return call.get();
    }

    /** {@code call} puts the bytes it is given as the part (a decorator may alter them). */
    default CompletableFuture<Void> putPart(
        ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
      return call.apply(data);
    }

    default CompletableFuture<Void> complete(
        ObjectKey key, int count, Supplier<CompletableFuture<Void>> call) {
      return call.get();
    }

    default CompletableFuture<Void> abort(ObjectKey key, Supplier<CompletableFuture<Void>> call) {
      return call.get();
    }
  }

  /** {@code inner} (the delegate's capability, if any) with {@code hooks} around every call. */
  public static Optional<Multipart> wrap(Optional<Multipart> inner, Hooks hooks) {
    Objects.requireNonNull(hooks, "hooks");
    return inner.map(m -> new Wrapped(m, hooks));
  }

  private record Wrapped(Multipart inner, Hooks hooks) implements Multipart {
    @Override
    public long minPartSize() {
      return inner.minPartSize();
    }

    @Override
    public long maxPartSize() {
      return inner.maxPartSize();
    }

    @Override
    public int maxParts() {
      return inner.maxParts();
    }

    @Override
    public CompletableFuture<MultipartUpload> begin(ObjectKey key) {
      Objects.requireNonNull(key, "key");
      return hooks
          .begin(key, () -> inner.begin(key))
          .thenApply(u -> (MultipartUpload) new WrappedUpload(u, hooks));
    }
  }

  private record WrappedUpload(MultipartUpload inner, Hooks hooks) implements MultipartUpload {
    @Override
    public ObjectKey key() {
      return inner.key();
    }

    @Override
    public CompletableFuture<Void> putPart(int index, byte[] data) {
      Objects.requireNonNull(data, "data");
      return hooks.putPart(inner.key(), index, data, bytes -> inner.putPart(index, bytes));
    }

    @Override
    public CompletableFuture<Void> complete(int count) {
      return hooks.complete(inner.key(), count, () -> inner.complete(count));
    }

    @Override
    public CompletableFuture<Void> abort() {
      return hooks.abort(inner.key(), inner::abort);
    }
  }
}
