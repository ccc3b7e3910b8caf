package io.rafestore.internal.protocol.context;

import io.rafestore.CacheEvent;
import io.rafestore.Pricing;
import io.rafestore.ReadTierStats;
import io.rafestore.ValueCache;
import io.rafestore.ValueCache.Unit;
import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.observe.Observer;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The client's read tier around its {@link ValueCache}: the one place that reads from and writes to
 * the cache, and so the one place that keeps it from lying. Every unit (a whole stored value, or
 * one stored part) is named by key, version, part and the signed SHA-256 its entry gives ({@link
 * #unit}); bytes are checked against that hash and size when they enter ({@link #store}) and every
 * time they come out ({@link #lookup}), so whatever the cache implementation does, a read only ever
 * uses the bytes the version's signed entry names. A unit whose bytes do not match is removed and
 * reported ({@link CacheEvent.Kind#CORRUPT}).
 *
 * <p>Beside the bytes it remembers, bounded, what readM verified: the signed entry of each version
 * a read decided ({@link #remember}), so that a later read of that very version can be answered
 * from the cache without a cloud, and the view of each key with the time it was verified ({@link
 * #rememberView}), for bounded-staleness reads. A delete or collection by this client forgets the
 * key's entries and view ({@link #forget}); what other clients delete is not seen until readM runs
 * again (section 5 of design.md, "The read tier").
 *
 * <p>Counts what it does for {@link ReadTierStats}. Thread-safe.
 */
public final class ReadTier {
  /** How many versions' entries and keys' views it remembers (least recently used dropped). */
  static final int MEMORY_LIMIT = 100_000;

  private final Settings settings;
  private final Observer observer;
  private final ValueCache cache;

  /** (key, version) to the signed entry readM decided for it, and its writer. */
  private final Map<VersionKey, LogEntry> entries = lru(MEMORY_LIMIT);

  /** Key to the last view readM verified for it, and when (scheduler nanos). */
  private final Map<String, Seen> views = lru(MEMORY_LIMIT);

  /**
   * Prefetched units not yet read, oldest first, bounded by the prefetch budget's bytes ({@link
   * io.rafestore.Prefetch#maxBytesInFlight}). They enter the cache on their first read, not when
   * they arrive: a scan-resistant cache admits a unit nobody has read yet only if it beats what it
   * would evict, so prefetched parts put straight into a small cache were mostly dropped before the
   * stream reached them. Guarded by itself.
   */
  private final Map<Unit, byte[]> staged = new LinkedHashMap<>();

  private long stagedBytes;

  /** Units being prefetched: a read that needs one waits for it instead of asking a cloud. */
  private final ConcurrentHashMap<Unit, CompletableFuture<byte[]>> prefetching =
      new ConcurrentHashMap<>();

  /** Prefetched units not yet used by a read, with what to tell when they settle. */
  private final Map<Unit, Prefetched> prefetched = lru(MEMORY_LIMIT);

  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final AtomicLong bytesSaved = new AtomicLong();
  private final DoubleAdder dollarsSaved = new DoubleAdder();
  private final AtomicLong cloudFreeReads = new AtomicLong();
  private final AtomicLong staleReads = new AtomicLong();
  private final AtomicLong prefetches = new AtomicLong();
  private final AtomicLong prefetchedBytes = new AtomicLong();
  private final DoubleAdder prefetchDollars = new DoubleAdder();
  private final AtomicLong used = new AtomicLong();
  private final AtomicLong wasted = new AtomicLong();
  private final AtomicLong wastedBytes = new AtomicLong();
  private final DoubleAdder wastedDollars = new DoubleAdder();
  private final AtomicLong discarded = new AtomicLong();

  /** Misses by cause ({@link ReadTierStats}): cold, late, evicted, dropped, refused. */
  private final AtomicLong coldMisses = new AtomicLong();

  private final AtomicLong lateMisses = new AtomicLong();
  private final AtomicLong evictedMisses = new AtomicLong();
  private final AtomicLong droppedMisses = new AtomicLong();
  private final AtomicLong refusedMisses = new AtomicLong();
  private final AtomicLong refusedByRequests = new AtomicLong();
  private final AtomicLong refusedByBytes = new AtomicLong();
  private final AtomicLong refusedByDollars = new AtomicLong();

  /** What last happened to a unit that the cache held or the prefetcher meant to bring. */
  private enum Trace {
    /** Put in the cache (a read fetched it, this client wrote it, or a read used its prefetch). */
    CACHED,
    /** Prefetched, and gone (dropped, evicted, failed) before any read used it. */
    DROPPED,
    /** Chosen by the prefetcher, and not sent: a budget refused it. */
    REFUSED
  }

  /** A unit's last {@link Trace} and when it was set (a count of traces, not time). */
  private record Mark(Trace trace, long at) {}

  /**
   * The last {@link Trace} of recent units, so that a miss can tell why the unit was not there
   * (bounded like the entries: the least recently touched forgotten, a miss then counted cold).
   * Guarded by itself, as is {@link #marks}.
   */
  private final Map<Unit, Mark> traces = lru(MEMORY_LIMIT);

  /**
   * Keys whose metadata prefetch a budget refused (their units unknown then), with the count of
   * traces at the refusal; a later trace of the unit itself wins. Guarded by {@link #traces}.
   */
  private final Map<String, Long> refusedKeys = lru(MEMORY_LIMIT);

  private long marks;

  /** What the prefetcher wants to hear of its prefetched units (set once, by the prefetcher). */
  private volatile Feedback feedback = Feedback.NONE;

  /** Told whether a prefetched unit was used by a read or wasted. */
  public interface Feedback {
    Feedback NONE = new Feedback() {};

    default void used(Unit unit, Object tag) {}

    default void wasted(Unit unit, Object tag) {}

    /** A read needed the unit while its prefetch was still in flight (the prefetch was late). */
    default void late(Unit unit, Object tag) {}

    /**
     * Whether a prefetched unit a read used (on time or late) enters the cache even if it displaces
     * others: false for a unit that the prefetching that brought it would bring on time again (a
     * stream's read-ahead), which enters only free room ({@link ValueCache#hasRoom}), so that a
     * full cache holds what prefetching cannot hide.
     */
    default boolean keep(Unit unit, Object tag) {
      return true;
    }
  }

  /** Told of every access a read makes (the prefetcher follows them). */
  public interface Access {
    Access NONE = (tenant, key, version, entry, offset, length, stream) -> {};

    /**
     * A read of {@code tenant}'s used {@code length} bytes from {@code offset} of {@code version}
     * of {@code key} ({@code entry}: its signed entry); {@code stream}: one part of a streamed
     * read. Prefetches the access causes act for that tenant.
     */
    void accessed(
        String tenant,
        String key,
        Version version,
        LogEntry entry,
        long offset,
        long length,
        boolean stream);

    /**
     * A read of {@code tenant} of {@code version} of {@code key} from {@code offset} is about to
     * fetch: {@code entry} is the version's signed entry as the first validly signed log readM
     * received names it, before readM decides. Read-ahead may start now; the read's own {@link
     * #accessed} follows once readM decides.
     */
    default void anticipated(
        String tenant, String key, Version version, LogEntry entry, long offset) {}
  }

  private volatile Access access = Access.NONE;

  /** Sets who is told of accesses (the prefetcher). */
  public void onAccess(Access a) {
    this.access = a;
  }

  /** Tells the prefetcher of an access by a read of {@code tenant}'s ({@link Access#accessed}). */
  public void accessed(
      String tenant,
      String key,
      Version version,
      LogEntry entry,
      long offset,
      long length,
      boolean stream) {
    if (cache != null) {
      access.accessed(tenant, key, version, entry, offset, length, stream);
    }
  }

  /** See {@link Access#anticipated}. */
  public void anticipated(String tenant, String key, Version version, LogEntry entry, long offset) {
    if (cache != null) {
      access.anticipated(tenant, key, version, entry, offset);
    }
  }

  /**
   * Unit {@code unit} a read needed came from a cloud by another path (an anticipated fetch):
   * counted as a miss; whether it was an evicted one (store its bytes with {@code evictedBefore}).
   */
  public boolean missed(Unit unit) {
    return cache != null && countMiss(unit);
  }

  /** A budget of the prefetcher refused to send it ({@code which}). */
  public enum Budget {
    /** Prefetch requests in flight ({@link io.rafestore.Prefetch#maxInFlight}). */
    REQUESTS,
    /** Prefetch bytes in flight ({@link io.rafestore.Prefetch#maxBytesInFlight}). */
    BYTES,
    /** Dollars ({@link io.rafestore.Prefetch#dollarsPerHour}). */
    DOLLARS
  }

  /**
   * The prefetcher chose {@code unit} and {@code budget} refused it: if a read misses it before
   * anything else happens to it, the miss is counted refused.
   */
  public void refused(Unit unit, Budget budget) {
    if (cache == null) {
      return;
    }
    refusal(budget);
    mark(unit, Trace.REFUSED);
  }

  /**
   * The prefetcher chose a unit of {@code key} whose signed entry it does not know yet (a metadata
   * prefetch) and {@code budget} refused it: a read's miss of a unit of that key is counted refused
   * unless something happened to the unit itself since.
   */
  public void refused(String key, Budget budget) {
    if (cache == null) {
      return;
    }
    refusal(budget);
    synchronized (traces) {
      refusedKeys.put(key, ++marks);
    }
  }

  private void refusal(Budget budget) {
    switch (budget) {
      case REQUESTS -> refusedByRequests.incrementAndGet();
      case BYTES -> refusedByBytes.incrementAndGet();
      case DOLLARS -> refusedByDollars.incrementAndGet();
    }
  }

  /** Notes {@code trace} as what last happened to {@code unit}. */
  private void mark(Unit unit, Trace trace) {
    synchronized (traces) {
      traces.put(unit, new Mark(trace, ++marks));
    }
  }

  /**
   * Counts a miss of {@code unit} that waited for no prefetch, by what last happened to it: cached
   * and evicted since, prefetched and dropped unused, refused by a prefetch budget, or nothing this
   * client remembers (cold). Returns whether the cache had held it (an evicted miss).
   */
  private boolean countMiss(Unit unit) {
    misses.incrementAndGet();
    Mark m;
    Long keyRefused;
    synchronized (traces) {
      m = traces.get(unit);
      keyRefused = refusedKeys.get(unit.key());
    }
    Trace t = m == null ? null : m.trace();
    if (keyRefused != null && (m == null || keyRefused > m.at())) {
      t = Trace.REFUSED;
    }
    if (t == null) {
      coldMisses.incrementAndGet();
      return false;
    }
    switch (t) {
      case CACHED -> evictedMisses.incrementAndGet();
      case DROPPED -> droppedMisses.incrementAndGet();
      case REFUSED -> refusedMisses.incrementAndGet();
    }
    return t == Trace.CACHED;
  }

  /** A map of at most {@link #FORESEEN} units, least recently touched forgotten first. */
  private static Map<Unit, Boolean> recentUnits() {
    return new java.util.LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<Unit, Boolean> eldest) {
        return size() > FORESEEN;
      }
    };
  }

  /**
   * Units a prefetch would have brought (a stream's read-ahead or a graph prediction reached them)
   * while the cache held them, not read since: a hit on one of these is not {@link
   * ValueCache#protect}ed. Bounded; least recently noted forgotten.
   */
  private final Map<Unit, Boolean> foreseen = recentUnits();

  /**
   * Units a read asked for (least recently asked forgotten, as many as {@link #foreseen}): a hit on
   * a unit not read before (one this client wrote, say) is no evidence it is read again.
   */
  private final Map<Unit, Boolean> read = recentUnits();

  /** How many {@link #foreseen} units are remembered. */
  static final int FORESEEN = 10_000;

  /**
   * Whether the client prefetches: only then does the cache's protected share mean anything (it
   * keeps what prefetching cannot bring back on time apart from what it can). Without prefetching
   * nothing comes back by itself, and a share apart only split one eviction policy in two
   * (TraceBench, mode OFF: 4,353 to about 4,680 misses).
   */
  private boolean prefetching() {
    return settings.prefetch().mode() != io.rafestore.Prefetch.Mode.OFF;
  }

  /**
   * The prefetcher would have fetched {@code unit} now, but the cache holds it: its next hit is a
   * read prefetching would have served, and does not move it to the cache's protected share.
   */
  public void foreseen(Unit unit) {
    if (cache == null) {
      return;
    }
    synchronized (foreseen) {
      foreseen.put(unit, Boolean.TRUE);
    }
  }

  /** A version of a key. */
  private record VersionKey(String key, Version version) {}

  /** A view readM verified, and when (scheduler nanos). */
  private record Seen(View view, long nanos) {}

  /** A prefetched unit's cost and the prefetcher's tag. */
  private record Prefetched(long bytes, double dollars, Object tag) {}

  ReadTier(Settings settings, Observer observer) {
    this.settings = settings;
    this.observer = observer;
    this.cache = settings.valueCache();
    if (cache != null) {
      cache.bind(this::discardedFile);
    }
  }

  /** Whether the client has a cache. */
  public boolean enabled() {
    return cache != null;
  }

  /** Sets where prefetch outcomes go. */
  public void feedback(Feedback f) {
    this.feedback = f;
  }

  /**
   * The unit of stored part {@code part} ({@link Unit#WHOLE} for the whole stored value) of {@code
   * entry}, version {@code version} of {@code key}: named by the hash the entry signs for it.
   */
  public static Unit unit(String key, Version version, LogEntry entry, int part) {
    if (part == Unit.WHOLE) {
      return new Unit(key, version, Unit.WHOLE, entry.sha256Unsafe(), entry.storedSize());
    }
    return new Unit(key, version, part, entry.partHashUnsafe(part), entry.storedPartSize(part));
  }

  /**
   * Whether {@code entry} keeps units the cache can hold: a value stored as data objects (whole,
   * coded or in parts, sealed or not). Inline values travel in the log and are not units.
   */
  public static boolean cacheable(LogEntry entry) {
    return entry.kind() == LogEntry.Kind.VALUE
        && entry.coding() != LogEntry.Coding.INLINE
        && entry.coding() != LogEntry.Coding.DEPSKY_CA;
  }

  /** Whether the cache holds {@code unit} now (no access counted, nothing loaded). */
  public boolean holds(Unit unit) {
    if (cache == null) {
      return false;
    }
    synchronized (staged) {
      if (staged.containsKey(unit)) {
        return true;
      }
    }
    return cache.contains(unit);
  }

  /** Whether every unit of {@code entry} of {@code version} of {@code key} is held. */
  public boolean holdsAll(String key, Version version, LogEntry entry) {
    if (cache == null || !cacheable(entry)) {
      return false;
    }
    if (!entry.isParted()) {
      return holds(unit(key, version, entry, Unit.WHOLE));
    }
    for (int i = 0; i < entry.partCount(); i++) {
      if (!holds(unit(key, version, entry, i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code unit}'s bytes, checked against its signed hash and size, if the cache holds them (a hit,
   * counted); empty otherwise (not counted: the caller counts a miss when it fetches). Bytes that
   * do not match are removed from the cache and reported, and are a miss.
   */
  public Optional<byte[]> lookup(Unit unit) {
    if (cache == null) {
      return Optional.empty();
    }
    boolean readBefore;
    synchronized (read) {
      readBefore = read.put(unit, Boolean.TRUE) != null;
    }
    Optional<byte[]> got = cache.get(unit);
    byte[] first = null;
    // Looked at before the staged units: a prefetch that completes in between is staged by then.
    boolean inFlight = got.isEmpty() && prefetching.containsKey(unit);
    if (got.isEmpty()) {
      synchronized (staged) {
        first = staged.remove(unit);
        if (first != null) {
          stagedBytes -= first.length;
        }
      }
      got = Optional.ofNullable(first);
    }
    if (got.isEmpty()) {
      if (!inFlight) {
        Prefetched p = settle(unit);
        if (p != null) {
          // Prefetched, and gone before any read used it: evicted.
          waste(unit, p);
        }
      }
      // Still in flight: not wasted but late; the caller waits for it (through).
      return Optional.empty();
    }
    byte[] bytes = got.get();
    if (bytes.length != unit.size() || !Sha256.matches(bytes, unit.sha256())) {
      cache.remove(unit);
      discarded.incrementAndGet();
      observer.cache(
          new CacheEvent(
              CacheEvent.Kind.CORRUPT,
              unit.key(),
              unit
                  + ": the cache returned "
                  + bytes.length
                  + " bytes that do not match the signed SHA-256 and size "
                  + unit.size()
                  + "; dropped"));
      return Optional.empty();
    }
    if (first != null) {
      Prefetched ahead;
      synchronized (prefetched) {
        ahead = prefetched.get(unit);
      }
      if (ahead == null || feedback.keep(unit, ahead.tag()) || cache.hasRoom(unit.size())) {
        // A prefetched unit's first read: checked just above, it enters the cache now, as a unit
        // a read fetched does.
        cache.put(unit, first);
        mark(unit, Trace.CACHED);
      } else {
        // Brought on time by a stream's read-ahead, which brings it again the next time the
        // stream passes: it fills free room in the cache but does not take the place of a unit
        // whose miss would cost a round trip (a stream's first part, a value read at random).
        // Forgotten, so a later miss of it is counted cold.
        synchronized (traces) {
          traces.remove(unit);
        }
      }
    } else {
      synchronized (traces) {
        // Touched, so that a unit read often is not forgotten while it is cached.
        traces.get(unit);
      }
      boolean predicted;
      synchronized (foreseen) {
        predicted = foreseen.remove(unit) != null;
      }
      if (readBefore && !predicted && prefetching()) {
        // Read again, and nothing predicted it: evicted, it would cost this read's round trip.
        cache.protect(unit);
      }
      // A unit this client wrote is also kept apart until its first read (written): the cache
      // had it, so the copy goes.
      unstage(unit);
    }
    hits.incrementAndGet();
    bytesSaved.addAndGet(bytes.length);
    dollarsSaved.add(price(unit.key(), unit.size(), null));
    Prefetched p = settle(unit);
    if (p != null) {
      use(unit, p);
    }
    return Optional.of(bytes);
  }

  /**
   * Keeps {@code bytes} as {@code unit}'s if they match its signed hash and size (they were checked
   * by the fetch already; checked again here, so nothing else can enter).
   */
  public void store(Unit unit, byte[] bytes) {
    store(unit, bytes, false);
  }

  /**
   * {@link #store}; {@code evictedBefore}: a read fetched the unit itself after the cache had held
   * it and evicted it (an evicted miss), which the cache may keep apart ({@link
   * ValueCache#putProtected}): no prefetch brought it back on time, so its next eviction would cost
   * a read the whole round trip again.
   */
  public void store(Unit unit, byte[] bytes, boolean evictedBefore) {
    if (cache == null) {
      return;
    }
    if (bytes.length != unit.size() || !Sha256.matches(bytes, unit.sha256())) {
      // Never happens for bytes a fetch verified; refuse rather than trust.
      discarded.incrementAndGet();
      return;
    }
    if (evictedBefore && prefetching()) {
      cache.putProtected(unit, bytes);
    } else {
      cache.put(unit, bytes);
    }
    mark(unit, Trace.CACHED);
  }

  /**
   * The unit's value: from the cache ({@code wrap} of its bytes); else from the prefetch of it in
   * flight, if any (a miss that waits for that request instead of sending its own); else {@code
   * fetch}, a miss whose verified bytes ({@code bytesOf}) are then stored. The future returned is
   * {@code fetch}'s own when it fetched, so cancelling it cancels the fetch.
   */
  public <T> CompletableFuture<T> through(
      Unit unit,
      Function<byte[], T> wrap,
      Supplier<CompletableFuture<T>> fetch,
      Function<T, byte[]> bytesOf) {
    if (cache == null) {
      return fetch.get();
    }
    Optional<byte[]> hit = lookup(unit);
    if (hit.isPresent()) {
      return CompletableFuture.completedFuture(wrap.apply(hit.get()));
    }
    CompletableFuture<byte[]> ahead = prefetching.get(unit);
    boolean evictedBefore = false;
    if (ahead == null) {
      evictedBefore = countMiss(unit);
    } else {
      misses.incrementAndGet();
      lateMisses.incrementAndGet();
      Prefetched late;
      synchronized (prefetched) {
        late = prefetched.get(unit);
      }
      if (late != null) {
        feedback.late(unit, late.tag());
      }
      CompletableFuture<T> out = new CompletableFuture<>();
      Futures.onEnd(
          ahead,
          (b, e) -> {
            if (b != null) {
              Prefetched p = settle(unit);
              if (p != null) {
                use(unit, p);
              }
              // The read used the prefetched bytes as they arrived: they enter the cache now, as a
              // fetched unit's do, and wait apart no longer (left staged, they were dropped
              // unseen, and a repeated stream found the parts it waited for gone).
              unstage(unit);
              if (p == null || feedback.keep(unit, p.tag()) || cache.hasRoom(unit.size())) {
                store(unit, b);
              } else {
                // Brought late by a stream's read-ahead: as one brought on time, it fills free
                // room only. Kept, one part in the middle of a stream did not spare the stream's
                // next pass its wait (read-ahead from the first part still arrives after the
                // reader wants the second) and took the place of first parts and of values read
                // at random (TraceBench: 156 such parts put in the history mode's run).
                synchronized (traces) {
                  traces.remove(unit);
                }
              }
              out.complete(wrap.apply(b));
            } else if (!out.isDone()) {
              // The prefetch failed or was cancelled: the read fetches for itself.
              CompletableFuture<T> own = fetch.get();
              Futures.onEnd(own, Futures.completer(out));
              Futures.onEnd(out, (v, x) -> own.cancel(true));
            }
          });
      return out;
    }
    CompletableFuture<T> f = fetch.get();
    boolean again = evictedBefore;
    f.thenAccept(v -> store(unit, bytesOf.apply(v), again));
    return f;
  }

  /**
   * Registers a prefetch of {@code unit} ({@code fetch}: its verified bytes), unless the unit is
   * cached or being prefetched already; its bytes are stored when they arrive, and a read that
   * needs the unit meanwhile waits for it. {@code metadataDollars} is what finding the unit cost (a
   * metadata prefetch's readM), {@code tag} what {@link Feedback} is told. Returns whether it
   * started.
   */
  public boolean prefetch(
      Unit unit,
      Supplier<CompletableFuture<byte[]>> fetch,
      String holder,
      Object tag,
      double metadataDollars) {
    if (cache == null || holds(unit)) {
      return false;
    }
    CompletableFuture<byte[]> mine = new CompletableFuture<>();
    if (prefetching.putIfAbsent(unit, mine) != null) {
      return false;
    }
    double dollars = price(unit.key(), unit.size(), holder) + metadataDollars;
    prefetches.incrementAndGet();
    prefetchedBytes.addAndGet(unit.size());
    prefetchDollars.add(dollars);
    synchronized (prefetched) {
      prefetched.put(unit, new Prefetched(unit.size(), dollars, tag));
    }
    CompletableFuture<byte[]> f = started(fetch);
    Futures.onEnd(mine, (b, e) -> f.cancel(true));
    Futures.onEnd(
        f,
        (b, e) -> {
          if (b != null) {
            stage(unit, b);
          } else {
            Prefetched p = settle(unit);
            if (p != null) {
              waste(unit, p);
            }
          }
          prefetching.remove(unit, mine);
          if (b != null) {
            mine.complete(b);
          } else {
            mine.completeExceptionally(e);
          }
        });
    return true;
  }

  private static CompletableFuture<byte[]> started(Supplier<CompletableFuture<byte[]>> fetch) {
    try {
      return fetch.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The future of {@code unit}'s prefetch in flight (to cancel it), or null. */
  public CompletableFuture<byte[]> prefetchOf(Unit unit) {
    return prefetching.get(unit);
  }

  /**
   * Keeps a prefetched unit's verified bytes until a read uses them; the oldest staged units are
   * dropped (wasted) beyond the budget.
   */
  private void stage(Unit unit, byte[] bytes) {
    if (bytes.length != unit.size() || !Sha256.matches(bytes, unit.sha256())) {
      discarded.incrementAndGet();
      return;
    }
    long budget = settings.prefetch().maxBytesInFlight();
    List<Unit> dropped = new ArrayList<>();
    synchronized (staged) {
      byte[] old = staged.put(unit, bytes);
      stagedBytes += bytes.length - (old == null ? 0 : old.length);
      var it = staged.entrySet().iterator();
      while (stagedBytes > budget && it.hasNext()) {
        Map.Entry<Unit, byte[]> e = it.next();
        stagedBytes -= e.getValue().length;
        dropped.add(e.getKey());
        it.remove();
      }
    }
    for (Unit u : dropped) {
      Prefetched p = settle(u);
      if (p != null) {
        waste(u, p);
      }
    }
  }

  /** Drops {@code unit}'s staged copy, if any (not wasted: a read has it). */
  private void unstage(Unit unit) {
    synchronized (staged) {
      byte[] old = staged.remove(unit);
      if (old != null) {
        stagedBytes -= old.length;
      }
    }
  }

  /** Cancels every prefetch in flight and drops the staged ones (the client is closing). */
  public void cancelPrefetches() {
    for (CompletableFuture<byte[]> f : prefetching.values()) {
      f.cancel(true);
    }
    synchronized (staged) {
      staged.clear();
      stagedBytes = 0;
    }
  }

  /** A read was answered without any request to a cloud. */
  public void cloudFree(boolean stale) {
    cloudFreeReads.incrementAndGet();
    if (stale) {
      staleReads.incrementAndGet();
    }
  }

  /** A read was answered from a view verified within its staleness bound (not readM). */
  public void staleView() {
    staleReads.incrementAndGet();
  }

  /** Remembers that readM decided {@code item} as a version of {@code key}. */
  public void remember(String key, View.Item item) {
    if (cache == null || item.entry().kind() != LogEntry.Kind.VALUE) {
      return;
    }
    synchronized (entries) {
      entries.put(new VersionKey(key, item.version()), item.entry());
    }
  }

  /**
   * Caches the bytes of a version this client wrote, {@code value}, against the signed entry its
   * writeM stored ({@link #remember}ed by the commit): the whole stored value or each stored part,
   * each checked against its signed hash as it enters ({@link #store}); nothing for a sealed or
   * inline entry (a sealed value's stored bytes are not the value).
   */
  public void written(String key, Version version, byte[] value) {
    LogEntry entry = entry(key, version);
    if (cache == null || entry == null || entry.isSealed() || !cacheable(entry)) {
      return;
    }
    if (!entry.isParted()) {
      keepWritten(unit(key, version, entry, Unit.WHOLE), value);
      return;
    }
    for (int i = 0; i < entry.partCount(); i++) {
      int from = (int) entry.partOffset(i);
      store(
          unit(key, version, entry, i),
          java.util.Arrays.copyOfRange(value, from, from + (int) entry.partSize(i)));
    }
  }

  /**
   * Puts a value this client wrote, stored whole, in the cache and, when the client prefetches,
   * also keeps it apart with the prefetched units until its first read (within the same byte bound,
   * oldest dropped first). A scan-resistant cache admits a unit nobody has read yet only if it
   * beats what it would evict, so a small value written and read soon after (as random-once data in
   * Tombolo's traces mostly is) was rejected before its first read, as a prefetched unit was. The
   * parts of a large value are only put in the cache: kept apart they would crowd out the
   * prefetched units, and a stream over them is prefetched anyway.
   */
  private void keepWritten(Unit unit, byte[] bytes) {
    store(unit, bytes);
    if (settings.prefetch().mode() != io.rafestore.Prefetch.Mode.OFF) {
      stage(unit, bytes);
    }
  }

  /** The signed entry readM decided for {@code version} of {@code key}, if remembered. */
  public LogEntry entry(String key, Version version) {
    synchronized (entries) {
      return entries.get(new VersionKey(key, version));
    }
  }

  /** Remembers {@code view}, verified by readM now, as the latest known of {@code key}. */
  public void rememberView(String key, View view) {
    if (cache == null) {
      return;
    }
    synchronized (views) {
      views.put(key, new Seen(view, observer.nanoTime()));
    }
    for (View.Item item : view.visible) {
      remember(key, item);
      break;
    }
  }

  /** The view of {@code key} readM verified within {@code bound} of now, or null. */
  public View freshView(String key, Duration bound) {
    if (cache == null || bound.isZero()) {
      return null;
    }
    Seen s;
    synchronized (views) {
      s = views.get(key);
    }
    if (s == null || observer.nanoTime() - s.nanos() > bound.toNanos()) {
      return null;
    }
    return s.view();
  }

  /**
   * This client deleted or collected versions of {@code key}: it forgets the key's view and
   * entries, so none of its own reads answers for a version it removed without asking readM.
   */
  public void forget(String key) {
    synchronized (views) {
      views.remove(key);
    }
    synchronized (entries) {
      entries.keySet().removeIf(k -> k.key().equals(key));
    }
  }

  /**
   * What a get of {@code bytes} of {@code key} costs at the price of {@code holder} (null: the
   * cheapest configured cloud's, so savings are never overstated).
   */
  public double price(String key, long bytes, String holder) {
    if (holder != null) {
      return price(settings.pricing(holder), bytes);
    }
    double least = Double.MAX_VALUE;
    for (Settings.CloudSetting c : settings.clouds()) {
      least = Math.min(least, price(settings.pricing(c.driver().id()), bytes));
    }
    return least;
  }

  private static double price(Pricing p, long bytes) {
    return p.getsPer1000() / 1000.0 + bytes / 1e9 * p.egressPerGB();
  }

  /** What readM costs: one get of a log from every cloud. */
  public double readMPrice() {
    double d = 0;
    for (Settings.CloudSetting c : settings.clouds()) {
      d += settings.pricing(c.driver().id()).getsPer1000() / 1000.0;
    }
    return d;
  }

  private Prefetched settle(Unit unit) {
    synchronized (prefetched) {
      return prefetched.remove(unit);
    }
  }

  private void use(Unit unit, Prefetched p) {
    used.incrementAndGet();
    feedback.used(unit, p.tag());
  }

  private void waste(Unit unit, Prefetched p) {
    mark(unit, Trace.DROPPED);
    wasted.incrementAndGet();
    wastedBytes.addAndGet(p.bytes());
    wastedDollars.add(p.dollars());
    feedback.wasted(unit, p.tag());
  }

  private void discardedFile(CacheEvent event) {
    discarded.incrementAndGet();
    observer.cache(event);
  }

  /** The counts so far; {@code graph} fills in the history graph's size. */
  public ReadTierStats stats(long graphNodes, long graphEdges, long graphBytes) {
    if (cache == null) {
      return ReadTierStats.NONE;
    }
    return new ReadTierStats(
        hits.get(),
        misses.get(),
        bytesSaved.get(),
        dollarsSaved.sum(),
        cloudFreeReads.get(),
        staleReads.get(),
        prefetches.get(),
        prefetchedBytes.get(),
        prefetchDollars.sum(),
        used.get(),
        wasted.get(),
        wastedBytes.get(),
        wastedDollars.sum(),
        discarded.get(),
        cache.weightedBytes(),
        graphNodes,
        graphEdges,
        graphBytes,
        coldMisses.get(),
        lateMisses.get(),
        evictedMisses.get(),
        droppedMisses.get(),
        refusedMisses.get(),
        refusedByRequests.get(),
        refusedByBytes.get(),
        refusedByDollars.get());
  }

  /** A map that keeps its {@code limit} most recently used entries; guarded by itself. */
  private <K, V> Map<K, V> lru(int limit) {
    return new LinkedHashMap<K, V>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        if (size() <= limit) {
          return false;
        }
        if (eldest.getValue() instanceof Prefetched p && eldest.getKey() instanceof Unit u) {
          // Forgotten before any read used it: counted wasted.
          waste(u, p);
        }
        return true;
      }
    };
  }
}
