package io.rafestore.internal.protocol.fairness;

import io.rafestore.Fairness;
import io.rafestore.Scheduler;
import io.rafestore.TenantShare;
import io.rafestore.spi.support.Futures;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The fair queue in front of one cloud: requests of many tenants wait here and are dispatched in
 * mClock's order while the cloud has room (design.md section 6, "Tenants and fair scheduling").
 *
 * <p><b>Tags.</b> Each tenant has three tags, in nanoseconds of the client's scheduler: R (its
 * reservation: the head may go by reservation once {@code R <= now}; each request so dispatched
 * moves R on by {@code cost / reservation}), L (its limit: the head may go at all only once {@code
 * L <= now}; each dispatch moves L on by {@code cost / limit}) and P (its proportional share: each
 * request dispatched by share moves P on by {@code cost / weight}, in virtual nanoseconds). Costs
 * are units of {@code 1 + bytes / costUnitBytes}.
 *
 * <p><b>Order.</b> First, the tenant with the smallest R among those whose R is due; else the
 * tenant with the smallest P among those under their limit. A tenant that becomes active again
 * (nothing queued before) has R and L set to at least now and P to at least the smallest P of the
 * tenants waiting (or the last P dispatched): idle time earns no credit.
 *
 * <p><b>Room.</b> A request is dispatched while fewer than {@code cloudConcurrency} are in flight,
 * its bytes fit under {@code cloudBytesInFlight} (or nothing is in flight: an oversize request
 * waits for the cloud to drain, then goes alone) and under its tenant's {@code tenantBytesInFlight}
 * (or nothing of the tenant is in flight). A tenant whose head does not fit its own bound is passed
 * over; a head that does not fit the cloud's bound stops dispatching until requests end, so large
 * requests are not starved by small ones. A large request (at least {@code largeRequestBytes}) goes
 * only while fewer than {@code largeRequestPlaces} large ones are in flight, else its tenant is
 * passed over: the other places stay open to small requests, which a long transfer holding every
 * place would otherwise keep waiting for seconds.
 *
 * <p><b>Bytes.</b> A request reserves its estimated bytes when dispatched and holds them until it
 * ends; a get of unknown size (a metadata log, a whole object: its range only a cap) is estimated
 * by the running average of the tenant's gets on this cloud (bounded by the cap), and its actual
 * size feeds that average.
 *
 * <p><b>Thread-safety.</b> State under this object's lock; requests are started outside it, by one
 * thread at a time (a drain loop), so a driver that completes at once does not recurse.
 */
public final class FairQueue {
  /**
   * Most idle tenants' tags kept per cloud; beyond, the idle ones with no tag ahead are dropped.
   */
  static final int MAX_IDLE_TENANTS = 4096;

  private final Fairness fairness;
  private final Function<String, TenantShare> shares;
  private final Scheduler scheduler;
  private final Waits waits;
  private final Map<String, Tenant> tenants = new HashMap<>();
  private int inFlight;
  private int largeInFlight;
  private long bytesInFlight;
  private int queued;

  /** The P tag of the last request dispatched by share (virtual now when nobody waits). */
  private double lastP;

  /** When the timer for a limited tenant is due, or Long.MAX_VALUE for none. */
  private long timerAt = Long.MAX_VALUE;

  private final AtomicInteger wip = new AtomicInteger();

  /** Where the time each request waited is reported. */
  @FunctionalInterface
  public interface Waits {
    void waited(String tenant, long nanos);
  }

  /**
   * Where the queue's depth is reported: each change of the requests and bytes waiting (+ when
   * queued, - when dispatched or withdrawn), for the latency model's queue-aware predictions.
   */
  @FunctionalInterface
  public interface Depth {
    void changed(long requests, long bytes);
  }

  private final Depth depth;

  public FairQueue(
      Fairness fairness, Function<String, TenantShare> shares, Scheduler scheduler, Waits waits) {
    this(fairness, shares, scheduler, waits, (r, b) -> {});
  }

  public FairQueue(
      Fairness fairness,
      Function<String, TenantShare> shares,
      Scheduler scheduler,
      Waits waits,
      Depth depth) {
    this.fairness = fairness;
    this.shares = shares;
    this.scheduler = scheduler;
    this.waits = waits;
    this.depth = depth;
  }

  /**
   * Queues a request of {@code tenant}: {@code start} is called (outside any lock) when it is
   * dispatched and starts it. {@code bytes} is its payload size if known exactly, or -1 for a get
   * of unknown size ({@code cap} bounding it); {@code actual} gives the bytes the answer carried.
   * Cancelling the returned future removes a queued request without starting it, or cancels a
   * started one.
   */
  public <T> CompletableFuture<T> submit(
      String tenant,
      long bytes,
      long cap,
      Supplier<CompletableFuture<T>> start,
      ToLongFunction<T> actual) {
    return submit(tenant, bytes, cap, false, start, actual);
  }

  /**
   * As {@link #submit(String, long, long, Supplier, ToLongFunction)}; {@code data} tells a get of
   * unknown size of a data object (a whole value) from one of metadata (a log, a certificate), each
   * estimated by its own running average, so that large whole values never make a tenant's metadata
   * gets look large.
   */
  public <T> CompletableFuture<T> submit(
      String tenant,
      long bytes,
      long cap,
      boolean data,
      Supplier<CompletableFuture<T>> start,
      ToLongFunction<T> actual) {
    Entry<T> e = new Entry<>(start, actual, bytes < 0);
    e.sizeClass = data ? 0 : 1;
    synchronized (this) {
      Tenant t = tenants.computeIfAbsent(tenant, Tenant::new);
      e.tenant = t;
      e.bytes =
          bytes >= 0 ? bytes : Math.min(Math.max(0, cap), Math.round(t.averageGet[e.sizeClass]));
      e.enqueuedAt = scheduler.nanoTime();
      if (t.queue.isEmpty()) {
        activate(t, e.enqueuedAt);
      }
      t.queue.add(e);
      queued++;
      depth.changed(1, e.bytes);
    }
    Futures.onEnd(
        e.out,
        (r, x) -> {
          if (e.out.isCancelled()) {
            cancelled(e);
          }
        });
    pump();
    return e.out;
  }

  /** Requests in flight now (for tests). */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** Large requests in flight now (for tests). */
  public synchronized int largeInFlight() {
    return largeInFlight;
  }

  /** Bytes in flight now (for tests). */
  public synchronized long bytesInFlight() {
    return bytesInFlight;
  }

  /** Requests waiting now (for tests). */
  public synchronized int queued() {
    return queued;
  }

  /** A tenant that had nothing queued gets tags no earlier than now: no banked credit. */
  private void activate(Tenant t, long now) {
    t.share = shares.apply(t.id);
    t.r = Math.max(t.r, now);
    t.l = Math.max(t.l, now);
    double floor = Double.NaN;
    for (Tenant o : tenants.values()) {
      if (o != t && !o.queue.isEmpty()) {
        floor = Double.isNaN(floor) ? o.p : Math.min(floor, o.p);
      }
    }
    t.p = Math.max(t.p, Double.isNaN(floor) ? lastP : floor);
  }

  private void cancelled(Entry<?> e) {
    boolean removed;
    synchronized (this) {
      removed = !e.dispatched && e.tenant.queue.remove(e);
      if (removed) {
        queued--;
        depth.changed(-1, -e.bytes);
      }
    }
    if (!removed && e.inner != null) {
      e.inner.cancel(true);
    }
    pump();
  }

  /** Starts what may start now; one thread at a time, others leave their turn to it. */
  private void pump() {
    if (wip.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    while (true) {
      List<Entry<?>> go = new ArrayList<>();
      synchronized (this) {
        select(go);
      }
      for (Entry<?> e : go) {
        e.begin();
      }
      missed = wip.addAndGet(-missed);
      if (missed == 0) {
        return;
      }
    }
  }

  /** Picks the requests to dispatch now, in mClock's order, and takes their room. */
  private void select(List<Entry<?>> go) {
    long now = scheduler.nanoTime();
    long nextLimit = Long.MAX_VALUE;
    while (queued > 0 && inFlight < fairness.cloudConcurrency()) {
      Tenant best = null;
      boolean byReservation = false;
      // Reservations first: the smallest due R.
      for (Tenant t : tenants.values()) {
        if (t.queue.isEmpty() || !t.share.hasReservation() || t.r > now || !fits(t)) {
          continue;
        }
        if (best == null || t.r < best.r) {
          best = t;
          byReservation = true;
        }
      }
      if (best == null) {
        for (Tenant t : tenants.values()) {
          if (t.queue.isEmpty() || !fits(t)) {
            continue;
          }
          if (t.share.hasLimit() && t.l > now) {
            nextLimit = Math.min(nextLimit, (long) Math.ceil(t.l));
            continue;
          }
          if (best == null || t.p < best.p) {
            best = t;
          }
        }
      }
      if (best == null) {
        break;
      }
      Entry<?> head = best.queue.peek();
      if (bytesInFlight > 0 && bytesInFlight + head.bytes > fairness.cloudBytesInFlight()) {
        // The cloud's bytes are full: wait for requests to end, keeping the order.
        nextLimit = Long.MAX_VALUE;
        break;
      }
      best.queue.poll();
      queued--;
      depth.changed(-1, -head.bytes);
      double cost = fairness.cost(head.bytes);
      if (best.share.hasReservation()) {
        // Every request counts against the reservation's spacing (as mClock's R tags); a tenant
        // that fell behind it catches up until R reaches now.
        best.r += nanos(cost, best.share.reservationOpsPerSecond());
      }
      if (best.share.hasLimit()) {
        best.l = Math.max(best.l, now) + nanos(cost, best.share.limitOpsPerSecond());
      }
      if (!byReservation) {
        lastP = best.p;
        best.p += cost / best.share.weight() * 1e9;
      }
      head.dispatched = true;
      head.large = large(head);
      if (head.large) {
        largeInFlight++;
      }
      inFlight++;
      bytesInFlight += head.bytes;
      best.inFlight++;
      best.bytesInFlight += head.bytes;
      waits.waited(best.id, now - head.enqueuedAt);
      go.add(head);
      nextLimit = Long.MAX_VALUE;
    }
    if (queued > 0 && inFlight < fairness.cloudConcurrency() && nextLimit != Long.MAX_VALUE) {
      armTimer(nextLimit, now);
    }
    trimIdle();
  }

  private static double nanos(double cost, double perSecond) {
    return cost / perSecond * 1e9;
  }

  /**
   * Whether {@code t}'s head may go now: within its tenant's bytes (or alone of its tenant) and, if
   * large, within the places large requests may take.
   */
  private boolean fits(Tenant t) {
    Entry<?> head = t.queue.peek();
    if (large(head) && largeInFlight >= fairness.largeRequestPlaces()) {
      return false;
    }
    return t.bytesInFlight == 0 || t.bytesInFlight + head.bytes <= fairness.tenantBytesInFlight();
  }

  private boolean large(Entry<?> e) {
    return e.bytes >= fairness.largeRequestBytes();
  }

  private void armTimer(long at, long now) {
    if (timerAt <= at) {
      return;
    }
    timerAt = at;
    scheduler.schedule(
        java.time.Duration.ofNanos(Math.max(1, at - now)),
        () -> {
          synchronized (this) {
            if (timerAt == at) {
              timerAt = Long.MAX_VALUE;
            }
          }
          pump();
        });
  }

  private void trimIdle() {
    if (tenants.size() <= MAX_IDLE_TENANTS) {
      return;
    }
    long now = scheduler.nanoTime();
    Iterator<Tenant> it = tenants.values().iterator();
    while (it.hasNext()) {
      Tenant t = it.next();
      if (t.queue.isEmpty() && t.inFlight == 0 && t.r <= now && t.l <= now) {
        it.remove();
      }
    }
  }

  private void ended(Entry<?> e, long actualBytes) {
    synchronized (this) {
      Tenant t = e.tenant;
      inFlight--;
      if (e.large) {
        largeInFlight--;
      }
      bytesInFlight -= e.bytes;
      t.inFlight--;
      t.bytesInFlight -= e.bytes;
      if (e.unknownSize && actualBytes >= 0) {
        t.averageGet[e.sizeClass] = 0.8 * t.averageGet[e.sizeClass] + 0.2 * actualBytes;
      }
    }
    pump();
  }

  private static final class Tenant {
    final String id;
    final ArrayDeque<Entry<?>> queue = new ArrayDeque<>();
    TenantShare share = TenantShare.DEFAULT;
    double r;
    double l;
    double p;
    int inFlight;
    long bytesInFlight;

    /**
     * Running averages of this tenant's gets of unknown size here, of data objects [0] and of
     * metadata [1] (each starts at 4 KiB).
     */
    final double[] averageGet = {4096, 4096};

    Tenant(String id) {
      this.id = id;
    }
  }

  private final class Entry<T> {
    final Supplier<CompletableFuture<T>> start;
    final ToLongFunction<T> actual;
    final boolean unknownSize;
    int sizeClass;
    final CompletableFuture<T> out = new CompletableFuture<>();
    Tenant tenant;
    long bytes;
    long enqueuedAt;
    boolean dispatched;
    boolean large;
    volatile CompletableFuture<T> inner;

    Entry(Supplier<CompletableFuture<T>> start, ToLongFunction<T> actual, boolean unknownSize) {
      this.start = start;
      this.actual = actual;
      this.unknownSize = unknownSize;
    }

    /** Starts the request (outside the lock) and relays its end. */
    void begin() {
      if (out.isDone()) {
        // Cancelled after being picked: give the room back.
        ended(this, -1);
        return;
      }
      CompletableFuture<T> f;
      try {
        f = start.get();
      } catch (RuntimeException x) {
        f = CompletableFuture.failedFuture(x);
      }
      inner = f;
      Futures.onEnd(
          f,
          (r, x) -> {
            long size = -1;
            if (x == null && r != null) {
              try {
                size = actual.applyAsLong(r);
              } catch (RuntimeException ignored) {
                size = -1;
              }
            }
            ended(this, size);
            if (x == null) {
              out.complete(r);
            } else {
              out.completeExceptionally(x);
            }
          });
      if (out.isCancelled()) {
        f.cancel(true);
      }
    }
  }
}
