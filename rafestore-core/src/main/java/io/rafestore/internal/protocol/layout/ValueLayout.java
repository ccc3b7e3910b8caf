package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.spi.ByteRange;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * How one version's value is laid out on its holders, and everything that depends on it: which
 * objects each holder stores, how a read fetches and checks them into the value (whole, a range, a
 * stream), how verify checks a holder's copy, how repair restores what a holder lost, and which
 * objects deletion and collection remove. One implementation per way of storing a value ({@link
 * ReplicaLayout}, {@link ReedSolomonLayout}, {@link DepSkyLayout}, {@link PartsLayout}); sealing
 * (the confidentiality option) wraps any of them ({@link SealedLayout}). {@link Layouts#of} is the
 * one place that picks the layout of a signed entry; no caller tests the entry's coding.
 *
 * <p>A layout is bound to one entry and immutable; its methods are thread-safe. Every byte a read
 * hands out, and every byte repair puts back, was first checked against a hash the entry signs.
 */
public interface ValueLayout {

  /** The objects {@code holder} stores the value in (for a holder of the version). */
  List<String> objectsOn(String holder);

  /**
   * Every object the value may occupy on any cloud: what garbage collection deletes and orphan
   * collection keeps.
   */
  List<String> allObjects();

  /**
   * What a delete asks {@code cloud} to remove, whether or not it is a holder (an upload cancelled
   * as useless may still have landed): {@code nativeMultipart} if the cloud offers native multipart
   * uploads, which may have left one joined object.
   */
  List<String> objectsToDelete(String cloud, boolean nativeMultipart);

  /** The whole value, every byte checked against the signed hashes. */
  CompletableFuture<StoredValue> read(ValueRead r);

  /**
   * {@code length} bytes from {@code offset} of the value (cut at its end), checked against a
   * signed hash before they are returned.
   */
  CompletableFuture<byte[]> range(ValueRead r, long offset, int length);

  /** A stream over the value; no byte is handed out before it was checked. Not thread-safe. */
  InputStream stream(ValueRead r);

  /**
   * Starts, before readM decides, the fetch that a read of the value from byte {@code offset}
   * begins with (the stored value, or the stored part that holds {@code offset}), if the settings
   * allow a fetch of its size; {@code r}'s view is one cloud's and must not be used for more than
   * where the bytes lie. A later read of the same entry given it ({@link ValueRead#anticipated})
   * uses its bytes instead of fetching them again. Empty if this layout anticipates nothing.
   */
  default Optional<Anticipation> anticipate(ValueRead r, long offset) {
    return Optional.empty();
  }

  /**
   * Fetches stored unit {@code part} ({@link io.rafestore.ValueCache.Unit#WHOLE} for a value stored
   * whole, else a stored part) from the holders, checked against its signed hash, not opened: what
   * the read tier's prefetcher puts in the cache. Fails with {@link UnsupportedOperationException}
   * for a layout that keeps no such unit (inline values, DepSky-CA). A part is asked first of the
   * holder {@code spread} places it on ({@link Spread}: one per prefetched stream, so that its
   * read-ahead uses the bandwidth of several holders), a value stored whole as a read routes it.
   */
  default CompletableFuture<byte[]> fetchUnit(ValueRead r, int part, Spread spread) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this layout keeps no cacheable unit"));
  }

  /**
   * One request of verify to a holder: an object, or a range of it, and which part of the layout it
   * should hold ({@link #holds}); {@code note} names the part in a finding ("" if the object is the
   * whole of what the holder stores).
   */
  record Check(String object, Optional<ByteRange> range, int part, String note) {}

  /** The requests that together check everything {@code holder} stores. */
  List<Check> checksOn(String holder);

  /**
   * Whether {@code bytes}, returned for {@code check} by {@code holder}, are what it should hold.
   */
  boolean holds(String holder, Check check, byte[] bytes);

  /**
   * A request of a maintenance pass, bounded as the pass bounds each request (failed after a time
   * limit, and then cancelled); {@code what} names it in the failure.
   */
  interface Bound {
    <T> CompletableFuture<T> apply(CompletableFuture<T> request, String what);
  }

  /** Repair of one object on one holder: what it restores (for the report) and when it is done. */
  record Restore(String what, CompletableFuture<Void> done) {}

  /**
   * Puts back object {@code object} (one of {@link #objectsOn}) on {@code holder}, rebuilt or
   * copied from the other holders and checked against the signed hashes before it is put, so repair
   * only ever restores exactly what the writer stored.
   */
  Restore restore(Context ctx, Bound bound, Version version, String holder, String object);

  /**
   * What verify found of one version's data: per holder, the {@link Check#part}s whose bytes were
   * right ({@code valid}) and those whose object was missing or did not match the signed hash
   * ({@code damaged}). A holder verify could not ask, or that failed to answer, is in neither:
   * nothing is known of it. {@code holders} are the entry's holders, in its order.
   */
  record Health(
      List<String> holders, Map<String, Set<Integer>> valid, Map<String, Set<Integer>> damaged) {
    public Health {
      holders = List.copyOf(holders);
      valid = copy(valid);
      damaged = copy(damaged);
    }

    private static Map<String, Set<Integer>> copy(Map<String, Set<Integer>> m) {
      Map<String, Set<Integer>> out = new TreeMap<>();
      m.forEach((k, v) -> out.put(k, Set.copyOf(v)));
      return java.util.Collections.unmodifiableMap(out);
    }

    /** Whether {@code holder} was found to hold {@code part} right. */
    public boolean validOn(String holder, int part) {
      return valid.getOrDefault(holder, Set.of()).contains(part);
    }

    /** Whether {@code holder} was found to lack {@code part} or to hold it wrong. */
    public boolean damagedOn(String holder, int part) {
      return damaged.getOrDefault(holder, Set.of()).contains(part);
    }

    /** {@code holders}, in their order, by what verify found of {@code part} on each. */
    public Split split(List<String> holders, int part) {
      List<String> bad = new java.util.ArrayList<>();
      List<String> good = new java.util.ArrayList<>();
      List<String> unknown = new java.util.ArrayList<>();
      for (String h : holders) {
        if (damagedOn(h, part)) {
          bad.add(h);
        } else if (validOn(h, part)) {
          good.add(h);
        } else {
          unknown.add(h);
        }
      }
      return new Split(bad, good, unknown);
    }

    /**
     * Holders of one part split by verify's findings: found damaged (missing or wrong), found
     * right, and not checked (verify knows nothing of them).
     */
    public record Split(List<String> damaged, List<String> valid, List<String> unknown) {
      public Split {
        damaged = List.copyOf(damaged);
        valid = List.copyOf(valid);
        unknown = List.copyOf(unknown);
      }

      /**
       * Where a repair takes its bytes from: the holders found right, predicted fastest first for
       * {@code bytes}, then those verify knows nothing of; never a damaged one, so no source is
       * written to during the pass.
       */
      public List<String> sources(Context ctx, long bytes) {
        List<String> out = new java.util.ArrayList<>(ctx.model.fastestFirst(valid, bytes));
        out.addAll(unknown);
        return out;
      }
    }
  }

  /**
   * How many more faults a version survives, as far as its data goes: {@code faults} more copies of
   * its weakest part (or fragments, for a coded value) may be lost or corrupted before it can
   * neither be read nor repaired; 0 means one more loses it, and a negative number that it is lost
   * already, {@code missing} naming what is missing everywhere. {@code weakest} says what limits
   * it, for a report. {@link #UNBOUNDED} for a layout that keeps nothing on data holders.
   */
  record Survival(int faults, String weakest, List<String> missing) {
    public static final Survival UNBOUNDED = new Survival(Integer.MAX_VALUE, "", List.of());

    public Survival {
      missing = List.copyOf(missing);
    }
  }

  /**
   * How many more faults the version survives, given {@code health}. The default counts each {@link
   * Check#part} as a unit every holder keeps a copy of (whole replicas, parts): per part its valid
   * copies minus one, the minimum over parts. A layout whose holders keep different pieces (coded
   * fragments) overrides it.
   */
  default Survival survival(Health health) {
    Map<Integer, Integer> copies = new TreeMap<>();
    for (String h : health.holders()) {
      for (Check c : checksOn(h)) {
        copies.merge(c.part(), health.validOn(h, c.part()) ? 1 : 0, Integer::sum);
      }
    }
    if (copies.isEmpty()) {
      return Survival.UNBOUNDED;
    }
    int least = Integer.MAX_VALUE;
    int weakest = -1;
    List<String> missing = new ArrayList<>();
    for (Map.Entry<Integer, Integer> e : copies.entrySet()) {
      if (e.getValue() < least) {
        least = e.getValue();
        weakest = e.getKey();
      }
      if (e.getValue() == 0) {
        missing.add(unitName(copies.size(), e.getKey()));
      }
    }
    return new Survival(
        least - 1,
        unitName(copies.size(), weakest) + ": " + least + " valid cop" + (least == 1 ? "y" : "ies"),
        missing);
  }

  /** "the value" for a layout of one unit, else "part i". */
  private static String unitName(int units, int part) {
    return units == 1 ? "the value" : "part " + part;
  }

  /**
   * Rebuilds, in one pass, everything {@code health} says a holder lost, from whatever the holders
   * still hold right; each {@link Restore} is one object put back (or one that could not be), and
   * each rebuilt object was checked against the signed hashes before it was put. The default
   * restores each damaged object on its own ({@link #restore}); a layout whose objects can be
   * rebuilt from pieces spread over several holders (parts, coded fragments) overrides it, so that
   * the one pass repairs everything that is recoverable whatever the order of the findings.
   */
  default List<Restore> heal(Context ctx, Bound bound, Version version, Health health) {
    List<Restore> out = new ArrayList<>();
    health
        .damaged()
        .forEach(
            (holder, parts) -> {
              Set<String> objects = new LinkedHashSet<>();
              for (Check c : checksOn(holder)) {
                if (parts.contains(c.part())) {
                  objects.add(c.object());
                }
              }
              for (String o : objects) {
                out.add(restore(ctx, bound, version, holder, o));
              }
            });
    return out;
  }
}
