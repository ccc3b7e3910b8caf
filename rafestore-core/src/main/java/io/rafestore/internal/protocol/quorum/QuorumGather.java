package io.rafestore.internal.protocol.quorum;

import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One request to each of several clouds (a listing, or a cloud's share of a verify), finished the
 * way the protocol's reads finish: at a quorum of answers, not at the slowest cloud.
 *
 * <p>Once {@code quorum} clouds answered (a value or an error: either is an answer), the others get
 * a grace of twice as long as the quorum took, at least twice their predicted round trip (with the
 * bytes they were asked for, when the caller says) and at least {@link #MIN_GRACE}; an answer
 * within it is used, and a request still out after it is cancelled (but for one per cloud, left
 * running as its probe: its answer clears the cloud's late mark) and its cloud listed as {@link
 * Result#late}. This is a hedge, like the protocol's other timers: it decides which clouds a
 * maintenance report covers, never what is written or read. With at most f faulty clouds and {@code
 * quorum} at most the number of clouds minus f, the correct clouds alone reach the quorum, so one
 * hung cloud costs a grace, not half the operation timeout (which still bounds each request, for
 * when more than f clouds hang).
 */
public final class QuorumGather {
  /**
   * The shortest grace, so that a correct cloud a moment slower than the others (a GC pause, a
   * loaded machine) is still heard: maintenance is not latency-critical, and a correct cloud named
   * unreachable is a false finding in a report. It was 20 ms once; on a loaded machine a local
   * redis-server answered 32 ms after the others and a verify reported it unreachable.
   */
  public static final Duration MIN_GRACE = Duration.ofSeconds(2);

  /**
   * The grace when every cloud still out was late the last time it was asked ({@link
   * Context#lateClouds}): it is hung or far behind, and a walk over many keys (verifyAll, key
   * pages) must not pay {@link #MIN_GRACE} per key for it. Such a cloud is still asked each time;
   * any answer, in time or not (its probe's included), clears its mark.
   */
  static final Duration LATE_GRACE = Duration.ofMillis(20);

  /**
   * How long a late cloud's probe (the one late request per cloud left running) may run before it
   * is cancelled too: long enough for a stalled correct cloud, short enough that a hung one holds
   * nothing for long.
   */
  static final Duration PROBE_LIMIT = Duration.ofSeconds(30);

  private QuorumGather() {}

  /**
   * The longest grace: an eighth of the operation timeout (a quarter of a request's limit), so a
   * maintenance operation made of several gatherings (a repair: two verifies of two phases each,
   * and its copies between) ends within its operation timeout however slow the latency model has
   * learnt a cloud to be. A degraded cloud's prediction, doubled, once made each phase of a verify
   * wait for it for seconds, and repairs beside writers ran past their operation timeout
   * (StressHistoryTest with the repairer, 2026-11-29). At the default timeout of 5 minutes the cap
   * is 37.5 s, above any prediction a correct cloud earns; below 16 s it is also below {@link
   * #MIN_GRACE}, and wins.
   */
  static Duration maxGrace(Context ctx) {
    return ctx.requestLimit.dividedBy(4);
  }

  /**
   * What the clouds answered.
   *
   * @param values answers, by cloud, in the order the clouds were given
   * @param errors failed requests, by cloud
   * @param late clouds that had not answered when the grace ended (their requests were cancelled)
   * @param grace how long the late ones were waited for after the quorum
   */
  public record Result<T>(
      Map<Cloud, T> values, Map<Cloud, Throwable> errors, List<Cloud> late, Duration grace) {

    /** Why {@code c} is late, for a report. */
    public String lateReason(int quorum) {
      return "did not answer within "
          + grace.toMillis()
          + " ms after "
          + quorum
          + " clouds had; not waited for (its request was cancelled)";
    }
  }

  /**
   * Sends {@code request} to every cloud of {@code clouds} and completes as described above. Never
   * completes exceptionally: failures are in {@link Result#errors}.
   */
  public static <T> CompletableFuture<Result<T>> run(
      Context ctx, List<Cloud> clouds, int quorum, Function<Cloud, CompletableFuture<T>> request) {
    return run(ctx, clouds, quorum, request, c -> 0L);
  }

  /**
   * As {@link #run(Context, List, int, Function)}, each cloud asked to deliver {@code bytes} of it
   * (a verify's data checks): a cloud still out after the quorum is waited for at least twice the
   * time the latency model predicts for its round trip and those bytes, so a correct cloud that
   * simply has more to send than the others (a holder of a large value, beside clouds asked only
   * for a listing) is not named late.
   */
  public static <T> CompletableFuture<Result<T>> run(
      Context ctx,
      List<Cloud> clouds,
      int quorum,
      Function<Cloud, CompletableFuture<T>> request,
      java.util.function.ToLongFunction<Cloud> bytes) {
    return new Gathering<>(
            ctx, clouds, Math.max(1, Math.min(quorum, clouds.size())), request, bytes)
        .start();
  }

  /** The quorum for listings over {@code clouds}: all but f of them. */
  public static int quorumOf(Context ctx, List<Cloud> clouds) {
    return Math.max(1, clouds.size() - ctx.f());
  }

  private static final class Gathering<T> {
    private final Context ctx;
    private final List<Cloud> clouds;
    private final int quorum;
    private final Function<Cloud, CompletableFuture<T>> request;
    private final java.util.function.ToLongFunction<Cloud> bytes;
    private final CompletableFuture<Result<T>> result = new CompletableFuture<>();
    private final Map<Cloud, CompletableFuture<T>> pending = new LinkedHashMap<>();
    private final Map<Cloud, T> values = new LinkedHashMap<>();
    private final Map<Cloud, Throwable> errors = new LinkedHashMap<>();
    private long started;
    private int answered;
    private io.rafestore.Scheduler.Cancellable timer;
    private Duration grace = Duration.ZERO;

    Gathering(
        Context ctx,
        List<Cloud> clouds,
        int quorum,
        Function<Cloud, CompletableFuture<T>> request,
        java.util.function.ToLongFunction<Cloud> bytes) {
      this.ctx = ctx;
      this.clouds = List.copyOf(clouds);
      this.quorum = quorum;
      this.request = request;
      this.bytes = bytes;
    }

    CompletableFuture<Result<T>> start() {
      if (clouds.isEmpty()) {
        result.complete(new Result<>(Map.of(), Map.of(), List.of(), Duration.ZERO));
        return result;
      }
      List<Map.Entry<Cloud, CompletableFuture<T>>> sent = new ArrayList<>();
      synchronized (this) {
        started = ctx.settings.scheduler().nanoTime();
        for (Cloud c : clouds) {
          CompletableFuture<T> f;
          try {
            f = request.apply(c);
          } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
          }
          pending.put(c, f);
          sent.add(Map.entry(c, f));
        }
      }
      // Callbacks are attached outside the lock: a driver may answer synchronously.
      for (Map.Entry<Cloud, CompletableFuture<T>> e : sent) {
        Futures.onEnd(e.getValue(), (v, t) -> answer(e.getKey(), v, t));
      }
      return result;
    }

    private void answer(Cloud c, T value, Throwable error) {
      boolean finish = false;
      Duration arm = null;
      synchronized (this) {
        // Any answer shows the cloud is not hung: it gets the full grace again next time (the
        // cancellation of a late request is not an answer).
        if (error == null || !io.rafestore.spi.support.Futures.isCancellation(error)) {
          ctx.lateClouds.remove(c.id());
        }
        if (result.isDone() || pending.remove(c) == null) {
          return;
        }
        if (error != null) {
          errors.put(c, error);
        } else {
          values.put(c, value);
        }
        answered++;
        if (pending.isEmpty()) {
          finish = true;
        } else if (answered == quorum) {
          long took = ctx.settings.scheduler().nanoTime() - started;
          Duration g = Duration.ofNanos(2 * Math.max(0, took));
          boolean allLateBefore = true;
          for (Cloud p : pending.keySet()) {
            allLateBefore &= ctx.lateClouds.contains(p.id());
          }
          if (allLateBefore) {
            // Neither the floor nor the prediction (a hung cloud's estimate only grows).
            grace = g.compareTo(LATE_GRACE) < 0 ? LATE_GRACE : g;
          } else {
            for (Cloud p : pending.keySet()) {
              Duration predicted =
                  ctx.model.predict(p.id(), Math.max(0, bytes.applyAsLong(p))).multipliedBy(2);
              if (predicted.compareTo(g) > 0) {
                g = predicted;
              }
            }
            grace = g.compareTo(MIN_GRACE) < 0 ? MIN_GRACE : g;
          }
          Duration cap = maxGrace(ctx);
          if (grace.compareTo(cap) > 0) {
            grace = cap;
          }
          arm = grace;
        }
      }
      if (arm != null) {
        io.rafestore.Scheduler.Cancellable t = ctx.settings.scheduler().schedule(arm, this::expire);
        synchronized (this) {
          timer = t;
        }
      }
      if (finish) {
        finish(List.of());
      }
    }

    private void expire() {
      List<Map.Entry<Cloud, CompletableFuture<T>>> late;
      synchronized (this) {
        if (result.isDone()) {
          return;
        }
        late = new ArrayList<>(pending.entrySet());
        pending.clear();
      }
      List<Cloud> lateClouds = new ArrayList<>();
      for (Map.Entry<Cloud, CompletableFuture<T>> e : late) {
        lateClouds.add(e.getKey());
        ctx.lateClouds.add(e.getKey().id());
      }
      finish(lateClouds);
      for (Map.Entry<Cloud, CompletableFuture<T>> e : late) {
        String id = e.getKey().id();
        if (ctx.lateProbes.add(id)) {
          // Left running as the cloud's probe (the report above is final without it): its answer,
          // whenever it comes, clears the late mark (answer(...)), so a correct cloud that stalled
          // once gets the full grace again next time. Cancelling every late request instead left a
          // cloud slower than the short grace marked for good: CI saw Azurite named unreachable by
          // four verifies in a row on a loaded machine. At most one probe per cloud, so a hung
          // cloud holds one request, for at most PROBE_LIMIT, not one per key of a walk.
          CompletableFuture<T> probe = e.getValue();
          io.rafestore.Scheduler.Cancellable limit =
              ctx.settings.scheduler().schedule(PROBE_LIMIT, () -> probe.cancel(true));
          Futures.onEnd(
              probe,
              (v, t) -> {
                ctx.lateProbes.remove(id);
                limit.cancel();
              });
        } else {
          e.getValue().cancel(true);
        }
      }
    }

    private void finish(List<Cloud> late) {
      Result<T> r;
      io.rafestore.Scheduler.Cancellable t;
      synchronized (this) {
        Map<Cloud, T> v = new LinkedHashMap<>();
        Map<Cloud, Throwable> e = new LinkedHashMap<>();
        for (Cloud c : clouds) {
          if (values.containsKey(c)) {
            v.put(c, values.get(c));
          }
          if (errors.containsKey(c)) {
            e.put(c, errors.get(c));
          }
        }
        r = new Result<>(v, e, List.copyOf(late), grace);
        t = timer;
      }
      if (t != null) {
        t.cancel();
      }
      result.complete(r);
    }
  }
}
