package io.rafestore.clouds;

import io.rafestore.Scheduler;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A simulated wide-area network between one client and several clouds, on an injected {@link
 * Scheduler}: with a {@link VirtualScheduler} and in-memory clouds a multi-cloud run with real
 * round-trip times takes microseconds and is exactly repeatable.
 *
 * <p><b>Model.</b> The client has one uplink and one downlink, shared by every cloud wrapped with
 * {@link #wrap}; each cloud has its own {@link Link}: a round-trip time, a jitter and a bandwidth
 * (used in each direction). A request takes half a round trip to reach the cloud, then its payload
 * (the bytes of a put going up, the bytes a get returns coming down) flows through the client's
 * shared link and the cloud's own link, then the answer takes the other half round trip. The
 * wrapped driver is called in the middle, so objects really land. Concurrent payloads share
 * bandwidth with max-min fairness (processor sharing): whenever a flow starts, finishes or a link
 * changes, every flow's rate is recomputed and one timer is set for the next completion. Deletes,
 * lists and failed requests carry no payload and take one round trip. A jitter {@code j} draws, per
 * request, a round trip uniformly in {@code rtt * [1 - j, 1 + j]} from a generator seeded by {@link
 * Builder#seed}, so the same calls in the same order take the same times.
 *
 * <p><b>Concurrency.</b> A link may bound how many requests of its cloud are served at once ({@link
 * Link#maxConcurrent}): a cloud, or the uplink to it, with limited parallelism, as a driver's
 * connection pool or a provider's per-client request limit is. A request holds one of the cloud's
 * slots from its start to its answer (the whole round trip, payload and driver call included, as a
 * request holds a pooled connection); the others wait first in first out, before their round trip
 * starts. A waiting request that is cancelled leaves the queue; a served one that is cancelled
 * frees its slot to the next. Unbounded by default.
 *
 * <p><b>Faults.</b> None are added: errors of the wrapped driver arrive after the round trip. To
 * slow a cloud down mid-run, {@link EmulatedCloud#setLink} it; requests already waiting keep their
 * round trip, payloads in flight continue at the new bandwidth at once. Cancelling a returned
 * future stops the request where it is: its timer is cancelled, its flow's bandwidth goes to the
 * others, and the wrapped driver's future is cancelled.
 *
 * <p><b>Threads.</b> Timers run on the scheduler; the wrapped driver is called from a timer task,
 * so it must return at once (all drivers do). Results are delivered on the {@link
 * Builder#callbackExecutor} (by default the timer thread, which is what a {@link VirtualScheduler}
 * wants). Thread-safe.
 */
public final class WanEmulator {

  private static final int BITS_PER_BYTE = 8;

  private final Scheduler scheduler;
  private final Executor callbacks;
  private final Random random;
  private final Resource uplink;
  private final Resource downlink;

  // All mutable state below is guarded by this emulator's monitor.
  private final Set<Flow> flows = new LinkedHashSet<>();
  private long lastUpdate;
  private Scheduler.Cancellable completionTimer;
  private long timerGeneration;

  private WanEmulator(Builder b) {
    this.scheduler = b.scheduler;
    this.callbacks = b.callbacks;
    this.random = new Random(b.seed);
    this.uplink = new Resource(b.uplink);
    this.downlink = new Resource(b.downlink);
    this.lastUpdate = scheduler.nanoTime();
  }

  /** A builder for an emulator on {@code scheduler}; links are unlimited until set. */
  public static Builder builder(Scheduler scheduler) {
    return new Builder(scheduler);
  }

  /**
   * Wraps {@code driver} so that its requests cross this network over {@code link}. The returned
   * driver has the wrapped one's id; closing it closes the wrapped driver.
   */
  public EmulatedCloud wrap(CloudDriver driver, Link link) {
    return new EmulatedCloud(Objects.requireNonNull(driver, "driver"), link);
  }

  /** Number of payloads currently flowing (for tests). */
  public synchronized int activeFlows() {
    return flows.size();
  }

  /** Settings of a {@link WanEmulator}; validated as they are set. Not thread-safe. */
  public static final class Builder {
    private final Scheduler scheduler;
    private double uplink = Double.POSITIVE_INFINITY;
    private double downlink = Double.POSITIVE_INFINITY;
    private long seed;
    private Executor callbacks = Runnable::run;

    private Builder(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /** The client's upload bandwidth, shared by all puts to all clouds; {@code > 0}. */
    public Builder uplinkBitsPerSecond(long bitsPerSecond) {
      this.uplink = positive("uplinkBitsPerSecond", bitsPerSecond);
      return this;
    }

    /** The client's download bandwidth, shared by all gets from all clouds; {@code > 0}. */
    public Builder downlinkBitsPerSecond(long bitsPerSecond) {
      this.downlink = positive("downlinkBitsPerSecond", bitsPerSecond);
      return this;
    }

    /** The seed of the jitter generator (default 0). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Where results are delivered (default: on the scheduler's timer thread). Pass a pool when
     * callers do heavy work in their callbacks on a real scheduler.
     */
    public Builder callbackExecutor(Executor executor) {
      this.callbacks = Objects.requireNonNull(executor, "callbackExecutor");
      return this;
    }

    /** A new emulator with these settings and no flows. */
    public WanEmulator build() {
      return new WanEmulator(this);
    }
  }

  private static double positive(String setting, long bitsPerSecond) {
    if (bitsPerSecond <= 0) {
      throw new IllegalArgumentException(
          setting + " must be > 0 bits/s (omit it for unlimited), was " + bitsPerSecond);
    }
    return bitsPerSecond;
  }

  /**
   * The network path between the client and one cloud: round-trip time, jitter and bandwidth.
   * Immutable; the {@code with...} style methods return modified copies.
   */
  public static final class Link {
    private final Duration rtt;
    private final double jitter;
    private final long bandwidth; // bits/s, 0 for unlimited
    private final int maxConcurrent; // 0 for unbounded

    private Link(Duration rtt, double jitter, long bandwidth) {
      this(rtt, jitter, bandwidth, 0);
    }

    private Link(Duration rtt, double jitter, long bandwidth, int maxConcurrent) {
      this.rtt = rtt;
      this.jitter = jitter;
      this.bandwidth = bandwidth;
      this.maxConcurrent = maxConcurrent;
    }

    /** A link with this round-trip time ({@code >= 0}), no jitter and unlimited bandwidth. */
    public static Link rtt(Duration rtt) {
      return new Link(checkRtt(rtt), 0, 0);
    }

    /** A link with no delay and unlimited bandwidth: the network of a local test. */
    public static Link local() {
      return rtt(Duration.ZERO);
    }

    private static Duration checkRtt(Duration rtt) {
      Objects.requireNonNull(rtt, "rtt");
      if (rtt.isNegative()) {
        throw new IllegalArgumentException("rtt must be >= 0, was " + rtt);
      }
      return rtt;
    }

    /** This link with another round-trip time ({@code >= 0}). */
    public Link withRtt(Duration rtt) {
      return new Link(checkRtt(rtt), jitter, bandwidth, maxConcurrent);
    }

    /**
     * This link with a jitter: each request's round trip is drawn uniformly from {@code rtt * [1 -
     * fraction, 1 + fraction]}; {@code fraction} in {@code [0, 1]}.
     */
    public Link jitter(double fraction) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new IllegalArgumentException("jitter must be in [0, 1], was " + fraction);
      }
      return new Link(rtt, fraction, bandwidth, maxConcurrent);
    }

    /** This link with a bandwidth in each direction ({@code > 0} bits/s). */
    public Link bandwidthBitsPerSecond(long bitsPerSecond) {
      positive("bandwidthBitsPerSecond", bitsPerSecond);
      return new Link(rtt, jitter, bitsPerSecond, maxConcurrent);
    }

    /** This link with no bandwidth limit of its own. */
    public Link unlimitedBandwidth() {
      return new Link(rtt, jitter, 0, maxConcurrent);
    }

    /**
     * This link with at most {@code requests} ({@code >= 1}) requests of its cloud served at once;
     * later ones wait, first in first out, for a slot (see the class comment, "Concurrency").
     */
    public Link maxConcurrent(int requests) {
      if (requests < 1) {
        throw new IllegalArgumentException(
            "maxConcurrent must be >= 1 (use unboundedConcurrency() for no bound), was "
                + requests);
      }
      return new Link(rtt, jitter, bandwidth, requests);
    }

    /** This link with no bound on concurrent requests. */
    public Link unboundedConcurrency() {
      return new Link(rtt, jitter, bandwidth, 0);
    }

    /** The bound on requests served at once, empty if unbounded. */
    public OptionalInt concurrencyLimit() {
      return maxConcurrent == 0 ? OptionalInt.empty() : OptionalInt.of(maxConcurrent);
    }

    /**
     * This link made {@code factor} times slower: round trip multiplied, bandwidth divided (at
     * least 1 bit/s); {@code factor > 0}.
     */
    public Link slowerBy(double factor) {
      if (!(factor > 0) || Double.isInfinite(factor)) {
        throw new IllegalArgumentException("slowdown factor must be > 0 and finite, was " + factor);
      }
      Duration slower = Duration.ofNanos(Math.round(rtt.toNanos() * factor));
      long bw = bandwidth == 0 ? 0 : Math.max(1, Math.round(bandwidth / factor));
      return new Link(slower, jitter, bw, maxConcurrent);
    }

    /** The mean round-trip time. */
    public Duration roundTripTime() {
      return rtt;
    }

    /** The jitter fraction, in {@code [0, 1]}. */
    public double jitterFraction() {
      return jitter;
    }

    /** The bandwidth in bits/s, empty if unlimited. */
    public OptionalLong bandwidth() {
      return bandwidth == 0 ? OptionalLong.empty() : OptionalLong.of(bandwidth);
    }

    private double capacity() {
      return bandwidth == 0 ? Double.POSITIVE_INFINITY : bandwidth;
    }

    @Override
    public String toString() {
      return "Link[rtt="
          + rtt.toMillis()
          + "ms, jitter="
          + jitter
          + ", bandwidth="
          + (bandwidth == 0 ? "unlimited" : bandwidth + "bit/s")
          + (maxConcurrent == 0 ? "" : ", maxConcurrent=" + maxConcurrent)
          + "]";
    }
  }

  /**
   * A driver seen across the emulated network; also the handle to change its {@link Link} at run
   * time. Thread-safe.
   */
  public final class EmulatedCloud extends ForwardingCloud {
    private final Resource up;
    private final Resource down;
    private volatile Link link;
    // Guarded by the emulator's monitor: requests holding a slot, requests waiting for one, and
    // whether a thread is starting waiting requests (so that a request completing at once inside
    // that start does not recurse into the next one).
    private int serving;
    private final ArrayDeque<Call<?>> waiting = new ArrayDeque<>();
    private boolean admitting;

    private EmulatedCloud(CloudDriver delegate, Link link) {
      super(delegate);
      this.link = Objects.requireNonNull(link, "link");
      this.up = new Resource(link.capacity());
      this.down = new Resource(link.capacity());
    }

    /** The current link. */
    public Link link() {
      return link;
    }

    /**
     * Replaces this cloud's link. Payloads in flight continue at the new bandwidth from now on;
     * requests already waiting out a half round trip keep the delay they drew. A larger (or no)
     * concurrency bound starts waiting requests at once; a smaller one lets served requests finish
     * and starts no more until they are below it.
     */
    public void setLink(Link newLink) {
      Objects.requireNonNull(newLink, "link");
      synchronized (WanEmulator.this) {
        advanceFlows();
        link = newLink;
        up.capacity = newLink.capacity();
        down.capacity = newLink.capacity();
        reschedule();
      }
      admitWaiting();
    }

    /** Requests of this cloud being served now (holding a slot). */
    public int serving() {
      synchronized (WanEmulator.this) {
        return serving;
      }
    }

    /** Requests of this cloud waiting for a slot ({@link Link#maxConcurrent}). */
    public int waiting() {
      synchronized (WanEmulator.this) {
        return waiting.size();
      }
    }

    private boolean hasRoom() {
      int max = link.maxConcurrent;
      return max == 0 || serving < max;
    }

    /**
     * Starts {@code call} (runs {@code start}) now if a slot is free and nobody waits, else queues
     * it. The slot is given back when the call's result completes, however it does.
     */
    private void begin(Call<?> call, Runnable start) {
      synchronized (WanEmulator.this) {
        if (call.result.isDone()) {
          return;
        }
        call.start = start;
        if (!waiting.isEmpty() || !hasRoom()) {
          waiting.add(call);
          call.queued = true;
          return;
        }
        serving++;
        call.holdsSlot = true;
      }
      start.run();
    }

    /** The call's result completed: leave the queue or give the slot back. */
    private void finished(Call<?> call) {
      synchronized (WanEmulator.this) {
        if (call.queued) {
          call.queued = false;
          waiting.remove(call);
          return;
        }
        if (!call.holdsSlot) {
          return;
        }
        call.holdsSlot = false;
        serving--;
      }
      admitWaiting();
    }

    /**
     * Starts waiting requests while slots are free, in arrival order. One thread at a time does it;
     * a request completing inside a start (a zero round trip) only frees its slot, and the loop
     * here picks the next one up, so the stack does not grow with the queue.
     */
    private void admitWaiting() {
      while (true) {
        Call<?> next;
        synchronized (WanEmulator.this) {
          if (admitting || waiting.isEmpty() || !hasRoom()) {
            return;
          }
          next = waiting.poll();
          next.queued = false;
          next.holdsSlot = true;
          serving++;
          admitting = true;
        }
        try {
          next.start.run();
        } finally {
          synchronized (WanEmulator.this) {
            admitting = false;
          }
        }
      }
    }

    @Override
    public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
      Objects.requireNonNull(key, "key");
      return upload(data, bytes -> delegate().put(key, bytes));
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(range, "range");
      return download(() -> delegate().get(key, range), bytes -> bytes.length);
    }

    @Override
    public boolean conditionalPuts() {
      return delegate().conditionalPuts();
    }

    /** As {@link #put}: the payload crosses the uplink whether or not the condition holds. */
    @Override
    public CompletableFuture<Boolean> putIfMatch(
        ObjectKey key, byte[] data, Optional<String> ifMatch) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(ifMatch, "ifMatch");
      return upload(data, bytes -> delegate().putIfMatch(key, bytes, ifMatch));
    }

    /**
     * A request whose answer comes down: half a round trip out, the cloud's answer, then its {@code
     * bytes} through the downlink (none for an error).
     */
    private <T> CompletableFuture<T> download(
        java.util.function.Supplier<CompletableFuture<T>> request,
        java.util.function.ToLongFunction<T> bytes) {
      Call<T> call = new Call<>(this);
      begin(
          call,
          () ->
              call.afterHalfRtt(
                  () ->
                      call.invoke(
                          request,
                          (answer, error) -> {
                            if (error != null) {
                              call.answer(null, error);
                            } else {
                              call.transfer(
                                  downlink,
                                  down,
                                  bytes.applyAsLong(answer),
                                  () -> call.answer(answer, null));
                            }
                          })));
      return call.result;
    }

    @Override
    public boolean conditionalGets() {
      return delegate().conditionalGets();
    }

    /** As {@link #get}: the answer crosses the downlink with its bytes, none if unchanged. */
    @Override
    public CompletableFuture<TaggedGet> getTagged(
        ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(range, "range");
      Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
      return download(() -> delegate().getTagged(key, range, ifNoneMatch), TaggedGet::bytes);
    }

    @Override
    public CompletableFuture<Void> delete(ObjectKey key) {
      Objects.requireNonNull(key, "key");
      return roundTrip(() -> delegate().delete(key));
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      return roundTrip(() -> delegate().list(prefix));
    }

    /** Beginning a native multipart upload takes a round trip, like a delete. */
    @Override
    protected CompletableFuture<MultipartUpload> beginUpload(
        ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> request) {
      return roundTrip(request);
    }

    /** A part of a native upload crosses the link like a put. */
    @Override
    protected CompletableFuture<Void> putPart(
        ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> request) {
      return upload(data, request);
    }

    /**
     * Half a round trip, the payload up the shared and own links, the request, half a round trip.
     */
    private <T> CompletableFuture<T> upload(
        byte[] data, Function<byte[], CompletableFuture<T>> request) {
      byte[] copy = data.clone(); // the caller may reuse its array while we wait
      Call<T> call = new Call<>(this);
      begin(
          call,
          () ->
              call.afterHalfRtt(
                  () ->
                      call.transfer(
                          uplink,
                          up,
                          copy.length,
                          () -> call.invoke(() -> request.apply(copy), call::answer))));
      return call.result;
    }

    @Override
    protected CompletableFuture<Void> completeUpload(
        ObjectKey key, int count, Supplier<CompletableFuture<Void>> request) {
      return roundTrip(request);
    }

    @Override
    protected CompletableFuture<Void> abortUpload(
        ObjectKey key, Supplier<CompletableFuture<Void>> request) {
      return roundTrip(request);
    }

    /** A request without payload: half a round trip there, the request, half a round trip back. */
    private <T> CompletableFuture<T> roundTrip(Supplier<CompletableFuture<T>> request) {
      Call<T> call = new Call<>(this);
      begin(call, () -> call.afterHalfRtt(() -> call.invoke(request, call::answer)));
      return call.result;
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
      ListPage.check(prefix, startAfter, limit);
      return roundTrip(() -> delegate().list(prefix, startAfter, limit));
    }

    @Override
    public String toString() {
      return "EmulatedCloud[" + id() + ", " + link + "]";
    }
  }

  /**
   * One request's journey: half a round trip, maybe a payload flow, the driver call, maybe a
   * payload flow, half a round trip. Exactly one of timer, flow and inner is live at a time; all
   * three are guarded by the emulator's monitor so cancellation can stop whichever it is.
   */
  private final class Call<T> {
    final CompletableFuture<T> result = Futures.newFuture();
    final long halfRttNanos;
    Scheduler.Cancellable timer;
    Flow flow;
    CompletableFuture<?> inner;
    // Concurrency slot, guarded by the emulator's monitor: what to run when admitted, whether the
    // call waits in its cloud's queue, whether it holds one of the cloud's slots.
    Runnable start;
    boolean queued;
    boolean holdsSlot;

    Call(EmulatedCloud cloud) {
      Link link = cloud.link;
      long rtt = link.rtt.toNanos();
      double factor = 1;
      if (link.jitter > 0) {
        synchronized (WanEmulator.this) {
          factor = 1 + link.jitter * (2 * random.nextDouble() - 1);
        }
      }
      this.halfRttNanos = Math.round(rtt * factor / 2);
      Futures.onEnd(
          result,
          (r, e) -> {
            if (result.isCancelled()) {
              stop();
            }
            cloud.finished(this);
          });
    }

    private void stop() {
      CompletableFuture<?> toCancel;
      synchronized (WanEmulator.this) {
        if (timer != null) {
          timer.cancel();
          timer = null;
        }
        if (flow != null) {
          removeFlow(flow);
          flow = null;
        }
        toCancel = inner;
        inner = null;
      }
      if (toCancel != null) {
        toCancel.cancel(true);
      }
    }

    void afterHalfRtt(Runnable next) {
      if (halfRttNanos == 0) {
        if (!result.isDone()) {
          next.run();
        }
        return;
      }
      synchronized (WanEmulator.this) {
        if (result.isDone()) {
          return;
        }
        Scheduler.Cancellable[] self = new Scheduler.Cancellable[1];
        self[0] =
            scheduler.schedule(
                Duration.ofNanos(halfRttNanos),
                () -> {
                  synchronized (WanEmulator.this) {
                    if (timer != self[0] || result.isDone()) {
                      return;
                    }
                    timer = null;
                  }
                  next.run();
                });
        // The task needs this monitor before it looks at the field, so it sees the assignment.
        timer = self[0];
      }
    }

    void transfer(Resource shared, Resource own, long bytes, Runnable next) {
      if (bytes == 0) {
        next.run();
        return;
      }
      synchronized (WanEmulator.this) {
        if (result.isDone()) {
          return;
        }
        if (Double.isInfinite(shared.capacity) && Double.isInfinite(own.capacity)) {
          // Unlimited both ways: the payload takes no time, as a flow at an infinite rate would,
          // but without one, whose start recomputes every flow's rate and resets the completion
          // timer under this monitor (with thousands of requests in flight, that was most of the
          // scale benchmark's CPU).
          flow = null;
        } else {
          flow =
              startFlow(
                  shared,
                  own,
                  (double) bytes * BITS_PER_BYTE,
                  () -> {
                    synchronized (WanEmulator.this) {
                      flow = null;
                    }
                    next.run();
                  });
          return;
        }
      }
      next.run();
    }

    <R> void invoke(Supplier<CompletableFuture<R>> op, BiConsumer<R, Throwable> next) {
      if (result.isDone()) {
        return;
      }
      CompletableFuture<R> f;
      try {
        f = op.get();
      } catch (RuntimeException e) {
        next.accept(null, e);
        return;
      }
      synchronized (WanEmulator.this) {
        inner = f;
      }
      if (result.isCancelled()) {
        f.cancel(true);
        return;
      }
      Futures.onEnd(
          f,
          (value, error) -> {
            synchronized (WanEmulator.this) {
              inner = null;
            }
            next.accept(value, error == null ? null : Futures.unwrap(error));
          });
    }

    void answer(T value, Throwable error) {
      afterHalfRtt(
          () ->
              callbacks.execute(
                  () -> {
                    if (error != null) {
                      result.completeExceptionally(error);
                    } else {
                      result.complete(value);
                    }
                  }));
    }
  }

  // ---- bandwidth sharing -----------------------------------------------------------------------

  /** A link direction with a capacity in bits/s (infinite if unlimited). */
  private static final class Resource {
    double capacity;
    // scratch space of the max-min computation
    double left;
    int unfrozen;

    Resource(double capacity) {
      this.capacity = capacity;
    }
  }

  /** A payload in flight through two resources. */
  private static final class Flow {
    final Resource[] path;
    final Runnable onDone;
    double remainingBits;
    double rate;
    boolean frozen;

    Flow(Resource[] path, double bits, Runnable onDone) {
      this.path = path;
      this.remainingBits = bits;
      this.onDone = onDone;
    }
  }

  private Flow startFlow(Resource shared, Resource own, double bits, Runnable onDone) {
    advanceFlows();
    Flow f = new Flow(new Resource[] {shared, own}, bits, onDone);
    flows.add(f);
    reschedule();
    return f;
  }

  private void removeFlow(Flow f) {
    advanceFlows();
    if (flows.remove(f)) {
      reschedule();
    }
  }

  /** Moves every flow forward to now at its current rate. Caller holds the monitor. */
  private void advanceFlows() {
    long now = scheduler.nanoTime();
    long elapsed = now - lastUpdate;
    lastUpdate = now;
    if (elapsed <= 0) {
      return;
    }
    for (Flow f : flows) {
      if (Double.isInfinite(f.rate)) {
        f.remainingBits = 0;
      } else {
        f.remainingBits = Math.max(0, f.remainingBits - f.rate * elapsed / 1e9);
      }
    }
  }

  /**
   * Max-min fair rates by progressive filling: repeatedly take the resource that offers the
   * smallest equal share to its unfrozen flows, give them that share and freeze them. Flows that
   * cross only unlimited resources get an infinite rate. Then sets one timer for the first flow to
   * finish. Caller holds the monitor.
   */
  private void reschedule() {
    List<Resource> resources = new ArrayList<>();
    for (Flow f : flows) {
      f.frozen = false;
      f.rate = Double.POSITIVE_INFINITY;
      for (Resource r : f.path) {
        if (!resources.contains(r)) {
          resources.add(r);
          r.left = r.capacity;
          r.unfrozen = 0;
        }
        r.unfrozen++;
      }
    }
    while (true) {
      Resource bottleneck = null;
      double share = Double.POSITIVE_INFINITY;
      for (Resource r : resources) {
        if (r.unfrozen > 0 && !Double.isInfinite(r.capacity)) {
          double s = Math.max(0, r.left) / r.unfrozen;
          if (s < share) {
            share = s;
            bottleneck = r;
          }
        }
      }
      if (bottleneck == null) {
        break; // the rest cross only unlimited links
      }
      for (Flow f : flows) {
        if (!f.frozen && uses(f, bottleneck)) {
          f.frozen = true;
          f.rate = share;
          for (Resource r : f.path) {
            r.left -= share;
            r.unfrozen--;
          }
        }
      }
    }

    if (completionTimer != null) {
      completionTimer.cancel();
      completionTimer = null;
    }
    if (flows.isEmpty()) {
      return;
    }
    long next = Long.MAX_VALUE;
    for (Flow f : flows) {
      next = Math.min(next, nanosToFinish(f));
    }
    long generation = ++timerGeneration;
    completionTimer =
        scheduler.schedule(Duration.ofNanos(next), () -> onCompletionTimer(generation));
  }

  private static boolean uses(Flow f, Resource r) {
    for (Resource x : f.path) {
      if (x == r) {
        return true;
      }
    }
    return false;
  }

  private static long nanosToFinish(Flow f) {
    if (f.remainingBits <= 0 || Double.isInfinite(f.rate)) {
      return 0;
    }
    if (f.rate <= 0) {
      return Long.MAX_VALUE / 4; // starved; a later recomputation will move it
    }
    double nanos = Math.ceil(f.remainingBits * 1e9 / f.rate);
    return nanos >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : (long) nanos;
  }

  private void onCompletionTimer(long generation) {
    List<Runnable> finished = new ArrayList<>();
    synchronized (this) {
      if (generation != timerGeneration) {
        return; // superseded by a later recomputation
      }
      completionTimer = null;
      advanceFlows();
      for (var it = flows.iterator(); it.hasNext(); ) {
        Flow f = it.next();
        // Less than a nanosecond of transfer left is rounding noise: the flow is done.
        if (f.remainingBits <= 0 || Double.isInfinite(f.rate) || f.remainingBits * 1e9 < f.rate) {
          it.remove();
          finished.add(f.onDone);
        }
      }
      reschedule();
    }
    for (Runnable r : finished) {
      r.run();
    }
  }
}
