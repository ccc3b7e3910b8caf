package io.rafestore.internal.protocol.context;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The writers a listing readM expects to find logs of, so it can fetch their logs together with the
 * listing and finish in one round trip: per key, the writers whose logs this client's last readM of
 * it found (the most recently active first); for a key it has not read, its own writer id.
 *
 * <p>A guess only. A wrong guess costs one GET per cloud that answers "not found", a missed one is
 * fetched once a listing names it; what a read returns is decided by the listings and the logs,
 * never by this memory. (Guessing the writers found lately on other keys was tried and dropped: for
 * a key nobody expected, the first listing to arrive names its writers early enough, so such
 * guesses only added GETs.) Bounded: at most {@value #PER_KEY} writers per key and {@value #KEYS}
 * keys (all forgotten when full). Thread-safe.
 */
public final class WriterMemory {
  /** Most writers expected for one key. */
  public static final int PER_KEY = 8;

  /** Most keys remembered. */
  static final int KEYS = 100_000;

  private final ConcurrentHashMap<String, List<String>> byKey = new ConcurrentHashMap<>();

  /**
   * The writers to fetch together with the listing of {@code key}: those last found for it (none if
   * it had no log), else {@code ownWriter} (if not null).
   */
  public List<String> guesses(String key, String ownWriter) {
    List<String> known = byKey.get(key);
    if (known != null) {
      return known;
    }
    return ownWriter == null ? List.of() : List.of(ownWriter);
  }

  /**
   * Records that readM of {@code key} found logs of {@code writers}, the most recently active
   * first.
   */
  public void learned(String key, List<String> writers) {
    List<String> kept = List.copyOf(writers.subList(0, Math.min(PER_KEY, writers.size())));
    if (byKey.size() >= KEYS && !byKey.containsKey(key)) {
      byKey.clear();
    }
    byKey.put(key, kept);
  }
}
