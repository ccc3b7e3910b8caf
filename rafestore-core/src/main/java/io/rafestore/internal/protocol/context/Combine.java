package io.rafestore.internal.protocol.context;

import io.rafestore.spi.support.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * The protocol's combinator of two requests that run side by side (a value's data and its key
 * shares, a part and the next). Drivers never combine requests, so this is not with the driver
 * helpers in {@link Futures}. Stateless; thread-safe.
 */
public final class Combine {
  private Combine() {}

  /**
   * Combines two futures that run side by side: completes with {@code combine} of both values (run
   * on {@code executor}), or fails with the first failure of either and then cancels the other.
   * Unlike {@code a.thenCombine(b, ...)}, whose failure is {@code a}'s even when {@code a} was only
   * cancelled because {@code b} failed, the caller sees the failure that caused the others.
   * Cancelling the returned future cancels both.
   */
  public static <A, B, R> CompletableFuture<R> both(
      CompletableFuture<A> a,
      CompletableFuture<B> b,
      BiFunction<? super A, ? super B, ? extends R> combine,
      Executor executor) {
    CompletableFuture<R> out = new CompletableFuture<>();
    BiConsumer<Object, Throwable> firstFailure =
        (v, e) -> {
          if (e != null && out.completeExceptionally(Futures.unwrap(e))) {
            a.cancel(true);
            b.cancel(true);
          }
        };
    Futures.onEnd(a, firstFailure);
    Futures.onEnd(b, firstFailure);
    Futures.onEnd(a.thenCombineAsync(b, combine, executor), Futures.completer(out));
    Futures.onEnd(
        out,
        (r, e) -> {
          if (out.isCancelled()) {
            a.cancel(true);
            b.cancel(true);
          }
        });
    return out;
  }
}
