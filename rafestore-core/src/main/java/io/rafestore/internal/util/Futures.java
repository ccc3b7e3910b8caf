package io.rafestore.internal.util;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The protocol package's name for {@link io.rafestore.spi.support.Futures}, which holds the one
 * implementation. It exists only so that the protocol package's imports stay as they are while that
 * package is being split into rooms (issue 15); once it has settled, its imports move to {@code
 * io.rafestore.spi.support.Futures} and this class goes.
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
