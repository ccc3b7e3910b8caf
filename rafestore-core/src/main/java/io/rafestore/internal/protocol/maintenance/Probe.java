package io.rafestore.internal.protocol.maintenance;

import io.rafestore.ConditionOne;
import io.rafestore.ProbeOptions;
import io.rafestore.ProbeReport;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.selection.LatencyModel;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Measures every cloud the way the paper did (a few bytes written ten times, one after another) and
 * its bandwidth with larger puts, all clouds in parallel; every request goes through the measured
 * driver, so the live {@link LatencyModel} learns from the probe. Probe objects live under {@link
 * ProbeOptions#PREFIX} with a fresh random name and are deleted afterwards (best effort; a failed
 * delete is listed among the cloud's errors).
 *
 * <p>A cloud that stops answering must not cost the report of the others: each request waits at
 * most an eighth of the operation timeout ({@link #requestLimit}); a put that does not answer by
 * then ends that cloud's rounds, and no round starts once half the operation timeout has passed
 * ({@link #roundsLimit}). Each is listed among the cloud's errors. So the probe ends within three
 * quarters of the operation timeout, whatever the clouds do.
 */
public final class Probe {
  private static final int SMALL_BYTES = 16;

  private final Context ctx;
  private final ProbeOptions options;
  private final String nonce;

  private Probe(Context ctx, ProbeOptions options) {
    this.ctx = ctx;
    this.options = options;
    byte[] n = new byte[12];
    ThreadLocalRandom.current().nextBytes(n);
    this.nonce = HexFormat.of().formatHex(n);
  }

  public static CompletableFuture<ProbeReport> run(Context ctx, ProbeOptions options) {
    Probe p = new Probe(ctx, options);
    List<CompletableFuture<Measured>> all = new ArrayList<>();
    for (Cloud c : ctx.clouds) {
      all.add(p.probe(c));
    }
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            v -> {
              List<ProbeReport.CloudProbe> clouds = new ArrayList<>();
              for (CompletableFuture<Measured> m : all) {
                clouds.add(m.join().report(ctx, options.valueSize()));
              }
              return p.report(clouds);
            });
  }

  private ProbeReport report(List<ProbeReport.CloudProbe> clouds) {
    long size = options.valueSize();
    List<String> configuredData = ctx.dataOrder(size);
    List<String> configuredMeta = new ArrayList<>();
    for (Cloud c : ctx.clouds) {
      if (!c.role().holdsData()) {
        configuredMeta.add(c.id());
      }
    }
    int f = ctx.f();
    ProbeReport.Arrangement configured =
        new ProbeReport.Arrangement(
            configuredData.subList(0, f + 1),
            configuredData.subList(f + 1, configuredData.size()),
            configuredMeta);
    List<String> ranked = ctx.model.fastestFirst(new ArrayList<>(ctx.byId.keySet()), size);
    List<String> recommendedData = ranked.subList(0, 2 * f + 1);
    ProbeReport.Arrangement recommended =
        new ProbeReport.Arrangement(
            ranked.subList(0, f + 1),
            ranked.subList(f + 1, 2 * f + 1),
            ranked.subList(2 * f + 1, ranked.size()));
    return new ProbeReport(
        options,
        clouds,
        configured,
        recommended,
        conditionOne(ctx, ctx.dataOrder(0), 0),
        conditionOne(ctx, configuredData, size),
        conditionOne(ctx, ctx.model.fastestFirst(recommendedData, 0), 0),
        conditionOne(ctx, recommendedData, size));
  }

  /**
   * Condition 1 when {@code dataOrder}'s first f+1 clouds receive values of {@code size} bytes: L
   * and HH are the fastest and slowest of them, H the (n-f)-th fastest cloud for metadata.
   */
  public static ConditionOne conditionOne(Context ctx, List<String> dataOrder, long size) {
    List<String> chosen = dataOrder.subList(0, ctx.f() + 1);
    String lCloud = chosen.get(0);
    String hhCloud = chosen.get(0);
    for (String c : chosen) {
      if (ctx.model.predict(c, size).compareTo(ctx.model.predict(lCloud, size)) < 0) {
        lCloud = c;
      }
      if (ctx.model.predict(c, size).compareTo(ctx.model.predict(hhCloud, size)) > 0) {
        hhCloud = c;
      }
    }
    List<String> meta = ctx.model.fastestFirst(new ArrayList<>(ctx.byId.keySet()), 0);
    String hCloud = meta.get(ctx.settings.quorum() - 1);
    return new ConditionOne(
        size,
        ctx.model.predict(lCloud, size),
        ctx.model.predict(hCloud, 0),
        ctx.model.predict(hhCloud, size),
        lCloud,
        hCloud,
        hhCloud);
  }

  /** Raw timings of one cloud. */
  private static final class Measured {
    final String cloud;
    final List<Long> rtts = new ArrayList<>();
    final List<Long> payloads = new ArrayList<>();
    final List<String> errors = new ArrayList<>();
    final long payloadBytes;

    /** Whether the rounds were stopped (a put not answered in time, or the rounds' time up). */
    boolean stopped;

    Measured(String cloud, long payloadBytes) {
      this.cloud = cloud;
      this.payloadBytes = payloadBytes;
    }

    ProbeReport.CloudProbe report(Context ctx, long valueSize) {
      long[] r = sorted(rtts);
      long[] p = sorted(payloads);
      long rttMedian = r.length == 0 ? 0 : LatencyModel.percentile(r, 0.5);
      double bps = 0;
      if (p.length > 0) {
        long transfer = LatencyModel.percentile(p, 0.5) - rttMedian;
        // A large put no slower than the small ones: the link is too fast to measure at this
        // size; report the lower bound the whole put gives instead of an infinite bandwidth.
        long whole = Math.max(1, LatencyModel.percentile(p, 0.5));
        bps = transfer > 0 ? payloadBytes * 1e9 / transfer : payloadBytes * 1e9 / whole;
      }
      return new ProbeReport.CloudProbe(
          cloud,
          Duration.ofNanos(rttMedian),
          Duration.ofNanos(r.length == 0 ? 0 : LatencyModel.percentile(r, 0.9)),
          bps,
          ctx.model.predict(cloud, valueSize),
          rtts.size() + payloads.size(),
          errors);
    }

    private static long[] sorted(List<Long> l) {
      long[] a = l.stream().mapToLong(Long::longValue).toArray();
      Arrays.sort(a);
      return a;
    }
  }

  private CompletableFuture<Measured> probe(Cloud c) {
    Measured m = new Measured(c.id(), options.payloadBytes());
    List<ObjectKey> written = new ArrayList<>();
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    long roundsEnd = ctx.settings.scheduler().nanoTime() + roundsLimit().toNanos();
    byte[] small = new byte[SMALL_BYTES];
    ThreadLocalRandom.current().nextBytes(small);
    for (int i = 0; i < options.rttRounds(); i++) {
      ObjectKey k = ObjectKey.of(ProbeOptions.PREFIX + nonce + "-r" + i);
      written.add(k);
      chain = chain.thenCompose(v -> timedPut(c, k, small, m, m.rtts, roundsEnd));
    }
    if (options.payloadBytes() > 0 && options.payloadRounds() > 0) {
      byte[] big = new byte[(int) options.payloadBytes()];
      ThreadLocalRandom.current().nextBytes(big);
      for (int i = 0; i < options.payloadRounds(); i++) {
        ObjectKey k = ObjectKey.of(ProbeOptions.PREFIX + nonce + "-b" + i);
        written.add(k);
        chain = chain.thenCompose(v -> timedPut(c, k, big, m, m.payloads, roundsEnd));
      }
    }
    return chain.thenCompose(
        v -> {
          List<CompletableFuture<Void>> deletes = new ArrayList<>();
          for (ObjectKey k : written) {
            deletes.add(
                Verifier.timed(ctx, c.driver().delete(k), c.id() + " delete", requestLimit())
                    .handle(
                        (r, e) -> {
                          if (e != null) {
                            synchronized (m) {
                              m.errors.add("delete " + k + ": " + Futures.unwrap(e).getMessage());
                            }
                          }
                          return null;
                        }));
          }
          return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]))
              .thenApply(x -> m);
        });
  }

  /** How long one probe request waits: an eighth of the operation timeout. */
  private Duration requestLimit() {
    return ctx.settings.operationTimeout().dividedBy(8);
  }

  /** After how long no more rounds start: half the operation timeout. */
  private Duration roundsLimit() {
    return ctx.settings.operationTimeout().dividedBy(2);
  }

  /**
   * One timed put of a round, unless the cloud's probe was stopped (a put that did not answer
   * within {@link #requestLimit}) or {@code roundsEnd} has passed.
   */
  private CompletableFuture<Void> timedPut(
      Cloud c, ObjectKey k, byte[] data, Measured m, List<Long> into, long roundsEnd) {
    long start = ctx.settings.scheduler().nanoTime();
    synchronized (m) {
      if (m.stopped) {
        return CompletableFuture.completedFuture(null);
      }
      if (start - roundsEnd >= 0) {
        m.stopped = true;
        m.errors.add(
            "rounds stopped after half the operation timeout ("
                + roundsLimit()
                + "): "
                + (m.rtts.size() + m.payloads.size())
                + " measured");
        return CompletableFuture.completedFuture(null);
      }
    }
    return Verifier.timed(ctx, c.driver().put(k, data), c.id() + " put", requestLimit())
        .handle(
            (r, e) -> {
              long took = ctx.settings.scheduler().nanoTime() - start;
              synchronized (m) {
                if (e == null) {
                  into.add(took);
                } else {
                  Throwable cause = Futures.unwrap(e);
                  m.errors.add("put " + k + ": " + cause.getMessage());
                  if (cause instanceof java.util.concurrent.TimeoutException) {
                    m.stopped = true;
                    m.errors.add("rounds stopped: the cloud did not answer a put in time");
                  }
                }
              }
              return null;
            });
  }
}
