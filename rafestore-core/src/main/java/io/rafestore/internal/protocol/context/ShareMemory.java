package io.rafestore.internal.protocol.context;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The key shares this client made for the sealed values it wrote (confidentiality option), by the
 * entry's data object name (unique to one write, a random nonce; a timestamp is not: other writers'
 * entries and a crashed writer's fork reuse it), then cloud id. The next rewrite of the writer's
 * log carries them to each cloud ({@code KeyShares.payloads}). Bounded: cleared when it grows too
 * large. Thread-safe.
 */
public final class ShareMemory {
  private static final int CACHE_LIMIT = 100_000;

  private final ConcurrentHashMap<String, Map<String, byte[]>> own = new ConcurrentHashMap<>();

  /** Remembers the shares, by cloud id, made for the sealed value stored as {@code dataObject}. */
  public void remember(String dataObject, Map<String, byte[]> shares) {
    if (own.size() >= CACHE_LIMIT) {
      own.clear();
    }
    own.put(dataObject, Map.copyOf(shares));
  }

  /** The shares, by cloud id, this client made for {@code dataObject}; empty if it knows none. */
  public Map<String, byte[]> sharesOf(String dataObject) {
    return own.getOrDefault(dataObject, Map.of());
  }
}
