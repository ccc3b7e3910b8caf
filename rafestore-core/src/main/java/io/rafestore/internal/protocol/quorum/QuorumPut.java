package io.rafestore.internal.protocol.quorum;

import io.rafestore.CloudFault;
import io.rafestore.QuorumException;
import io.rafestore.Scheduler;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Puts one object on a set of clouds and completes with the ids of the first {@code quorum} that
 * acknowledged. A failed put never counts; once the quorum can no longer be reached the phase fails
 * with {@link QuorumException}.
 *
 * <p>Puts still running after the quorum either are cancelled at once (they are useless, e.g.
 * DepSky-A's surplus data uploads) or may linger for a bounded time (writeM: they bring the
 * remaining clouds up to date and their request is already paid), then are cancelled, so a cloud
 * that hangs forever cannot pin resources.
 */
public final class QuorumPut {
  /** How long writeM's surplus puts may run after the quorum. */
  static final Duration METADATA_LINGER = Duration.ofSeconds(30);

  private QuorumPut() {}

  /** writeM: the writer's signed log to all n clouds, n - f acknowledgements. */
  public static CompletableFuture<List<String>> metadata(
      Context ctx, String key, String writer, byte[] bytes, String phase) {
    return metadata(ctx, key, writer, c -> bytes, phase);
  }

  /** As above, with a payload per cloud (the confidentiality option's per-cloud key shares). */
  public static CompletableFuture<List<String>> metadata(
      Context ctx,
      String key,
      String writer,
      java.util.function.Function<Cloud, byte[]> payload,
      String phase) {
    return run(
        ctx,
        key,
        Names.metadataObject(key, writer),
        payload,
        ctx.clouds,
        ctx.settings.quorum(),
        phase,
        METADATA_LINGER);
  }

  public static CompletableFuture<List<String>> run(
      Context ctx,
      String key,
      ObjectKey object,
      byte[] bytes,
      List<Cloud> targets,
      int quorum,
      String phase,
      Duration linger) {
    return run(ctx, key, object, c -> bytes, targets, quorum, phase, linger);
  }

  /** As above, with a payload per cloud (DepSky-CA's per-cloud share and fragment). */
  public static CompletableFuture<List<String>> run(
      Context ctx,
      String key,
      ObjectKey object,
      java.util.function.Function<Cloud, byte[]> payload,
      List<Cloud> targets,
      int quorum,
      String phase,
      Duration linger) {
    CompletableFuture<List<String>> result = new CompletableFuture<>();
    List<String> acks = new ArrayList<>();
    List<CloudFault> faults = new ArrayList<>();
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    int tolerated = targets.size() - quorum;
    for (Cloud cloud : targets) {
      CompletableFuture<Void> put = cloud.driver().put(object, payload.apply(cloud));
      puts.add(put);
      put.whenComplete(
          (r, e) -> {
            CloudFault fault = null;
            List<String> done = null;
            QuorumException failure = null;
            synchronized (acks) {
              if (e == null) {
                acks.add(cloud.id());
                if (acks.size() == quorum) {
                  done = List.copyOf(acks);
                }
              } else if (!Futures.isCancellation(e)) {
                fault =
                    new CloudFault(
                        cloud.id(),
                        CloudFault.Kind.ERROR,
                        phase + ": " + Futures.unwrap(e).getMessage());
                faults.add(fault);
                if (faults.size() == tolerated + 1) {
                  failure =
                      new QuorumException(
                          phase + " of '" + key + "'", quorum, acks.size(), List.copyOf(faults));
                }
              }
            }
            if (fault != null) {
              ctx.report(key, fault);
            }
            if (done != null) {
              result.complete(done);
            } else if (failure != null) {
              result.completeExceptionally(failure);
            }
          });
    }
    Runnable cancelRest =
        () -> {
          for (CompletableFuture<Void> p : puts) {
            p.cancel(true);
          }
        };
    result.whenComplete(
        (r, e) -> {
          if (linger.isZero()) {
            cancelRest.run();
            return;
          }
          List<CompletableFuture<Void>> running = new ArrayList<>();
          for (CompletableFuture<Void> p : puts) {
            if (!p.isDone()) {
              running.add(p);
              ctx.linger(p);
            }
          }
          if (running.isEmpty()) {
            return;
          }
          Scheduler.Cancellable timer = ctx.settings.scheduler().schedule(linger, cancelRest);
          // Once the surplus puts have ended the timer has nothing left to cancel: drop it then,
          // rather than keep one per write alive for the whole linger (with thousands of writes a
          // second, a hundred thousand timers and the puts they hold, all copied by every GC).
          CompletableFuture.allOf(running.toArray(CompletableFuture<?>[]::new))
              .whenComplete((x, y) -> timer.cancel());
        });
    return result;
  }
}
