package io.rafestore.internal.protocol.quorum;

import io.rafestore.CloudFault;
import io.rafestore.QuorumException;
import io.rafestore.Scheduler;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.selection.LogTargets;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

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

  /**
   * writeM: the writer's signed log to all n clouds (under the cost objective to the n - f cheapest
   * first, {@link Context#logPlan}), n - f acknowledgements.
   */
  public static CompletableFuture<List<String>> metadata(
      Context ctx, String key, String writer, byte[] bytes, String phase) {
    return metadata(ctx, key, writer, c -> bytes, phase);
  }

  /**
   * As above, with a payload per cloud (the confidentiality option's per-cloud key shares). Where
   * the log goes is {@link Context#logPlan}'s: every cloud at once (the latency objective), or,
   * under the cost objective, the n - f cheapest clouds first and the others only when one of those
   * fails or the quorum is late ({@link #hedged}).
   */
  public static CompletableFuture<List<String>> metadata(
      Context ctx,
      String key,
      String writer,
      java.util.function.Function<Cloud, byte[]> payload,
      String phase) {
    ObjectKey object = Names.metadataObject(key, writer);
    if (!ctx.logsMayLag()) {
      return run(
          ctx, key, object, payload, ctx.clouds, ctx.settings.quorum(), phase, METADATA_LINGER);
    }
    // The payloads of the clouds asked, each made once (per-cloud envelopes cost a share each).
    Map<String, byte[]> made = new ConcurrentHashMap<>();
    java.util.function.Function<Cloud, byte[]> once =
        c -> made.computeIfAbsent(c.id(), x -> payload.apply(c));
    LogTargets.Plan plan = ctx.logPlan(once.apply(ctx.clouds.get(0)).length);
    if (plan.everyCloud()) {
      return run(ctx, key, object, once, ctx.clouds, ctx.settings.quorum(), phase, METADATA_LINGER);
    }
    return hedged(ctx, key, object, once, plan, phase, METADATA_LINGER);
  }

  /**
   * Puts {@code object} on the plan's first clouds and completes with the ids of the first n - f
   * that acknowledged. A spare is started at once for each put that fails, and, each time the hedge
   * deadline passes without the quorum, as many spares as acknowledgements are still missing (the
   * clouds still out are demoted: {@link Context#demoteLogCloud}). Every spare is started after at
   * most f deadlines, so with at most f faulty clouds (failing or silent) n - f correct ones
   * acknowledge: a cloud that hangs forever delays the write by a deadline, never blocks it. Fails
   * with {@link QuorumException} once more than f clouds failed. Puts still running at the quorum
   * linger as writeM's always did; no spare is started after it.
   */
  static CompletableFuture<List<String>> hedged(
      Context ctx,
      String key,
      ObjectKey object,
      java.util.function.Function<Cloud, byte[]> payload,
      LogTargets.Plan plan,
      String phase,
      Duration linger) {
    List<Cloud> first = new ArrayList<>();
    for (String id : plan.first()) {
      first.add(ctx.byId.get(id));
    }
    List<Cloud> spares = new ArrayList<>();
    for (String id : plan.spares()) {
      spares.add(ctx.byId.get(id));
    }
    return new Round(
            ctx,
            key,
            object,
            payload,
            first,
            spares,
            ctx.settings.quorum(),
            plan.hedgeAfter(),
            phase,
            linger)
        .start();
  }

  /**
   * One quorum put ({@link #run}, {@link #hedged}); its state is guarded by itself. Without spares
   * it is the plain phase: every target asked at once, no deadline, no log-plan bookkeeping.
   */
  private static final class Round {
    final Context ctx;
    final String key;
    final ObjectKey object;
    final java.util.function.Function<Cloud, byte[]> payload;
    final List<Cloud> first;

    /** When spares are started if the quorum is late; null: no spares, no deadline. */
    final Duration hedgeAfter;

    final String phase;
    final Duration linger;
    final int quorum;
    final int tolerated;
    final CompletableFuture<List<String>> result = new CompletableFuture<>();
    final List<String> acks = new ArrayList<>();
    final List<CloudFault> faults = new ArrayList<>();
    final Map<String, CompletableFuture<Void>> puts = new java.util.LinkedHashMap<>();
    final java.util.ArrayDeque<Cloud> spares = new java.util.ArrayDeque<>();
    Scheduler.Cancellable timer;

    /** {@link #finish} ran: the puts registered until then linger or were cancelled. */
    boolean finished;

    Round(
        Context ctx,
        String key,
        ObjectKey object,
        java.util.function.Function<Cloud, byte[]> payload,
        List<Cloud> first,
        List<Cloud> spares,
        int quorum,
        Duration hedgeAfter,
        String phase,
        Duration linger) {
      this.ctx = ctx;
      this.key = key;
      this.object = object;
      this.payload = payload;
      this.first = first;
      this.spares.addAll(spares);
      this.hedgeAfter = spares.isEmpty() ? null : hedgeAfter;
      this.phase = phase;
      this.linger = linger;
      this.quorum = quorum;
      this.tolerated = first.size() + spares.size() - quorum;
    }

    /** Whether this put follows a log plan (spares, a deadline, demotions), not a plain phase. */
    private boolean planned() {
      return hedgeAfter != null;
    }

    CompletableFuture<List<String>> start() {
      if (planned()) {
        synchronized (this) {
          timer = ctx.settings.scheduler().schedule(hedgeAfter, this::deadline);
        }
      }
      // The first targets are all asked even if the quorum is reached while they are (a cloud
      // answering at once): writeM's surplus puts bring the remaining clouds up to date.
      for (Cloud c : first) {
        send(c, true);
      }
      Futures.onEnd(result, (r, e) -> finish());
      return result;
    }

    /** The hedge deadline passed: start a spare per missing acknowledgement, and wait again. */
    private void deadline() {
      List<Cloud> start = new ArrayList<>();
      synchronized (this) {
        if (result.isDone()) {
          return;
        }
        puts.forEach(
            (id, p) -> {
              if (!p.isDone()) {
                ctx.demoteLogCloud(id);
              }
            });
        int missing = quorum - acks.size();
        while (missing-- > 0 && !spares.isEmpty()) {
          start.add(spares.poll());
        }
        timer =
            spares.isEmpty() ? null : ctx.settings.scheduler().schedule(hedgeAfter, this::deadline);
      }
      for (Cloud c : start) {
        send(c, false);
      }
    }

    /**
     * Asks {@code cloud}; unless {@code always}, only while the result is unknown. The driver is
     * called outside the lock; a put that registers after {@link #finish} lingers on its own.
     */
    private void send(Cloud cloud, boolean always) {
      if (!always) {
        synchronized (this) {
          if (result.isDone()) {
            return;
          }
        }
      }
      CompletableFuture<Void> put = cloud.driver().put(object, payload.apply(cloud));
      boolean afterFinish;
      synchronized (this) {
        puts.put(cloud.id(), put);
        afterFinish = finished;
      }
      Futures.onEnd(put, (r, e) -> answered(cloud, e));
      if (afterFinish && !put.isDone()) {
        lingerOrCancel(ctx, List.of(put), linger);
      }
    }

    private void answered(Cloud cloud, Throwable e) {
      CloudFault fault = null;
      List<String> done = null;
      QuorumException failure = null;
      Cloud replacement = null;
      if (e == null && planned()) {
        ctx.logCloudAnswered(cloud.id());
      }
      synchronized (this) {
        if (e == null) {
          acks.add(cloud.id());
          if (acks.size() == quorum) {
            done = List.copyOf(acks);
          }
        } else if (!Futures.isCancellation(e)) {
          fault =
              new CloudFault(
                  cloud.id(), CloudFault.Kind.ERROR, phase + ": " + Futures.unwrap(e).getMessage());
          faults.add(fault);
          if (faults.size() == tolerated + 1) {
            failure =
                new QuorumException(
                    phase + " of '" + key + "'", quorum, acks.size(), List.copyOf(faults));
          } else if (!result.isDone()) {
            replacement = spares.poll();
          }
        }
      }
      if (fault != null) {
        if (planned()) {
          ctx.demoteLogCloud(cloud.id());
        }
        ctx.report(key, fault);
      }
      if (done != null) {
        result.complete(done);
      } else if (failure != null) {
        result.completeExceptionally(failure);
      } else if (replacement != null) {
        send(replacement, false);
      }
    }

    /** The result is known: no more spares; the puts still running linger as writeM's do. */
    private void finish() {
      List<CompletableFuture<Void>> running = new ArrayList<>();
      synchronized (this) {
        finished = true;
        if (timer != null) {
          timer.cancel();
          timer = null;
        }
        for (CompletableFuture<Void> p : puts.values()) {
          if (!p.isDone()) {
            running.add(p);
          }
        }
      }
      lingerOrCancel(ctx, running, linger);
    }
  }

  /**
   * Lets {@code running} (puts still running after their phase's result) go on for {@code linger},
   * then cancels them; cancels them at once when {@code linger} is zero.
   */
  private static void lingerOrCancel(
      Context ctx, List<CompletableFuture<Void>> running, Duration linger) {
    if (running.isEmpty()) {
      return;
    }
    Runnable cancel =
        () -> {
          for (CompletableFuture<Void> p : running) {
            p.cancel(true);
          }
        };
    if (linger.isZero()) {
      cancel.run();
      return;
    }
    for (CompletableFuture<Void> p : running) {
      ctx.linger(p);
    }
    Scheduler.Cancellable timer = ctx.settings.scheduler().schedule(linger, cancel);
    Futures.onAllEnded(running, timer::cancel);
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
    return new Round(ctx, key, object, payload, targets, List.of(), quorum, null, phase, linger)
        .start();
  }
}
