package io.rafestore.spi.support;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Runs a blocking SDK call on a bounded pool and reports it through a {@link CompletableFuture},
 * for drivers over SDKs without an asynchronous API (Redis, Google Cloud Storage).
 *
 * <p>Cancelling the returned future before the call starts means the call never runs (it is dropped
 * from the queue when its turn comes); cancelling it while the call runs lets the call finish and
 * drops the result, because interrupting an SDK mid-request can leave a pooled connection in an
 * unknown state.
 */
public final class BlockingCalls {
  private BlockingCalls() {}

  /** A pool of at most {@code threads} daemon threads named {@code name-N}, with a queue. */
  public static ExecutorService boundedPool(String name, int threads) {
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name + "-" + count.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Runs {@code call} on {@code pool}; a failure completes the future with {@code
   * errorMapper.apply(failure)}, as does a pool that was shut down.
   */
  public static <T> CompletableFuture<T> submit(
      ExecutorService pool,
      Callable<T> call,
      Function<Throwable, ? extends Throwable> errorMapper) {
    Objects.requireNonNull(call, "call");
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      pool.execute(
          () -> {
            if (result.isDone()) {
              return; // cancelled while queued: never start the request
            }
            try {
              result.complete(call.call());
            } catch (Throwable t) {
              if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
              }
              result.completeExceptionally(errorMapper.apply(t));
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(errorMapper.apply(e));
    }
    return result;
  }
}
