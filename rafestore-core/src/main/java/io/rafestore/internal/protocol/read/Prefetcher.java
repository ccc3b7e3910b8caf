package io.rafestore.internal.protocol.read;

import io.rafestore.Prefetch;
import io.rafestore.ReadTierStats;
import io.rafestore.ValueCache.Unit;
import io.rafestore.Version;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.ReadTier;
import io.rafestore.internal.protocol.layout.Layouts;
import io.rafestore.internal.protocol.layout.Spread;
import io.rafestore.internal.protocol.layout.ValueRead;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The read tier's prefetching, as Tombolo's gateway does it ({@link Prefetch}): told of every
 * access a read makes ({@link ReadTier.Access}), it follows sequential streams over the parts of
 * large values and reads ahead of them, and (mode {@link Prefetch.Mode#HISTORY}) records the other
 * accesses in a {@link HistoryGraph} and prefetches the metadata and data of what usually comes
 * next. Prefetched units enter the same verified cache through {@link ReadTier#prefetch}; a read
 * that needs a unit still in flight waits for that request.
 *
 * <p><b>Streams.</b> An access of parts {@code first..last} of a version whose previous access
 * ended at part {@code first - 1} or {@code first} continues a stream (up to {@link #STREAMS}
 * streams are followed at once, least recently used dropped). {@code SEQUENTIAL}: when the stream
 * reaches the last part prefetched, the next {@code partsInFlight} parts are prefetched (fixed
 * degree, trigger distance 0). {@code ADAPTIVE_SEQUENTIAL} (AMP, Gill and Bathen, adapted as
 * Tombolo does for the cloud's long and variable latency): the trigger distance {@code g} is the
 * number of parts the stream consumes while its next batch is fetched, the predicted time until the
 * last part of a batch of the stream's degree is delivered, placed over the value's holders as the
 * stream's {@link Spread} places it (the live latency model's round trips and measured bandwidths,
 * and the bytes in flight on each link), over the stream's measured time between accesses (not
 * counting waits for late prefetches); the degree {@code p} starts at {@code g + 1}, grows by one
 * each time the stream consumes a whole prefetched batch and shrinks by one when a prefetched part
 * of it is wasted, and a read that had to wait for a prefetch still in flight (late) widens {@code
 * g} by one. Every prefetched part of a stream is asked first of the holder its {@link Spread}
 * places it on, as a parted read's parts are, so a stream faster than one holder's link is fed by
 * several; a part a read used on time enters the cache only into free room ({@link #keep}).
 *
 * <p><b>Budgets.</b> Prefetches are background work: at most {@code maxInFlight} requests and
 * {@code maxBytesInFlight} bytes at once (a prefetch that does not fit is not sent: a stream's
 * trigger fires again on its next access), and a token bucket of dollars refilled at {@code
 * dollarsPerHour} on the client's scheduler (at most a minute's worth banked) pays for each at the
 * holder's price (and the readM of a metadata prefetch); nothing is sent without the money. Closing
 * the client cancels every prefetch in flight.
 *
 * <p>Thread-safe: one lock guards the streams, the graph and the budgets; no request is sent while
 * it is held.
 */
public final class Prefetcher implements ReadTier.Access, ReadTier.Feedback {
  /** Sequential streams followed at once. */
  static final int STREAMS = 64;

  /** The largest degree of an adaptive stream. */
  static final int MAX_DEGREE = 64;

  /** Graph predictions prefetched per access at most. */
  static final int GRAPH_DEGREE = 4;

  private final Context ctx;
  private final Prefetch policy;
  private final HistoryGraph graph;
  private final Map<StreamKey, Stream> streams =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<StreamKey, Stream> eldest) {
          return size() > STREAMS;
        }
      };

  private int inFlight;
  private long bytesInFlight;

  /**
   * Time between the accesses of this client's streams (moving average over every stream, -1 until
   * one was measured): a stream that starts at a value's first part reads ahead with it before it
   * has a gap of its own.
   */
  private double streamGapNanos = -1;

  private double tokens;
  private long refilledAt;
  private boolean closed;

  private record StreamKey(String key, Version version) {}

  /** One sequential stream over the parts of one version. */
  static final class Stream {
    final StreamKey id;
    final LogEntry entry;

    /**
     * Where the stream's read-ahead goes: each prefetched part on the holder predicted to deliver
     * it first, given what is in flight on each ({@link Spread}, as a parted read places its
     * parts).
     */
    final Spread spread;

    int last;
    int prefetchedUpTo;
    int degree;
    int trigger;
    long lastNanos;
    double gapNanos = -1;

    /**
     * A read of this stream waited for a prefetch since its last access: the next gap measures that
     * wait, not the reader's pace, and is not sampled.
     */
    boolean waited;

    /**
     * Started by {@link #anticipated} before the read's own access: that access is still the
     * stream's first, recorded in the history graph as a stream's first access always is.
     */
    boolean early;

    Stream(StreamKey id, LogEntry entry, int last, long now, Spread spread) {
      this.id = id;
      this.entry = entry;
      this.spread = spread;
      this.last = last;
      this.prefetchedUpTo = last;
      this.lastNanos = now;
    }
  }

  /** The tag of a graph prediction's prefetch. */
  private record Predicted(HistoryGraph.NodeId from, HistoryGraph.NodeId to) {}

  private Prefetcher(Context ctx) {
    this.ctx = ctx;
    this.policy = ctx.settings.prefetch();
    this.graph =
        policy.mode() == Prefetch.Mode.HISTORY ? new HistoryGraph(policy.graphNodes()) : null;
    this.tokens = bucketSize();
    this.refilledAt = ctx.observer.nanoTime();
  }

  /** The prefetcher of {@code ctx}'s client, following its reads if its settings prefetch. */
  public static Prefetcher start(Context ctx) {
    Prefetcher p = new Prefetcher(ctx);
    if (ctx.readTier.enabled() && p.policy.mode() != Prefetch.Mode.OFF) {
      ctx.readTier.onAccess(p);
      ctx.readTier.feedback(p);
    }
    return p;
  }

  /** Stops prefetching and cancels what is in flight. */
  public void close() {
    synchronized (this) {
      closed = true;
    }
    ctx.readTier.cancelPrefetches();
  }

  /** The read tier's counts, with the graph's size. */
  public ReadTierStats stats() {
    synchronized (this) {
      if (graph == null) {
        return ctx.readTier.stats(0, 0, 0);
      }
      return ctx.readTier.stats(graph.nodes(), graph.edges(), graph.bytes());
    }
  }

  /**
   * The context the prefetches being queued act in: the tenant's whose read caused them (set under
   * the lock by {@link #accessed} and {@link #metadataThenData} before they queue sends).
   */
  private Context current;

  /**
   * A read of the first part of a parted version is about to fetch it, readM not yet decided: the
   * stream it starts reads ahead now rather than a quorum round trip later, so the parts after the
   * first arrive with it. Only a stream's start (part 0, no stream yet): the read's own access,
   * which follows, continues the stream without taking readM's wait as the reader's pace; it is
   * also the one the history graph records. The entry is validly signed (one cloud's log): if readM
   * decides another, the parts fetched are of this version and entry, checked against its signed
   * hashes, and at worst wasted.
   */
  @Override
  public void anticipated(String tenant, String key, Version version, LogEntry entry, long offset) {
    if (!ReadTier.cacheable(entry)
        || !entry.isParted()
        || entry.size() == 0
        || offset >= entry.partLength()) {
      return;
    }
    StreamKey id = new StreamKey(key, version);
    List<Runnable> sends = new ArrayList<>();
    synchronized (this) {
      if (closed || streams.containsKey(id)) {
        return;
      }
      current = ctx.forTenant(tenant);
      follow(key, version, entry, offset, offset + 1, sends);
      Stream s = streams.get(id);
      if (s != null) {
        // The read's own access of this part comes after readM: not a gap of the reader's, and
        // still the stream's first access.
        s.waited = true;
        s.early = true;
      }
    }
    sends.forEach(Runnable::run);
  }

  @Override
  public void accessed(
      String tenant,
      String key,
      Version version,
      LogEntry entry,
      long offset,
      long length,
      boolean stream) {
    if (!ReadTier.cacheable(entry) || entry.size() == 0) {
      return;
    }
    long from = Math.min(offset, entry.size());
    long to = Math.min(entry.size(), from + Math.max(length, 1));
    List<Runnable> sends = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      current = ctx.forTenant(tenant);
      boolean sequential = false;
      if (entry.isParted() && !(from == 0 && to == entry.size())) {
        sequential = follow(key, version, entry, from, to, sends);
      }
      if (!sequential && graph != null) {
        HistoryGraph.NodeId node = new HistoryGraph.NodeId(key, from, to);
        graph.record(node, version, entry);
        for (HistoryGraph.Prediction p :
            graph.predict(node, GRAPH_DEGREE, policy.minProbability())) {
          predicted(p, sends);
        }
      }
    }
    // Requests are sent outside the lock.
    sends.forEach(Runnable::run);
  }

  /**
   * Follows the stream of {@code key}'s {@code version} with an access of bytes [{@code from},
   * {@code to}); queues the read-ahead it triggers. Whether the access continued a stream. Caller
   * holds the lock.
   */
  private boolean follow(
      String key, Version version, LogEntry entry, long from, long to, List<Runnable> sends) {
    int first = (int) (from / entry.partLength());
    int last = (int) ((to - 1) / entry.partLength());
    long now = ctx.observer.nanoTime();
    StreamKey id = new StreamKey(key, version);
    Stream s = streams.get(id);
    boolean fresh = s == null || first < s.last || first > s.last + 1;
    boolean firstOfStream = false;
    if (fresh) {
      // A new stream starts here. Unless it starts at the value's first part, this access is not
      // (yet) sequential; a read of the first part is taken as the start of a stream (as a file
      // read from its start usually is) and reads ahead at once, with the time between accesses
      // that this client's earlier streams showed.
      s = new Stream(id, entry, last, now, new Spread(ctx, entry));
      s.degree = ctx.settings.partsInFlight();
      streams.put(id, s);
      if (first != 0 || last + 1 >= entry.partCount()) {
        return false;
      }
      s.gapNanos = streamGapNanos;
    } else {
      firstOfStream = s.early;
      s.early = false;
      long gap = now - s.lastNanos;
      if (!s.waited) {
        s.gapNanos = s.gapNanos < 0 ? gap : 0.7 * s.gapNanos + 0.3 * gap;
        streamGapNanos = streamGapNanos < 0 ? gap : 0.9 * streamGapNanos + 0.1 * gap;
      }
      s.waited = false;
      s.lastNanos = now;
      s.last = Math.max(s.last, last);
      s.prefetchedUpTo = Math.max(s.prefetchedUpTo, s.last);
    }
    int trigger;
    int degree;
    if (policy.mode() == Prefetch.Mode.SEQUENTIAL) {
      trigger = 0;
      degree = ctx.settings.partsInFlight();
    } else {
      // g must cover the fetch of a batch of p = g + 1 parts, whose time grows with p: taken to
      // its fixed point (a few steps), not one step from the degree the stream had. One step sized
      // a fresh stream's first batch for a batch of partsInFlight parts and sent the rest of the
      // value a round trip too late (TraceBench: the last parts of most streams read once).
      s.trigger = Math.max(s.trigger, adaptiveTrigger(s));
      for (int step = 0; step < 8 && s.degree < s.trigger + 1; step++) {
        s.degree = Math.min(MAX_DEGREE, s.trigger + 1);
        s.trigger = Math.max(s.trigger, adaptiveTrigger(s));
      }
      trigger = s.trigger;
      degree = s.degree;
    }
    if (!fresh && s.prefetchedUpTo - s.last > trigger) {
      return true;
    }
    if (!fresh && policy.mode() != Prefetch.Mode.SEQUENTIAL && s.prefetchedUpTo > last) {
      // The stream consumed the whole of the last batch up to its trigger: it can take more.
      s.degree = Math.min(MAX_DEGREE, s.degree + 1);
      degree = s.degree;
    }
    int count = entry.partCount();
    int next = s.prefetchedUpTo + 1;
    // The batch's parts in runs, the first ones on the holder that delivers one part first
    // (Spread#batch). Only the parts the request and byte budgets will admit: planned for more,
    // the first holder's run took all that were sent
    // (PrefetcherTest.aStreamFasterThanOneHoldersLinkIsFedByTwoHolders).
    List<Integer> batch = new ArrayList<>();
    long roomBytes = policy.maxBytesInFlight() - bytesInFlight;
    int room = policy.maxInFlight() - inFlight;
    for (int i = next; i < Math.min(count, next + degree) && batch.size() < room; i++) {
      Unit u = ReadTier.unit(key, version, entry, i);
      if (!ctx.readTier.holds(u) && ctx.readTier.prefetchOf(u) == null) {
        roomBytes -= u.size();
        if (roomBytes < 0) {
          break;
        }
        batch.add(i);
      }
    }
    List<String> plan = s.spread.batch(batch);
    for (int i = next; i < Math.min(count, next + degree); i++) {
      Unit u = ReadTier.unit(key, version, entry, i);
      if (ctx.readTier.holds(u)) {
        // Read-ahead would bring it: the cache need not keep it apart (ReadTier#foreseen).
        ctx.readTier.foreseen(u);
        s.prefetchedUpTo = i;
        continue;
      }
      if (ctx.readTier.prefetchOf(u) != null) {
        s.prefetchedUpTo = i;
        continue;
      }
      int at = batch.indexOf(i);
      String holder = at >= 0 && at < plan.size() ? plan.get(at) : s.spread.next();
      ReadTier.Budget refused = admit(u.size(), ctx.readTier.price(key, u.size(), holder));
      if (refused != null) {
        // Not sent; the trigger fires again on the stream's next access. The parts it wanted are
        // noted, so that a read that misses one counts a refused prefetch.
        for (int j = i; j < Math.min(count, next + degree); j++) {
          ctx.readTier.refused(ReadTier.unit(key, version, entry, j), refused);
        }
        break;
      }
      s.prefetchedUpTo = i;
      int part = i;
      Stream tag = s;
      Context c = current;
      Spread spread = s.spread;
      sends.add(
          () -> send(u, () -> unitFetch(c, key, version, entry, part, spread), holder, tag, 0));
    }
    // A stream's first access is still recorded in the history graph, as any access that does
    // not continue a stream.
    return !fresh && !firstOfStream;
  }

  /**
   * Parts the stream consumes while its next batch is fetched: the predicted time until the last
   * part of a batch of the stream's degree is delivered, placed over the holders as the stream's
   * {@link Spread} would place it now (their measured round trips and bandwidths, and the bytes
   * already in flight on each), over the stream's time between accesses; at least 1. Parts on one
   * holder share its bandwidth, so a batch's first part arrives about when its last does; a trigger
   * sized for one part's fetch sent the next batch too late (TraceBench: a second late read in most
   * sequential streams), and one sized for the fastest holder alone did not see that a stream
   * faster than one holder's link is fed by two.
   */
  private int adaptiveTrigger(Stream s) {
    if (s.gapNanos <= 0) {
      return 1;
    }
    double latency = s.spread.finishOf(Math.max(1, s.degree));
    if (latency <= 0) {
      return 1;
    }
    return (int) Math.max(1, Math.min(MAX_DEGREE - 1, Math.ceil(latency / s.gapNanos)));
  }

  /** Queues the prefetch of a graph prediction. Caller holds the lock. */
  private void predicted(HistoryGraph.Prediction p, List<Runnable> sends) {
    Predicted tag = new Predicted(p.from(), p.to());
    String key = p.to().key();
    boolean metadataFirst = p.entry() == null || !ctx.settings.maxStaleness().isZero();
    if (metadataFirst) {
      double readM = ctx.readTier.readMPrice();
      if (!admitDollars(readM)) {
        ctx.readTier.refused(key, ReadTier.Budget.DOLLARS);
        return;
      }
      Context c = current;
      sends.add(() -> metadataThenData(c, key, p.to(), tag, readM));
      return;
    }
    queueUnits(key, p.version(), p.entry(), p.to(), tag, 0, sends);
  }

  /** Queues the units of {@code entry} that cover {@code range}. Caller holds the lock. */
  private void queueUnits(
      String key,
      Version version,
      LogEntry entry,
      HistoryGraph.NodeId range,
      Object tag,
      double metadataDollars,
      List<Runnable> sends) {
    if (!ReadTier.cacheable(entry) || entry.size() == 0) {
      return;
    }
    Spread spread = new Spread(ctx, entry);
    String holder = spread.next();
    List<Integer> parts = new ArrayList<>();
    if (!entry.isParted()) {
      parts.add(Unit.WHOLE);
    } else {
      long from = Math.min(range.from(), entry.size() - 1);
      long to = Math.min(entry.size(), Math.max(range.to(), from + 1));
      for (int i = (int) (from / entry.partLength()); i <= (to - 1) / entry.partLength(); i++) {
        parts.add(i);
      }
    }
    for (int j = 0; j < parts.size(); j++) {
      int part = parts.get(j);
      Unit u = ReadTier.unit(key, version, entry, part);
      if (ctx.readTier.holds(u)) {
        // Predicted: the cache need not keep it apart (ReadTier#foreseen).
        ctx.readTier.foreseen(u);
        continue;
      }
      if (ctx.readTier.prefetchOf(u) != null) {
        continue;
      }
      ReadTier.Budget refused = admit(u.size(), ctx.readTier.price(key, u.size(), holder));
      if (refused != null) {
        for (int k = j; k < parts.size(); k++) {
          ctx.readTier.refused(ReadTier.unit(key, version, entry, parts.get(k)), refused);
        }
        return;
      }
      double meta = metadataDollars;
      metadataDollars = 0;
      Context c = current;
      sends.add(
          () -> send(u, () -> unitFetch(c, key, version, entry, part, spread), holder, tag, meta));
    }
  }

  /**
   * A metadata prefetch: readM of {@code key} (its view remembered by the read tier, for reads of a
   * known version and bounded-staleness reads), then the newest version's units that cover the
   * predicted range. Counted as one request in flight while readM runs.
   */
  private void metadataThenData(
      Context c, String key, HistoryGraph.NodeId range, Object tag, double readMDollars) {
    synchronized (this) {
      if (closed) {
        return;
      }
      if (inFlight >= policy.maxInFlight()) {
        ctx.readTier.refused(key, ReadTier.Budget.REQUESTS);
        return;
      }
      inFlight++;
    }
    CompletableFuture<View> m;
    try {
      m = MetadataRead.run(c, key);
    } catch (RuntimeException e) {
      m = CompletableFuture.failedFuture(e);
    }
    Futures.onEnd(
        m,
        (view, e) -> {
          List<Runnable> sends = new ArrayList<>();
          synchronized (this) {
            inFlight--;
            if (view != null && !closed) {
              ctx.readTier.rememberView(key, view);
              current = c;
              if (!view.visible.isEmpty()) {
                View.Item item = view.visible.get(0);
                queueUnits(key, item.version(), item.entry(), range, tag, readMDollars, sends);
              }
            }
          }
          sends.forEach(Runnable::run);
        });
  }

  /** Sends one admitted prefetch (outside the lock); releases its budget when it ends. */
  private void send(
      Unit u,
      java.util.function.Supplier<CompletableFuture<byte[]>> fetch,
      String holder,
      Object tag,
      double metadataDollars) {
    boolean started = ctx.readTier.prefetch(u, fetch, holder, tag, metadataDollars);
    CompletableFuture<byte[]> f = started ? ctx.readTier.prefetchOf(u) : null;
    if (f == null) {
      release(u.size());
      return;
    }
    Futures.onEnd(f, (b, e) -> release(u.size()));
  }

  private CompletableFuture<byte[]> unitFetch(
      Context c, String key, Version version, LogEntry entry, int part, Spread spread) {
    return Layouts.of(entry).fetchUnit(ValueRead.ofEntry(c, key, version, entry), part, spread);
  }

  /**
   * Whether a prefetch of {@code bytes} costing {@code dollars} fits the budgets now: null if so
   * (it is then counted in flight and paid for), else the budget that refused it. Caller holds the
   * lock; a closed prefetcher refuses everything (as out of requests).
   */
  private ReadTier.Budget admit(long bytes, double dollars) {
    if (closed || inFlight >= policy.maxInFlight()) {
      return ReadTier.Budget.REQUESTS;
    }
    if (bytesInFlight + bytes > policy.maxBytesInFlight()) {
      return ReadTier.Budget.BYTES;
    }
    if (!admitDollars(dollars)) {
      return ReadTier.Budget.DOLLARS;
    }
    inFlight++;
    bytesInFlight += bytes;
    return null;
  }

  /** Takes {@code dollars} from the bucket if it holds them. Caller holds the lock. */
  private boolean admitDollars(double dollars) {
    long now = ctx.observer.nanoTime();
    double perNano = policy.dollarsPerHour() / Prefetch.BUDGET_PERIOD.toNanos();
    tokens = Math.min(bucketSize(), tokens + (now - refilledAt) * perNano);
    refilledAt = now;
    if (tokens < dollars) {
      return false;
    }
    tokens -= dollars;
    return true;
  }

  /** A minute's worth of the hourly budget. */
  private double bucketSize() {
    return policy.dollarsPerHour() / 60;
  }

  private synchronized void release(long bytes) {
    inFlight--;
    bytesInFlight -= bytes;
  }

  @Override
  public void used(Unit unit, Object tag) {
    // A prediction the reads confirmed: the graph counted the access already.
  }

  @Override
  public synchronized void wasted(Unit unit, Object tag) {
    if (tag instanceof Stream s) {
      s.degree = Math.max(1, s.degree - 1);
    } else if (tag instanceof Predicted p && graph != null) {
      graph.lower(p.from(), p.to());
    }
  }

  /**
   * Whether a prefetched unit a read used (on time, or late: the read waited for it) enters the
   * cache even if it displaces others: not a stream's read-ahead. When the stream passes again,
   * read-ahead started at its first access brings those parts again, and the cache's bytes go to
   * what a miss would make the reader wait for: the stream's first part (fetched by the read
   * itself), values read at random. A late part kept alone did not spare the stream's next pass its
   * wait (TraceBench: one such part per repeated stream pass took the place of first parts).
   * Keeping the parts the reader consumes before read-ahead from the first access can deliver any
   * (8 to 12 in TraceBench) as well did not fit a cache a third of the repeated working set, and
   * evicted the values read at random instead.
   */
  @Override
  public boolean keep(Unit unit, Object tag) {
    return !(tag instanceof Stream);
  }

  @Override
  public synchronized void late(Unit unit, Object tag) {
    if (tag instanceof Stream s) {
      s.waited = true;
      s.trigger = Math.min(MAX_DEGREE - 1, s.trigger + 1);
    }
  }

  /** The graph, for tests (null unless mode HISTORY). */
  HistoryGraph graph() {
    return graph;
  }

  /** The stream of {@code key}'s {@code version}, for tests (null if none). */
  synchronized Stream stream(String key, Version version) {
    return streams.get(new StreamKey(key, version));
  }
}
