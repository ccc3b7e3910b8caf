package io.rafestore.internal.protocol;

import io.rafestore.CacheEvent;
import io.rafestore.ValueCache;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A test fake of {@link ValueCache}: a map in insertion order bounded by bytes (oldest dropped
 * first; not a policy to ship, rafestore-cache's Caffeine is), which can be told to lie ({@link
 * #tamper}) so tests see that the client never believes it.
 */
public final class MapValueCache implements ValueCache {
  private final long maxBytes;
  private final LinkedHashMap<Unit, byte[]> units = new LinkedHashMap<>();
  private long bytes;
  private volatile UnaryOperator<byte[]> lie = UnaryOperator.identity();
  private Consumer<CacheEvent> events;
  int gets;
  int puts;

  public MapValueCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** From now on every get returns {@code how} of the stored bytes. */
  public MapValueCache tamper(UnaryOperator<byte[]> how) {
    this.lie = how;
    return this;
  }

  @Override
  public synchronized void bind(Consumer<CacheEvent> events) {
    if (this.events != null) {
      throw new IllegalStateException("this cache serves another client already");
    }
    this.events = events;
  }

  @Override
  public synchronized Optional<byte[]> get(Unit unit) {
    gets++;
    byte[] b = units.get(unit);
    return b == null ? Optional.empty() : Optional.of(lie.apply(b.clone()));
  }

  @Override
  public synchronized boolean contains(Unit unit) {
    return units.containsKey(unit);
  }

  @Override
  public synchronized void put(Unit unit, byte[] value) {
    puts++;
    byte[] old = units.put(unit, value.clone());
    if (old != null) {
      bytes -= old.length;
    }
    bytes += value.length;
    var it = units.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      Map.Entry<Unit, byte[]> e = it.next();
      bytes -= e.getValue().length;
      it.remove();
    }
  }

  /** Units put by {@link #putProtected} or moved by {@link #protect} (a set, never evicted). */
  public final java.util.Set<Unit> protectedUnits =
      java.util.Collections.synchronizedSet(new java.util.HashSet<>());

  /** Units put by {@link #putProtected}. */
  public final java.util.Set<Unit> putProtected =
      java.util.Collections.synchronizedSet(new java.util.HashSet<>());

  @Override
  public synchronized void putProtected(Unit unit, byte[] value) {
    put(unit, value);
    putProtected.add(unit);
    protectedUnits.add(unit);
  }

  @Override
  public synchronized void protect(Unit unit) {
    if (units.containsKey(unit)) {
      protectedUnits.add(unit);
    }
  }

  @Override
  public synchronized void remove(Unit unit) {
    byte[] old = units.remove(unit);
    if (old != null) {
      bytes -= old.length;
    }
  }

  @Override
  public synchronized long weightedBytes() {
    return bytes;
  }

  @Override
  public synchronized boolean hasRoom(long more) {
    return bytes + more <= maxBytes;
  }

  public synchronized int size() {
    return units.size();
  }

  public synchronized void clear() {
    units.clear();
    bytes = 0;
  }
}
