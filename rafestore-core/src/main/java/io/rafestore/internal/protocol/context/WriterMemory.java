package io.rafestore.internal.protocol.context;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The writers a listing readM expects to find logs of, so it can fetch their logs together with the
 * listing and finish in one round trip: per key, the writers whose logs this client's last readM of
 * it found (the most recently active first); for a key it has not read, its own writer id and the
 * writers it found lately on any key.
 *
 * <p>A guess only. A wrong guess costs one GET per cloud that answers "not found", a missed one a
 * second round trip; what a read returns is decided by the listings and the logs, never by this
 * memory. Bounded: at most {@value #PER_KEY} writers per key, {@value #RECENT} recent writers, and
 * {@value #KEYS} keys (all forgotten when full). Thread-safe.
 */
public final class WriterMemory {
  /** Most writers guessed for one key. */
  public static final int PER_KEY = 8;

  /** Most recent writers remembered for keys not read before. */
  static final int RECENT = 4;

  /** Most keys remembered. */
  static final int KEYS = 100_000;

  private final ConcurrentHashMap<String, List<String>> byKey = new ConcurrentHashMap<>();
  private final LinkedHashSet<String> recent = new LinkedHashSet<>();

  /**
   * The writers to fetch together with the listing of {@code key}: those last found for it (none if
   * it had no log), else {@code ownWriter} (if not null) and the recent writers.
   */
  public List<String> guesses(String key, String ownWriter) {
    List<String> known = byKey.get(key);
    if (known != null) {
      return known;
    }
    List<String> out = new ArrayList<>(RECENT + 1);
    if (ownWriter != null) {
      out.add(ownWriter);
    }
    synchronized (recent) {
      for (String w : recent) {
        if (out.size() > RECENT) {
          break;
        }
        if (!w.equals(ownWriter)) {
          out.add(w);
        }
      }
    }
    return out;
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
    if (kept.isEmpty()) {
      return;
    }
    synchronized (recent) {
      // Most recent last in iteration order; the oldest first, dropped when full.
      for (int i = Math.min(RECENT, kept.size()) - 1; i >= 0; i--) {
        recent.remove(kept.get(i));
        recent.add(kept.get(i));
      }
      while (recent.size() > RECENT) {
        recent.remove(recent.iterator().next());
      }
    }
  }
}
