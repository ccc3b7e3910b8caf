package io.rafestore.internal.protocol.fairness;

import io.rafestore.CloudRequest;
import io.rafestore.Fairness;
import io.rafestore.Scheduler;
import io.rafestore.TenantShare;
import io.rafestore.TenantStats;
import io.rafestore.spi.support.Futures;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A client's tenants: the fairness settings, the tenants' shares, one {@link FairQueue} per cloud
 * (made on first use, only with fairness on) and the per-tenant figures. One per client, shared by
 * every view.
 */
public final class Tenancy {
  private final Fairness fairness;
  private final Function<String, TenantShare> shares;
  private final Scheduler scheduler;
  private final TenantTable table = new TenantTable();
  private final ConcurrentHashMap<String, FairQueue> queues = new ConcurrentHashMap<>();
  private final QueueDepth depth;

  /** Where each cloud's queue reports its depth (the latency model's {@code waiting}). */
  @FunctionalInterface
  public interface QueueDepth {
    void changed(String cloudId, long requests, long bytes);
  }

  public Tenancy(Fairness fairness, Function<String, TenantShare> shares, Scheduler scheduler) {
    this(fairness, shares, scheduler, (c, r, b) -> {});
  }

  public Tenancy(
      Fairness fairness,
      Function<String, TenantShare> shares,
      Scheduler scheduler,
      QueueDepth depth) {
    this.fairness = fairness;
    this.shares = shares;
    this.scheduler = scheduler;
    this.depth = depth;
  }

  /** Whether requests are scheduled fairly (a door with a queue in front of each cloud). */
  public boolean enabled() {
    return fairness.enabled();
  }

  public Fairness fairness() {
    return fairness;
  }

  public TenantTable table() {
    return table;
  }

  /** The fair queue of cloud {@code cloudId}. */
  public FairQueue queue(String cloudId) {
    return queues.computeIfAbsent(
        cloudId,
        id ->
            new FairQueue(
                fairness, shares, scheduler, table::waited, (r, b) -> depth.changed(id, r, b)));
  }

  /** A request ended (the accounting's sink). */
  public void request(CloudRequest request) {
    table.request(request, fairness.cost(request.bytes()));
  }

  /** An operation of {@code tenant} started now and ends with {@code op}. */
  public void operationStarted(String tenant, CompletableFuture<?> op) {
    long start = scheduler.nanoTime();
    Futures.onEnd(op, (r, e) -> table.operation(tenant, scheduler.nanoTime() - start, e == null));
  }

  public Map<String, TenantStats> stats() {
    return table.snapshot();
  }
}
