package io.rafestore.internal.util;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The protocol package's name for {@link io.rafestore.spi.support.Futures}, which holds the one
 * implementation. It exists only so that the protocol package's imports stay as they are while that
 * package is being split into rooms (issue 15); once it has settled, its imports move to {@code
 * io.rafestore.spi.support.Futures} and this class goes. {@link #both} is the protocol's own
 * (drivers do not combine requests) and stays with the protocol when this class goes.
 */
public final class Futures {
  private Futures() {}

  /** See {@link io.rafestore.spi.support.Futures#relay(CompletableFuture)}. */
  public static <T> CompletableFuture<T> relay(CompletableFuture<T> inner) {
    return io.rafestore.spi.support.Futures.relay(inner);
  }

  /** See {@link io.rafestore.spi.support.Futures#relay(CompletableFuture, Function)}. */
  public static <T, U> CompletableFuture<U> relay(
      CompletableFuture<T> inner, Function<? super T, ? extends U> map) {
    return io.rafestore.spi.support.Futures.relay(inner, map);
  }

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
          if (e != null && out.completeExceptionally(unwrap(e))) {
            a.cancel(true);
            b.cancel(true);
          }
        };
    a.whenComplete(firstFailure);
    b.whenComplete(firstFailure);
    a.thenCombineAsync(b, combine, executor).whenComplete(completer(out));
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            a.cancel(true);
            b.cancel(true);
          }
        });
    return out;
  }

  /** See {@link io.rafestore.spi.support.Futures#completer}. */
  public static <T> BiConsumer<T, Throwable> completer(CompletableFuture<T> target) {
    return io.rafestore.spi.support.Futures.completer(target);
  }

  /** See {@link io.rafestore.spi.support.Futures#unwrap}. */
  public static Throwable unwrap(Throwable t) {
    return io.rafestore.spi.support.Futures.unwrap(t);
  }

  /** See {@link io.rafestore.spi.support.Futures#isCancellation}. */
  public static boolean isCancellation(Throwable t) {
    return io.rafestore.spi.support.Futures.isCancellation(t);
  }
}
