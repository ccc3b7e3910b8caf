package io.rafestore.internal.util;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executor clients use unless given one: one JVM-wide fork-join pool of daemon threads, at
 * least two wide.
 *
 * <p>Why not {@link ForkJoinPool#commonPool()}: on a machine with two CPUs its parallelism is 1,
 * and then {@link java.util.concurrent.CompletableFuture}'s async methods do not use it at all but
 * start a new thread for every task. Under load that meant thousands of threads (the scale
 * benchmark saw more than 17,000 created). This pool's size is bounded by the number of CPUs (at
 * least 2), so threads stay bounded however many operations are in flight; being shared, many
 * clients in one JVM do not multiply it, and its daemon threads never keep the JVM alive.
 */
public final class DefaultExecutor {
  private static final AtomicInteger NEXT = new AtomicInteger();

  private static final ForkJoinPool POOL =
      new ForkJoinPool(
          Math.max(2, Runtime.getRuntime().availableProcessors()),
          pool -> {
            ForkJoinWorkerThread t =
                ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setDaemon(true);
            t.setName("rafestore-worker-" + NEXT.incrementAndGet());
            return t;
          },
          null,
          true);

  private DefaultExecutor() {}

  /** The shared pool. */
  public static ForkJoinPool get() {
    return POOL;
  }
}
