package io.rafestore.internal.util;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/** Small helpers for {@link CompletableFuture} plumbing shared by the client and decorators. */
public final class Futures {
  private Futures() {}

  /**
   * A new future that completes as {@code inner} does and, when cancelled, cancels {@code inner}:
   * the way every decorator hands a driver's future to its caller so cancellation reaches the
   * driver.
   */
  public static <T> CompletableFuture<T> relay(CompletableFuture<T> inner) {
    CompletableFuture<T> outer = new CompletableFuture<>();
    inner.whenComplete(completer(outer));
    outer.whenComplete(
        (r, e) -> {
          if (outer.isCancelled()) {
            inner.cancel(true);
          }
        });
    return outer;
  }

  /**
   * Like {@link #relay(CompletableFuture)}, but the new future completes with {@code map} applied
   * to {@code inner}'s value (an exception thrown by {@code map} fails it). Cancelling it still
   * cancels {@code inner}, which a plain {@code inner.thenApply(map)} would not do.
   */
  public static <T, U> CompletableFuture<U> relay(
      CompletableFuture<T> inner, Function<? super T, ? extends U> map) {
    CompletableFuture<U> outer = new CompletableFuture<>();
    inner.thenApply(map).whenComplete(completer(outer));
    outer.whenComplete(
        (r, e) -> {
          if (outer.isCancelled()) {
            inner.cancel(true);
          }
        });
    return outer;
  }

  /**
   * Like {@link #relay(CompletableFuture)}, but a failure of {@code inner} reaches the new future
   * translated by {@code translate} (unwrapped first): how a driver turns its SDK's exceptions into
   * {@code CloudException}s while cancellation still reaches the SDK's request.
   */
  public static <T> CompletableFuture<T> relayTranslating(
      CompletableFuture<T> inner, Function<Throwable, ? extends Throwable> translate) {
    CompletableFuture<T> outer = new CompletableFuture<>();
    inner.whenComplete(
        (v, e) -> {
          if (e == null) {
            outer.complete(v);
          } else {
            outer.completeExceptionally(translate.apply(unwrap(e)));
          }
        });
    outer.whenComplete(
        (r, e) -> {
          if (outer.isCancelled()) {
            inner.cancel(true);
          }
        });
    return outer;
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

  /** A callback that completes {@code target} with the outcome it is given, unwrapping. */
  public static <T> BiConsumer<T, Throwable> completer(CompletableFuture<T> target) {
    return (value, error) -> {
      if (error == null) {
        target.complete(value);
      } else {
        target.completeExceptionally(unwrap(error));
      }
    };
  }

  /** Strips {@link CompletionException} and {@link ExecutionException} wrappers. */
  public static Throwable unwrap(Throwable t) {
    Throwable cur = t;
    while ((cur instanceof CompletionException || cur instanceof ExecutionException)
        && cur.getCause() != null) {
      cur = cur.getCause();
    }
    return cur;
  }

  /** Whether {@code t} (unwrapped) is a cancellation. */
  public static boolean isCancellation(Throwable t) {
    return unwrap(t) instanceof CancellationException;
  }
}
