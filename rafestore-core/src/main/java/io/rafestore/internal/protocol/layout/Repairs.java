package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** The requests repair makes for any layout: a checked copy from another holder, and a put. */
final class Repairs {
  private Repairs() {}

  /**
   * The bytes of the first of {@code sources} (from index {@code i}) that {@code layout} says hold
   * what {@code checkOn} asks of that source; fails when none does.
   */
  static CompletableFuture<byte[]> firstValid(
      Context ctx,
      ValueLayout.Bound bound,
      ValueLayout layout,
      List<String> sources,
      Function<String, ValueLayout.Check> checkOn,
      int i) {
    if (i >= sources.size()) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("no other holder returned bytes matching the signed hash"));
    }
    Cloud c = ctx.byId.get(sources.get(i));
    if (c == null) {
      return firstValid(ctx, bound, layout, sources, checkOn, i + 1);
    }
    ValueLayout.Check check = checkOn.apply(c.id());
    return bound
        .apply(c.driver().get(ObjectKey.of(check.object()), check.range()), c.id() + " data")
        .handle((b, e) -> e == null && layout.holds(c.id(), check, b) ? b : null)
        .thenCompose(
            b ->
                b != null
                    ? CompletableFuture.completedFuture(b)
                    : firstValid(ctx, bound, layout, sources, checkOn, i + 1));
  }

  /**
   * Puts {@code bytes} once they are in as {@code object} on {@code holder}. Cancelling the result
   * (repair's copy limit) cancels the put, not {@code bytes}, which other holders' copies may
   * share.
   */
  static CompletableFuture<Void> put(
      Context ctx,
      ValueLayout.Bound bound,
      String holder,
      String object,
      CompletableFuture<byte[]> bytes) {
    return Futures.compose(
        bytes,
        b ->
            bound.apply(
                ctx.byId.get(holder).driver().put(ObjectKey.of(object), b), holder + " put"));
  }
}
